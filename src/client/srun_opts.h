/*
 * srun_opts: srun's options (salloc takes the same). The step's own ones
 * are read into struct srun_opts; those that shape an allocation are also
 * kept, sbatch style, for alloc.h when srun or salloc makes one.
 */
#ifndef HERD_SRUN_OPTS_H
#define HERD_SRUN_OPTS_H

#include <stdbool.h>

struct srun_opts {
    int ntasks, nodes, ntasks_per_node, cpus_per_task, gpus_per_task;
    int cpus_per_gpu;          /* --cpus-per-gpu, else the job's SLURM_CPUS_PER_GPU (srun) */
    const char *nodelist, *name, *chdir, *jobid;
    const char *mpi;           /* "none" or "pmi2": --mpi, else SLURM_MPI_TYPE */
    const char *output, *error, *input;   /* -o, -e, -i FILE patterns (srun_files.c) */
    bool append;               /* --open-mode=append */
    int input_task;            /* --input: -1 all tasks (default), -2 none, else a rank */
    bool label, unbuffered, kill_on_bad_exit, quiet, pty, overlap;
    bool gpu_bind_none;        /* --gpu-bind=none: each task sees every GPU of the step */
    const char *gpu_bind;      /* --gpu-bind as given (checked), NULL none */
    char **argv;               /* the command, from the first non-option */
    char **alloc_argv;         /* the options an allocation takes, sbatch style: alloc.h */
    int alloc_argc;
    int error_rc;              /* the exit code a refused option asks (Slurm's 255); 0: 1 */
};

/* prog names the errors. 0, -1, or SRUN_PARSE_FATAL for an error Slurm
 * exits 255 on (a bad option word, a malformed node count). */
#define SRUN_PARSE_FATAL (-2)
int srun_parse(const char *prog, int argc, char **argv, struct srun_opts *o);
void srun_opts_free(struct srun_opts *o);

#endif
