/*
 * clock: the controller's notion of time, read here only. ctld_now is the
 * time of day every record and decision uses (submit, start and end times,
 * the health tick, the scheduler's `now`); ctld_mono_us/_ms measure
 * intervals that must not jump with the wall clock (the store's group
 * commit, the gap between passes, a pass's time in sdiag);
 * ctld_utc_offset is what the pure scheduler is told of the time zone, so
 * that the core itself never reads it.
 */
#include <time.h>

#include "ctld/clock.h"

int64_t ctld_now(void)
{
    return (int64_t)time(NULL);
}

int64_t ctld_mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int64_t ctld_mono_ms(void)
{
    return ctld_mono_us() / 1000;
}

int32_t ctld_utc_offset(int64_t t)
{
    time_t tt = (time_t)t;
    struct tm tm;
    if (!localtime_r(&tt, &tm))
        return 0;
    return (int32_t)tm.tm_gmtoff;
}
