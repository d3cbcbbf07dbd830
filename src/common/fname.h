/*
 * fname: Slurm's file name patterns for --output, --error and --input, in
 * one place for sbatch (the node agent opens the batch step's files), srun
 * (each task's files) and scontrol show job (StdOut=, StdErr=).
 *
 *   %A the array's job id (the job's own outside an array)   %a the task
 *   index (4294967294 outside an array)   %j the job id   %J the job id and
 *   step, "12.0" ("12" for the batch step)   %s the step ("batch" for the
 *   batch step)   %N the node's name   %n the node's index in the step
 *   %t the task's rank   %u the user   %x the job name   %% a '%'
 *
 * A width after the '%' zero-pads numbers ("%4a" -> 0007), at most 10 wide,
 * as Slurm caps it; names ignore it. A pattern holding a '\' is taken
 * literally, its backslashes dropped. An unknown code stays as written.
 */
#ifndef HERD_COMMON_FNAME_H
#define HERD_COMMON_FNAME_H

#include <stdint.h>

#define FNAME_BATCH_STEP (-2)   /* step_id of the batch script's step */

struct fname_vals {
    int64_t job_id;
    int64_t array_job_id;      /* 0 outside an array */
    int64_t array_task_id;     /* -1 outside an array */
    int64_t step_id;           /* FNAME_BATCH_STEP for the batch step */
    int64_t node_index, task_id;
    const char *node_name, *user_name, *job_name;   /* NULL reads as "" */
};

/* The name a pattern gives; caller frees. */
char *fname_expand(const char *pattern, const struct fname_vals *v);

/* The name as scontrol show job prints it: only %A %a %j %u %x and %%, no
 * widths, the rest left as written (Slurm 22.05). Caller frees. */
char *fname_show(const char *pattern, const struct fname_vals *v);

/* The batch step's stdout when none is given: "slurm-%A_%a.out" in an
 * array (its waiting tasks too, as scontrol shows them), else
 * "slurm-%j.out". */
const char *fname_default(const struct fname_vals *v);

#endif
