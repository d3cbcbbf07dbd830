/*
 * clock: the controller's one source of time (clock.c). Nothing else in
 * src/ctld reads the system clock, so that a test or a simulation can tell
 * what time every decision saw.
 */
#ifndef HERD_CTLD_CLOCK_H
#define HERD_CTLD_CLOCK_H

#include <stdint.h>

int64_t ctld_now(void);               /* the time of day, seconds since the epoch */
int64_t ctld_mono_us(void);           /* for intervals: never jumps with the wall clock */
int64_t ctld_mono_ms(void);
/* Local time's offset east of UTC at t, in seconds: what the scheduling
 * core is given so that it reads no time zone itself. */
int32_t ctld_utc_offset(int64_t t);

#endif
