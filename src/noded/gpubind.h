/*
 * gpubind: the GPUs one task of a step sees under srun's --gpu-bind
 * map_gpu, mask_gpu or single, chosen as Slurm's slurmstepd chooses them
 * from the step's GPUs on the node. Pure: the caller sets the variables.
 */
#ifndef HERD_NODED_GPUBIND_H
#define HERD_NODED_GPUBIND_H

#include <stdbool.h>
#include <stddef.h>

/* gpus (n of them, node indices) are the step's on this node. Writes the
 * task's to out (room for n) and returns how many; 0 when bind chooses
 * nothing (closest, none, per_task, NULL), so the caller's default holds.
 * *outside: the request named none of gpus, and the first was taken, as
 * Slurm does after saying so. map_gpu:L: task localid's GPU is L's
 * (localid % its length)-th id, "ID*count" repeating one; mask_gpu:L the
 * same with hex masks of ids; single:N: N tasks a GPU, in order. */
size_t gpubind_task(const char *bind, const int *gpus, size_t n, int localid, int *out,
                    bool *outside);

#endif
