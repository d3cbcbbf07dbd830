/*
 * jobenv: what a batch job sees of Slurm: its environment (the job's own
 * "environment" list with the SLURM_* variables set over it), the fresh one
 * of the root scripts run for it, and its I/O file
 * names (Slurm's filename patterns %j %x %u %N %n %A %a %t %%, with optional
 * zero padding such as %4j).
 */
#ifndef HERD_NODED_JOBENV_H
#define HERD_NODED_JOBENV_H

#include <sys/types.h>

struct job_spec;

/* The NULL-terminated environment of the job; conf_path becomes SLURM_CONF
 * and task_pid SLURM_TASK_PID. Free with jobenv_free. */
char **jobenv_build(const struct job_spec *js, const char *conf_path, pid_t task_pid);
void jobenv_free(char **env);                    /* NULL is a no-op */

/* The whole environment of a script Herd runs as root for the job (Prolog,
 * Epilog; context is SLURM_SCRIPT_CONTEXT): only what Herd sets from the
 * job's record and the node, as Slurm, with a fixed PATH; nothing from the
 * job's environment. Free with jobenv_free. */
char **jobenv_root_script(const struct job_spec *js, const char *conf_path, const char *context);

/* The pattern with Slurm's codes replaced as the batch step sees them
 * (common/fname.h: %s is "batch", %n and %t 0). Caller frees. */
char *jobenv_expand(const char *pattern, const struct job_spec *js);

/* The batch step's stdout pattern when none is given: "slurm-%A_%a.out" for
 * an array's task, as Slurm names it, else "slurm-%j.out". */
const char *jobenv_default_out(const struct job_spec *js);

/* The file a pattern names: expanded, a relative one taken from the job's
 * work_dir; "" gives def. Caller frees. */
char *jobenv_path(const char *pattern, const char *def, const struct job_spec *js);

#endif
