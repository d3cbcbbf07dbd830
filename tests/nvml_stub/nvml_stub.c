/*
 * nvml_stub: a stand-in for libnvidia-ml.so.1 with the functions herdd's
 * detect.c looks up, so that GPU detection is tested on machines without
 * GPUs. $HERD_NVML_STUB_COUNT GPUs (default 4) named $HERD_NVML_STUB_NAME
 * (default "Tesla T4"), minor numbers 0..N-1. Loaded through
 * $HERD_NVML_LIBRARY.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NVML_SUCCESS 0
#define NVML_ERROR_INVALID_ARGUMENT 2

static unsigned int count(void)
{
    const char *s = getenv("HERD_NVML_STUB_COUNT");
    return s ? (unsigned int)atoi(s) : 4;
}

int nvmlInit_v2(void) { return NVML_SUCCESS; }
int nvmlShutdown(void) { return NVML_SUCCESS; }

int nvmlDeviceGetCount_v2(unsigned int *n)
{
    *n = count();
    return NVML_SUCCESS;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void **dev)
{
    if (i >= count())
        return NVML_ERROR_INVALID_ARGUMENT;
    *dev = (void *)(uintptr_t)(i + 1);
    return NVML_SUCCESS;
}

int nvmlDeviceGetName(void *dev, char *name, unsigned int len)
{
    (void)dev;
    const char *s = getenv("HERD_NVML_STUB_NAME");
    snprintf(name, len, "%s", s ? s : "Tesla T4");
    return NVML_SUCCESS;
}

int nvmlDeviceGetUUID(void *dev, char *uuid, unsigned int len)
{
    snprintf(uuid, len, "GPU-00000000-0000-0000-0000-%012u", (unsigned)(uintptr_t)dev - 1);
    return NVML_SUCCESS;
}

int nvmlDeviceGetMinorNumber(void *dev, unsigned int *minor)
{
    *minor = (unsigned)(uintptr_t)dev - 1;
    return NVML_SUCCESS;
}
