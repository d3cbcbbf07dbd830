/*
 * cgroup: one job's control groups, the node's proctrack and task plugin in
 * one. On cgroup v2 (MOUNT/cgroup.controllers exists) the job gets
 * MOUNT/herd/NODE/job_ID; on v1 it gets MOUNT/CTRL/herd/NODE/job_ID in each
 * of freezer (tracking), cpuacct and memory (usage), and, when asked, cpuset
 * and devices. Limits: memory (the kernel's OOM killer ends a job over it),
 * a CPU list, and device files denied (v1 only: v2 needs an eBPF program).
 * Every process a job starts stays in its groups, whatever it does with
 * fork and setsid, which is how it is found and ended.
 */
#ifndef HERD_NODED_CGROUP_H
#define HERD_NODED_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct jobcg_want {
    const char *node;
    int64_t job_id;
    uint64_t mem_bytes;        /* 0: no limit */
    const char *cpus;          /* cpuset list "0-1,3"; NULL: not constrained */
    bool devices;              /* constrain devices to deny_devs' complement */
    char **deny_devs;          /* "c 195:1" each; NULL-terminated, may be NULL */
    const char *sub;           /* a group inside the job's ("step_3"); NULL: the job's own */
};

struct jobcg_usage {
    int64_t cpu_ms;            /* -1: unknown */
    int64_t max_rss_kb;        /* -1: unknown */
};

struct jobcg;

/* Whether this machine has a usable cgroup hierarchy under mount: 2, 1 or 0. */
int jobcg_version(const char *mount);

/* Creates the job's groups with their limits; NULL with err set. */
struct jobcg *jobcg_create(const char *mount, const struct jobcg_want *w, char *err,
                           size_t errlen);
/* Moves pid (0: the caller) into every group of the job. 0 or -1. */
int jobcg_attach(const struct jobcg *cg, pid_t pid);
/* Sends sig to every process of the job; the count signalled. */
int jobcg_signal(const struct jobcg *cg, int sig);
/* Freezes (on) or thaws every process of the job: v1's freezer.state, v2's
 * cgroup.freeze. 0, or -1 when the kernel refused (no freezer here). */
int jobcg_freeze(const struct jobcg *cg, bool on);
/* Kills every process of the job (frozen first, so none can fork away) and
 * waits, bounded, until none is left. 0, or -1 when some remain. */
int jobcg_kill_all(const struct jobcg *cg);
/* The kernel's OOM killer killed a process of the job. */
bool jobcg_oom(const struct jobcg *cg);
void jobcg_usage(const struct jobcg *cg, struct jobcg_usage *u);
/* The groups a job's supervisor made, for a step's tasks to join (see
 * jobctl_cgroup_scope for node); NULL when the job has none here. */
struct jobcg *jobcg_open(const char *mount, const char *node, int64_t job_id);
/* Frees what jobcg_open gave, leaving the groups. */
void jobcg_close(struct jobcg *cg);
/* Removes the groups (which must be empty; with a sub, the job's group
 * around it too, when empty) and frees; NULL is a no-op. */
void jobcg_destroy(struct jobcg *cg);

#endif
