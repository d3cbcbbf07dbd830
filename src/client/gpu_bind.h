/*
 * gpu_bind: the forms of --gpu-bind that Slurm 22.05 takes, checked where
 * the option is read (sbatch, salloc, srun) as Slurm checks them there:
 * the first word names the binding, case aside ("closest", "none",
 * "single:", "per_task:", "map_gpu:", "mask_gpu:"), after an optional
 * "verbose,"; what follows a map or a mask may hold only its list's
 * characters. Slurm takes more at submission than it can bind (a count
 * of "x", "closestx"), and so do we.
 */
#ifndef HERD_GPU_BIND_H
#define HERD_GPU_BIND_H

#include <stdbool.h>
#include <stddef.h>

/* false when Slurm refuses arg; why then holds the line Slurm prints
 * before its "Invalid --gpu-bind argument", or "" when it prints none. */
bool gpu_bind_valid(const char *arg, char *why, size_t whylen);

#endif
