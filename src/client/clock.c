#include "client/clock.h"

#include <time.h>

int64_t client_now(void)
{
    return (int64_t)time(NULL);
}
