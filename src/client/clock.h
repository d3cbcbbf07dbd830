/*
 * clock: the commands' one reading of the time (herd up and herd down's
 * too): the time of day for what a command decides itself (sbatch
 * --begin=now+1hour, sacct's default window), and a clock that never jumps
 * for deadlines and intervals. What the controller answers with a "now" of
 * its own is shown against that one; client_now is the fallback.
 */
#ifndef HERD_CLIENT_CLOCK_H
#define HERD_CLIENT_CLOCK_H

#include <stdint.h>

/* Seconds since the epoch. */
int64_t client_now(void);

/* Milliseconds on CLOCK_MONOTONIC, for deadlines and intervals (the
 * connection's retries, herd up's waits, srun's double Ctrl-C). */
int64_t client_mono_ms(void);

#endif
