/*
 * sbatch_opts: sbatch's options, from the command line and from #SBATCH
 * directives, into one struct, and from there into the job spec JSON of
 * docs/protocol.md. Pure: no I/O, no globals read (the environment, cwd and
 * host come in through struct sbatch_env), so every rule is unit-testable.
 *
 * Order as Slurm: the command line is parsed once to find the script, the
 * script's directives are parsed, then the command line again so that it
 * wins. Errors come back as complete text ("sbatch: error: ..."), possibly
 * several lines, for the caller to print as is.
 */
#ifndef HERD_SBATCH_OPTS_H
#define HERD_SBATCH_OPTS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define SBATCH_UNSET (-1)
/* What the parsers return for an error Slurm's sbatch exits 255 on (a bad
 * option word, time, node count, memory size...); other errors: -1, exit 1. */
#define SBATCH_OPT_FATAL (-2)

/* Where an option came from: a later source overrides an earlier one. */
enum sbatch_src {
    SBATCH_SRC_SCRIPT = 1,
    SBATCH_SRC_CLI = 2,
};

enum sbatch_mem {
    SBATCH_MEM_NODE,
    SBATCH_MEM_CPU,
    SBATCH_MEM_GPU,
    SBATCH_MEM_KINDS,
};

struct sbatch_opts {
    enum sbatch_src src;            /* the source being parsed now */

    char *job_name, *partition, *wrap, *export_env;
    char *out, *err, *in, *chdir, *nodelist, *exclude;
    /* Stored for the controller, not acted on yet. */
    char *account, *qos, *comment, *constraint, *signal, *open_mode;
    char *mail_type, *mail_user, *nice, *wckey;
    char *reservation;              /* --reservation: the controller checks it */
    char *dependency;               /* --dependency, as given: the controller reads it */
    char *array;                    /* --array, checked; MaxArraySize is the controller's */
    int64_t begin_time, deadline;   /* --begin, --deadline: Unix times, 0 unset */

    /* SBATCH_UNSET when not given; only given numbers are sent. */
    int64_t nodes, ntasks, cpus_per_task, ntasks_per_node;
    int64_t max_nodes;     /* -N MIN-MAX's MAX, MIN when no range: what show job prints */
    int64_t mem_mb[SBATCH_MEM_KINDS];
    int mem_src[SBATCH_MEM_KINDS];  /* 0 or the enum sbatch_src that set it */
    int64_t gpus, gpus_per_node;
    int64_t gpus_per_task, cpus_per_gpu, ntasks_per_gpu;
    int64_t gpus_per_socket, sockets_per_node;   /* taken; sockets are not modelled */
    char *gpu_type;
    char *gpu_bind;                 /* checked (gpu_bind.h), passed on to the steps */
    int gpus_per_node_gres;         /* the per-node count came from --gres (no SLURM_GPUS_PER_NODE) */
    int64_t acctg_freq;             /* --acctg-freq's task period, seconds; SBATCH_UNSET */
    int64_t time_limit;             /* minutes, -1 UNLIMITED */
    int time_set;

    int requeue;                    /* SBATCH_UNSET, 0 or 1 */
    int kill_invalid_dep;           /* --kill-on-invalid-dep: SBATCH_UNSET, 0 or 1 */
    int hold, exclusive, parsable, quiet, verbose, wait, help;
    int error_rc;                   /* the exit code an error asks (Slurm's 255); 0: 1 */
};

/* What the job spec takes from sbatch's surroundings; all borrowed. */
struct sbatch_env {
    const char *script;
    const char *default_name;       /* script basename, "sbatch" (stdin), "wrap" */
    char **script_argv;             /* arguments after the script */
    int script_argc;
    char **environ;                 /* NULL-terminated */
    const char *cwd;
    const char *host;
    int umask;
};

void sbatch_opts_init(struct sbatch_opts *o);
void sbatch_opts_free(struct sbatch_opts *o);   /* NULL is a no-op */

/* Parses argv[1..] up to the first non-option (the script) under o->src.
 * *script_idx: index of that argument (argc when none). 0, or -1 or
 * SBATCH_OPT_FATAL with err. */
int sbatch_opts_parse_argv(struct sbatch_opts *o, int argc, char **argv,
                           int *script_idx, char *err, size_t errlen);

/* Parses the #SBATCH directives of a script (see sbatch_opts.c for the
 * rules) under SBATCH_SRC_SCRIPT. 0, or -1 or SBATCH_OPT_FATAL with err
 * naming the line. */
int sbatch_opts_parse_script(struct sbatch_opts *o, const char *script,
                             char *err, size_t errlen);

/* After all parsing: resolves conflicts between sources (memory options).
 * 0 or -1 with err. */
int sbatch_opts_finish(struct sbatch_opts *o, char *err, size_t errlen);

/* The sanity checks of a script Slurm makes (empty, no "#!", NUL, DOS line
 * breaks). 0 or -1 with err. */
int sbatch_script_check(const char *script, size_t len, char *err, size_t errlen);

/* The script --wrap makes of a command; caller frees. */
char *sbatch_wrap_script(const char *cmd);

/* The job spec; caller decrefs. */
json_t *sbatch_opts_to_json(const struct sbatch_opts *o, const struct sbatch_env *env);

/* The environment --export sends, as an array of "K=V"; caller decrefs. */
json_t *sbatch_export_env(const char *export_env, char **environ);

#endif
