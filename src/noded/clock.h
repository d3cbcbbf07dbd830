/*
 * clock: the node agent's and its supervisors' one reading of the time of
 * day: a job's start and end times, its time-limit deadlines, the agent's
 * stop deadline and the time stamp of a note in a job's output. Time in
 * src/noded is read here only, so that a later test can set it.
 */
#ifndef HERD_NODED_CLOCK_H
#define HERD_NODED_CLOCK_H

#include <stdint.h>

/* Seconds since the epoch. */
int64_t noded_now(void);

#endif
