/*
 * supervisor: one process per job (Slurm's slurmstepd), started by herdd
 * re-executing itself as `herdd --supervise DIR CONF KILLWAIT LOG VERBOSE FD`
 * in a new session, so that it outlives herdd. It forks the job, reports
 * "OK <its pid> <job pid>" (or "ER <message>") on FD, enforces the time
 * limit, turns SIGTERM into a cancel (sigqueue's value, when one is given,
 * is the first signal sent: herdd's shutdown asks for SIGKILL), and at the
 * end writes DIR/result.
 */
#ifndef HERD_NODED_SUPERVISOR_H
#define HERD_NODED_SUPERVISOR_H

#define SUPERVISOR_FLAG "--supervise"
/* Or-ed into the value queued with SIGUSR1: signal the batch shell only. */
#define SUP_SIG_BATCH 0x1000
/* Or-ed into a cancel's signal (SIGTERM's value): the cancel is a requeue,
 * which the note in the job's output says. */
#define SUP_SIG_REQUEUE 0x2000
/* Or-ed into a cancel's signal: the cancel is a preemption's. */
#define SUP_SIG_PREEMPT 0x4000
/* The value queued with SIGUSR1 suspends the job (its low 12 bits: seconds
 * between SIGTSTP and the stop, 0: stopped at once) or resumes it. */
#define SUP_SIG_SUSPEND 0x10000
#define SUP_SIG_RESUME 0x20000
#define SUP_SIG_GRACE_MASK 0x0fff

/* argv as above; the process's exit code. */
int supervisor_main(int argc, char **argv);

#endif
