#include "noded/clock.h"

#include <time.h>

int64_t noded_now(void)
{
    return (int64_t)time(NULL);
}
