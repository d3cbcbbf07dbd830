/* herd doctor: what a node needs of the machine: a cgroup hierarchy to
 * track and limit jobs (v2, or v1's controllers), and NVML to find and
 * watch the GPUs slurm.conf gives it. NVML is opened as herdd opens it
 * (dlopen, $HERD_NVML_LIBRARY first), so the answer is the agent's. */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/doctor.h"
#include "common/conf.h"

#define CGROUP_MOUNT "/sys/fs/cgroup"

static bool has_file(const char *dir, const char *sub, const char *file)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s/%s", dir, sub, file);
    return access(path, F_OK) == 0;
}

static void cgroup_v2(struct doctor *d)
{
    char line[512] = "";
    FILE *f = fopen(CGROUP_MOUNT "/cgroup.controllers", "r");
    if (f && !fgets(line, sizeof line, f))
        line[0] = '\0';
    if (f)
        fclose(f);
    line[strcspn(line, "\n")] = '\0';
    if (strstr(line, "memory") && strstr(line, "cpuset"))
        doctor_say(d, DOC_OK, "cgroups", "v2 with controllers: %s", line);
    else
        doctor_say(d, DOC_FAIL, "cgroups", "v2 without the memory and cpuset controllers "
                   "(it has: %s): jobs' memory and CPUs cannot be limited; enable them "
                   "(cgroup_enable=memory, or systemd's Delegate)", line[0] ? line : "none");
}

static void cgroup_v1(struct doctor *d)
{
    static const char *const need[] = { "freezer", "cpuacct", "memory" };
    static const char *const want[] = { "cpuset", "devices" };
    char missing[128] = "", lacking[64] = "";
    for (size_t i = 0; i < 3; i++)
        if (!has_file(CGROUP_MOUNT, need[i], "cgroup.procs"))
            snprintf(missing + strlen(missing), sizeof missing - strlen(missing), " %s",
                     need[i]);
    for (size_t i = 0; i < 2; i++)
        if (!has_file(CGROUP_MOUNT, want[i], "cgroup.procs"))
            snprintf(lacking + strlen(lacking), sizeof lacking - strlen(lacking), " %s",
                     want[i]);
    if (missing[0])
        doctor_say(d, DOC_FAIL, "cgroups", "v1 without%s under %s: jobs cannot be tracked "
                   "and limited", missing, CGROUP_MOUNT);
    else if (lacking[0])
        doctor_say(d, DOC_WARN, "cgroups", "v1 without%s: ConstrainCores and "
                   "ConstrainDevices cannot work", lacking);
    else
        doctor_say(d, DOC_OK, "cgroups", "v1 with freezer, cpuacct, memory, cpuset, devices");
}

void doctor_cgroups(struct doctor *d)
{
    if (access(CGROUP_MOUNT "/cgroup.controllers", F_OK) == 0)
        cgroup_v2(d);
    else if (has_file(CGROUP_MOUNT, "freezer", "") || has_file(CGROUP_MOUNT, "memory", ""))
        cgroup_v1(d);
    else
        doctor_say(d, DOC_FAIL, "cgroups", "no cgroup hierarchy at %s: jobs cannot be tracked "
                   "or limited", CGROUP_MOUNT);
}

typedef int (*nvml_void_fn)(void);
typedef int (*nvml_count_fn)(unsigned *);

/* The number of GPUs NVML sees, or -1 with why. */
static int nvml_count(char *why, size_t n)
{
    const char *path = getenv("HERD_NVML_LIBRARY");
    if (!path || !path[0])
        path = "libnvidia-ml.so.1";
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(why, n, "%s", dlerror());
        return -1;
    }
    nvml_void_fn init = (nvml_void_fn)dlsym(lib, "nvmlInit_v2");
    nvml_void_fn shut = (nvml_void_fn)dlsym(lib, "nvmlShutdown");
    nvml_count_fn count = (nvml_count_fn)dlsym(lib, "nvmlDeviceGetCount_v2");
    unsigned got = 0;
    int rc = -1;
    if (!init || !shut || !count)
        snprintf(why, n, "%s lacks nvmlInit_v2, nvmlShutdown or nvmlDeviceGetCount_v2", path);
    else if (init() != 0)
        snprintf(why, n, "nvmlInit_v2 failed (is the NVIDIA driver loaded?)");
    else {
        rc = count(&got) == 0 ? (int)got : -1;
        if (rc < 0)
            snprintf(why, n, "nvmlDeviceGetCount_v2 failed");
        shut();
    }
    dlclose(lib);
    return rc;
}

void doctor_nvml(struct doctor *d)
{
    const struct conf_node *node = d->conf ? conf_node_find(d->conf, d->node) : NULL;
    int want = node ? node->gpus : 0;
    char why[512];
    int got = nvml_count(why, sizeof why);
    if (got < 0)
        doctor_say(d, want ? DOC_FAIL : DOC_OK, "nvml", "not found (%s)%s", why,
                   want ? ": this node's GPUs cannot be found or watched; install the NVIDIA "
                   "driver" : "; this node has no GPUs in slurm.conf");
    else if (got < want)
        doctor_say(d, DOC_FAIL, "nvml", "sees %d GPU%s, slurm.conf gives this node %d", got,
                   got == 1 ? "" : "s", want);
    else
        doctor_say(d, DOC_OK, "nvml", "sees %d GPU%s (slurm.conf: %d)", got,
                   got == 1 ? "" : "s", want);
}
