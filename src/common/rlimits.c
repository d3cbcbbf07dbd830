#include "common/rlimits.h"

#include <sys/resource.h>

const struct rlimit_name rlimit_names[] = {
    { "CPU", RLIMIT_CPU },   { "FSIZE", RLIMIT_FSIZE },   { "DATA", RLIMIT_DATA },
    { "STACK", RLIMIT_STACK }, { "CORE", RLIMIT_CORE },   { "RSS", RLIMIT_RSS },
    { "NPROC", RLIMIT_NPROC }, { "NOFILE", RLIMIT_NOFILE }, { "MEMLOCK", RLIMIT_MEMLOCK },
    { "AS", RLIMIT_AS },
};

const size_t rlimit_count = sizeof rlimit_names / sizeof rlimit_names[0];
