/*
 * nvml: NVIDIA's management library, loaded with dlopen at run time
 * ("libnvidia-ml.so.1", or $HERD_NVML_LIBRARY) so that herdd builds without
 * its header and runs on machines without the driver. Detection (detect.c)
 * opens it once at start; the sampler (gpumon.c) keeps it open.
 */
#ifndef HERD_NODED_NVML_H
#define HERD_NODED_NVML_H

#include <stdbool.h>
#include <stdint.h>

/* NVML's own ABI. */
typedef int nvml_ret;
typedef void *nvml_device;
#define NVML_SUCCESS 0
#define NVML_NAME_LEN 96
#define NVML_TEMPERATURE_GPU 0

struct nvml_utilization { unsigned int gpu, memory; };            /* nvmlUtilization_t */
struct nvml_memory { unsigned long long total, free, used; };      /* nvmlMemory_t */

struct nvml {
    void *lib;
    nvml_ret (*init)(void);
    nvml_ret (*shutdown)(void);
    nvml_ret (*count)(unsigned int *);
    nvml_ret (*handle)(unsigned int, nvml_device *);
    nvml_ret (*name)(nvml_device, char *, unsigned int);
    /* optional: NULL where the library lacks them */
    nvml_ret (*uuid)(nvml_device, char *, unsigned int);
    nvml_ret (*minor_number)(nvml_device, unsigned int *);
    nvml_ret (*utilization)(nvml_device, struct nvml_utilization *);
    nvml_ret (*memory)(nvml_device, struct nvml_memory *);
    nvml_ret (*power)(nvml_device, unsigned int *);                /* milliwatts */
    nvml_ret (*temperature)(nvml_device, int, unsigned int *);     /* Celsius */
};

/* Loads and initializes the library; 0, or -1 (logged at debug level when
 * there is none, a warning when it is unusable). */
int nvml_open(struct nvml *n);
/* Shuts it down and unloads it. */
void nvml_close(struct nvml *n);

#endif
