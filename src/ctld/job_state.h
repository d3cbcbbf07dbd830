/*
 * job_state: a job's states, as stored (their numbers are in the store's
 * state column: append, never reorder) and as its accounting queries
 * select them. The names are job.c's (job_state_name).
 */
#ifndef HERD_JOB_STATE_H
#define HERD_JOB_STATE_H

enum job_state {
    JOB_PENDING,
    JOB_RUNNING,
    JOB_COMPLETED,
    JOB_FAILED,
    JOB_CANCELLED,
    JOB_TIMEOUT,
    JOB_NODE_FAIL,
    JOB_OUT_OF_MEMORY,
    JOB_PREEMPTED,         /* ended by preemption (PreemptMode=CANCEL, or REQUEUE's run) */
    JOB_SUSPENDED,         /* stopped (scontrol suspend, PreemptMode=SUSPEND); still holds
                              its allocation */
};

#endif
