/*
 * detect: what this machine has, as slurmd -C reports it: CPUs, memory and
 * GPUs. GPUs come from NVML, loaded with dlopen at run time
 * ("libnvidia-ml.so.1", or $HERD_NVML_LIBRARY) so that a machine without the
 * driver still runs: no library means no GPUs, not an error.
 */
#ifndef HERD_NODED_DETECT_H
#define HERD_NODED_DETECT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct detect {
    int cpus;
    uint64_t mem_mb;
    int64_t uptime_s;
    size_t ngpus;
    char **gpu_types;      /* one per GPU, Slurm's AutoDetect name */
};

void detect_run(struct detect *d);
void detect_clear(struct detect *d);

/* A GPU model name as Slurm's AutoDetect types it: lower case, spaces as
 * underscores ("NVIDIA H100 80GB HBM3" -> "nvidia_h100_80gb_hbm3"). In place. */
void detect_gpu_type(char *name);

/* The two lines of slurmd -C: "NodeName=... RealMemory=MB [Gres=...]" and
 * "UpTime=D-HH:MM:SS". */
void detect_print(FILE *out, const char *node_name, const struct detect *d);

#endif
