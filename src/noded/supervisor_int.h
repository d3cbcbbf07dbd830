/*
 * supervisor_int: what the supervisor's files share: the job being
 * supervised and the stages after its start (supwait.c: signals, time
 * limit, --signal warnings; supstop.c: suspend and resume; supend.c: ending every process, usage, epilog
 * and the result).
 */
#ifndef HERD_NODED_SUPERVISOR_INT_H
#define HERD_NODED_SUPERVISOR_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "noded/jobsig.h"
#include "noded/nodeconf.h"

struct job_spec;
struct jobcg;

struct sup {
    struct job_spec *js;
    const char *dir;
    const char *conf_path;
    struct nodeconf nc;
    struct jobcg *cg;      /* NULL: processes tracked as the subreaper's descendants */
    int kill_wait;
    pid_t pid;             /* the job's process, leader of its process group */
    int64_t started;       /* when the job started, for its elapsed time */
    int64_t limit_at;      /* when the time limit is reached; 0: none */
    int64_t kill_at;       /* when SIGKILL follows; 0: not ending the job */
    struct jobsig_warn warn;
    int64_t warn_at;       /* when --signal's signal is due; 0: none (or sent) */
    const char *reason;    /* TIMEOUT or CANCELLED once we end the job */
    bool killed;
    bool prolog_failed;
    int64_t suspended_at;  /* when it was suspended (its time limit waits); 0: not */
    int64_t stop_at;       /* when SIGTSTP's grace ends and it is stopped; 0: none due */
    bool frozen;           /* stopped through its cgroup's freezer, not with SIGSTOP */
    int64_t suspended_s;   /* over its ended suspensions: a new time limit adds it */
};

/* Sends sig to every process of the job, or to the batch shell only. */
void sup_deliver(struct sup *s, int sig, bool batch_only);

/* supstop.c: scontrol suspend stops the job at once (grace 0); a
 * preemption sends SIGTSTP first and stops it grace seconds later. Its
 * cgroup is frozen where it has one, else every process gets SIGSTOP.
 * Resuming thaws it (SIGCONT) and moves the time limit and --signal's
 * warning on by the time it was suspended, as Slurm does. Both are no-ops
 * when there is nothing to do. sup_stop_due stops it once its grace ends. */
void sup_suspend(struct sup *s, int grace);
void sup_resume(struct sup *s);
void sup_stop_due(struct sup *s);

/* Waits for the job's process to exit, handling cancels, signals and the
 * time limit; its wait status. */
int sup_wait(struct sup *s);

/* After the job's process is gone: ends what it left, collects usage and
 * OOM, runs the epilog, writes the result. status is the wait status. */
void sup_finish(struct sup *s, int status);

#endif
