#include "client/clock.h"

#include <time.h>

int64_t client_now(void)
{
    return (int64_t)time(NULL);
}

int64_t client_mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
