/*
 * suspend: PreemptMode=SUSPEND (and scontrol suspend/resume). This is a
 * stub until the suspend work lands: it suspends nothing.
 */
#ifndef HERD_CTLD_SUSPEND_H
#define HERD_CTLD_SUSPEND_H

struct ctld;
struct job;

/* Suspends victim so that preemptor may start: 0 when done; -1 when it
 * cannot be suspended (the caller then requeues or cancels it). */
int preempt_suspend(struct ctld *c, struct job *victim, struct job *preemptor);

#endif
