/*
 * nodeconf: the few node-side settings that common/conf does not keep:
 * slurm.conf's TaskPlugin, ProctrackType, Prolog and Epilog, and cgroup.conf
 * (beside slurm.conf) with ConstrainRAMSpace, ConstrainCores,
 * ConstrainDevices and CgroupMountpoint. Read by each supervisor, so that a
 * job always runs under the configuration it started with.
 */
#ifndef HERD_NODED_NODECONF_H
#define HERD_NODED_NODECONF_H

#include <stdbool.h>

struct nodeconf {
    bool task_cgroup;          /* TaskPlugin names task/cgroup */
    bool proctrack_cgroup;     /* ProctrackType=proctrack/cgroup */
    bool constrain_ram;        /* cgroup.conf, each only with task/cgroup */
    bool constrain_cores;
    bool constrain_devices;
    char *cgroup_mount;        /* CgroupMountpoint; default /sys/fs/cgroup */
    char *prolog;              /* NULL: none */
    char *epilog;
};

/* Reads slurm_conf's keys and cgroup.conf in its directory; a missing
 * cgroup.conf means no constraint, as in Slurm. 0, or -1 when slurm_conf
 * cannot be read. */
int nodeconf_load(struct nodeconf *nc, const char *slurm_conf);
void nodeconf_clear(struct nodeconf *nc);

/* One "Key=Value" setting of a Slurm-syntax line, the key matched without
 * regard to case; the value is returned without surrounding blanks or
 * quotes, or NULL. Exposed for the unit tests. Caller frees. */
char *nodeconf_line_value(const char *line, const char *key);

#endif
