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
    char **gpu_uuids;      /* one per GPU, "" when NVML does not say */
    int *gpu_minors;       /* one per GPU: /dev/nvidiaN's N, -1 when unknown */
};

struct conf_node;

/* Major number of NVIDIA's character devices (/dev/nvidiaN). */
#define DETECT_NVIDIA_MAJOR 195

void detect_run(struct detect *d);
void detect_clear(struct detect *d);

/* A GPU model name as Slurm's AutoDetect types it: lower case, spaces as
 * underscores ("NVIDIA H100 80GB HBM3" -> "nvidia_h100_80gb_hbm3"). In place. */
void detect_gpu_type(char *name);

/* The two lines of slurmd -C: "NodeName=... RealMemory=MB [Gres=...]" and
 * "UpTime=D-HH:MM:SS". */
void detect_print(FILE *out, const char *node_name, const struct detect *d);

/* The device of each of the node's GPUs, "c MAJ:MIN", by GPU index: from
 * gres.conf File= (the files' own numbers), else NVML's minor numbers,
 * else /dev/nvidiaINDEX's; "" for a file that is not a character device.
 * n->gpus entries, NULL-terminated; caller frees each and the array. */
char **detect_gpu_devs(const struct conf_node *n, const struct detect *d);

/* Logs what was found beside what slurm.conf declares for the node. */
void detect_check(const struct conf_node *n, const struct detect *d);

#endif
