/*
 * proctrack: a job's processes without cgroups. The supervisor becomes a
 * child subreaper, so that whatever a job double-forks or detaches with
 * setsid is re-parented to it rather than to init; the job's processes are
 * then exactly the supervisor's descendants, found by a sweep of /proc.
 */
#ifndef HERD_NODED_PROCTRACK_H
#define HERD_NODED_PROCTRACK_H

#include <sys/types.h>

/* Makes the caller a child subreaper. 0 or -1. */
int proctrack_init(void);
/* Sends sig to every descendant of the caller but skip; the count. */
int proctrack_signal(int sig, pid_t skip);
/* SIGKILLs every descendant and reaps them until none is left (bounded).
 * 0, or -1 when some remain. */
int proctrack_kill_all(void);
/* Reaps every child, waiting (bounded) for those not yet exited: for a
 * job whose cgroup is already empty, so that RUSAGE_CHILDREN holds them all
 * without a sweep of /proc. 0, or -1 when some remain. */
int proctrack_reap_all(void);

#endif
