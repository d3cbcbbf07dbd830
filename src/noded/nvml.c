#include "noded/nvml.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "noded/sysops.h"

#define SYM(field, name) (*(void **)&n->field = sys->dlsym(n->lib, name))

int nvml_open(struct nvml *n)
{
    memset(n, 0, sizeof *n);
    const char *path = getenv("HERD_NVML_LIBRARY");
    n->lib = sys->dlopen(path && path[0] ? path : "libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!n->lib) {
        const char *why = dlerror();
        log_debug("no NVML: %s", why ? why : "not loaded");
        return -1;
    }
    SYM(init, "nvmlInit_v2");
    SYM(shutdown, "nvmlShutdown");
    SYM(count, "nvmlDeviceGetCount_v2");
    SYM(handle, "nvmlDeviceGetHandleByIndex_v2");
    SYM(name, "nvmlDeviceGetName");
    SYM(uuid, "nvmlDeviceGetUUID");
    SYM(minor_number, "nvmlDeviceGetMinorNumber");
    SYM(utilization, "nvmlDeviceGetUtilizationRates");
    SYM(memory, "nvmlDeviceGetMemoryInfo");
    SYM(power, "nvmlDeviceGetPowerUsage");
    SYM(temperature, "nvmlDeviceGetTemperature");
    if (!n->init || !n->shutdown || !n->count || !n->handle || !n->name) {
        log_warnx("NVML library lacks the functions herdd needs");
        sys->dlclose(n->lib);
        n->lib = NULL;
        return -1;
    }
    if (n->init() != NVML_SUCCESS) {
        log_warnx("nvmlInit_v2 failed");
        sys->dlclose(n->lib);
        n->lib = NULL;
        return -1;
    }
    return 0;
}

void nvml_close(struct nvml *n)
{
    if (!n->lib)
        return;
    n->shutdown();
    sys->dlclose(n->lib);
    n->lib = NULL;
}
