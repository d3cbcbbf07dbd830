/*
 * clock: the commands' one reading of the time of day, for what a command
 * decides itself (sbatch --begin=now+1hour, sacct's default window, a wait's
 * deadline). What the controller answers with a "now" of its own is shown
 * against that one instead; this is the fallback when it does not.
 */
#ifndef HERD_CLIENT_CLOCK_H
#define HERD_CLIENT_CLOCK_H

#include <stdint.h>

/* Seconds since the epoch. */
int64_t client_now(void);

#endif
