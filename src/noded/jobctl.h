/*
 * jobctl: what the supervisor does around a job besides running it: its
 * cgroup (limits from the job's allocation and the node's cgroup.conf),
 * the Prolog and Epilog scripts (run as root in an environment of Herd's
 * own: jobenv_root_script), and the CPU and GPU device lists the limits are
 * made of.
 */
#ifndef HERD_NODED_JOBCTL_H
#define HERD_NODED_JOBCTL_H

#include <stdint.h>

struct job_spec;
struct jobcg;
struct nodeconf;

/* The job's cgroup as the configuration asks; NULL when it asks for none
 * or the machine has none usable (logged: the job then runs with process
 * tracking only). job_dir is the job's spool directory: several clusters
 * (or emulated nodes) on one machine may share node names and job ids, so
 * the group is herd/NODE-HASH/job_ID, HASH naming the spool. */
struct jobcg *jobctl_cgroup(const struct job_spec *js, const struct nodeconf *nc,
                            const char *job_dir);
/* That NODE-HASH, for a step joining the job's groups. Caller frees. */
char *jobctl_cgroup_scope(const char *node_name, const char *job_dir);
/* For herdd, when a job's supervisor is gone without ending it: kills every
 * process left in the job's groups (a setsid child escapes its session, not
 * its cgroup) and removes the groups. 0, or -1 when some process remains;
 * 0 too when the configuration gives jobs no cgroup or the job has none. */
int jobctl_cgroup_end(const char *conf_path, const char *node_name, const char *job_dir,
                      int64_t job_id);

/* The machine's CPUs for the node CPU indices herdd chose, each taken
 * modulo the machine's CPU count (emulated nodes share the real CPUs):
 * "0-1,3"; NULL when the job has no indices. Caller frees. */
char *jobctl_cpuset(const struct job_spec *js, int machine_cpus);

/* The node's GPU devices the job was not given ("c 195:2" each),
 * NULL-terminated. Caller frees each and the array. */
char **jobctl_deny_devs(const struct job_spec *js);

/* Runs a Prolog or Epilog (context "prolog_slurmd" or "epilog_slurmd") as
 * root and waits for it; its exit status (0: success), -1 when it could
 * not run. */
int jobctl_script(const char *path, const char *context, const struct job_spec *js,
                  const char *conf_path);

#endif
