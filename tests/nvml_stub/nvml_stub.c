/*
 * nvml_stub: a stand-in for libnvidia-ml.so.1 with the functions herdd's
 * detect.c looks up, so that GPU detection is tested on machines without
 * GPUs. $HERD_NVML_STUB_COUNT GPUs (default 4) named $HERD_NVML_STUB_NAME
 * (default "Tesla T4"), minor numbers 0..N-1. Loaded through
 * $HERD_NVML_LIBRARY.
 *
 * Readings are scripted per GPU: $HERD_NVML_STUB_UTIL and
 * $HERD_NVML_STUB_MEM_MB are comma lists by index ("90,0"; a missing entry
 * is 0), read at each call; a file named by $HERD_NVML_STUB_VALUES, when it
 * exists, overrides both, so that a test can change them while jobs run:
 * lines "INDEX UTIL MEM_MB". Each GPU has 16 GiB, draws 70 W and is at
 * 40 C.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

struct util { unsigned int gpu, memory; };
struct mem { unsigned long long total, free, used; };

/* Entry i of a comma list, 0 when missing. */
static unsigned long long list_at(const char *list, unsigned int i)
{
    for (const char *p = list; p && *p; i--) {
        if (i == 0)
            return strtoull(p, NULL, 10);
        p = strchr(p, ',');
        p = p ? p + 1 : NULL;
    }
    return 0;
}

/* The file's values for GPU i (which: 0 util, 1 MiB); -1 when it says none. */
static long long file_at(unsigned int i, int which)
{
    const char *path = getenv("HERD_NVML_STUB_VALUES");
    FILE *f = path ? fopen(path, "r") : NULL;
    if (!f)
        return -1;
    unsigned int idx;
    unsigned long long util, mib;
    long long v = -1;
    while (fscanf(f, "%u %llu %llu", &idx, &util, &mib) == 3)
        if (idx == i)
            v = (long long)(which == 0 ? util : mib);
    fclose(f);
    return v;
}

static unsigned long long value(void *dev, int which)
{
    unsigned int i = (unsigned)(uintptr_t)dev - 1;
    long long v = file_at(i, which);
    if (v >= 0)
        return (unsigned long long)v;
    return list_at(getenv(which == 0 ? "HERD_NVML_STUB_UTIL" : "HERD_NVML_STUB_MEM_MB"), i);
}

int nvmlDeviceGetUtilizationRates(void *dev, struct util *u)
{
    u->gpu = (unsigned int)value(dev, 0);
    u->memory = u->gpu / 2;
    return NVML_SUCCESS;
}

int nvmlDeviceGetMemoryInfo(void *dev, struct mem *m)
{
    m->total = 16ULL << 30;
    m->used = value(dev, 1) << 20;
    m->free = m->total > m->used ? m->total - m->used : 0;
    return NVML_SUCCESS;
}

int nvmlDeviceGetPowerUsage(void *dev, unsigned int *mw)
{
    (void)dev;
    *mw = 70000;
    return NVML_SUCCESS;
}

int nvmlDeviceGetTemperature(void *dev, int sensor, unsigned int *c)
{
    (void)dev;
    (void)sensor;
    *c = 40;
    return NVML_SUCCESS;
}
