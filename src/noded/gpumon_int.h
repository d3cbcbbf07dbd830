/*
 * gpumon_int: what gpumon.c and gpumon_steps.c share (internal to herdd's
 * sampling; see gpumon.h).
 */
#ifndef HERD_NODED_GPUMON_INT_H
#define HERD_NODED_GPUMON_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "noded/gpumon.h"
#include "noded/nodeconf.h"
#include "noded/nvml.h"

/* A job of another node whose srun steps run here (gpumon_steps.c). */
struct rjob {
    int64_t id;
    struct jobmon mon;
    struct rjob *next;
};

struct gpumon {
    struct nvml nvml;
    nvml_device *dev;          /* by node GPU index; NULL where NVML has none */
    int *minor;                /* /dev/nvidiaN's N of each, for /metrics; -1 unknown */
    size_t ndev;
    struct nodeconf nc;
    bool have_nc;
    bool reporting;            /* a usage report is in flight */
    struct rjob *remote;       /* jobs whose batch runs elsewhere, sampled while a step runs */
};

/* GPU idx (a node index) now; false (r->util -1) when NVML cannot say. */
bool gpumon_read(struct gpumon *m, int idx, struct gpu_reading *r);
/* The usage report's entry for a job: its CPU, memory and GPU figures. */
json_t *gpumon_live_json(const struct jobmon *mon);

/* gpumon_steps.c: samples the remote jobs that are due into jobs (the
 * report's {id: entry}, created when NULL); forgets those with no step
 * left here. */
void gpumon_steps_tick(struct agent *a, int64_t now, json_t **jobs);
void gpumon_steps_free(struct gpumon *m);
/* The remote job holding GPU idx, for /metrics' labels. */
bool gpumon_steps_holder(struct gpumon *m, int idx, int64_t *id, const char **user);

#endif
