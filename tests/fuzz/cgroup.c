/*
 * Fuzzes cgroup.conf as each job's supervisor reads it beside slurm.conf
 * (nodeconf: ConstrainRAMSpace, ConstrainCores, ConstrainDevices,
 * CgroupMountpoint), under a slurm.conf that turns task/cgroup on.
 * Private temporary directory.
 */
#include "noded/nodeconf.h"
#include "fuzz.h"

static const char slurm_conf[] =
    "ProctrackType=proctrack/cgroup\nTaskPlugin=task/cgroup,task/affinity\n"
    "Prolog=/etc/herd/prolog\nEpilog=\"/etc/herd/epilog\"\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char *path;
    if (!path)
        path = fuzz_write("slurm.conf", slurm_conf, sizeof slurm_conf - 1);
    free(fuzz_write("cgroup.conf", data, size));
    struct nodeconf nc;
    if (nodeconf_load(&nc, path) == 0)
        nodeconf_clear(&nc);
    return 0;
}
