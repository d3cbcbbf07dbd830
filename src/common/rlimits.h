/*
 * rlimits: the resource limits a job inherits from its submitter (Slurm's
 * PropagateResourceLimits=ALL), by the names Slurm uses for them.
 */
#ifndef HERD_RLIMITS_H
#define HERD_RLIMITS_H

#include <stddef.h>

struct rlimit_name {
    const char *name;      /* "NOFILE" */
    int res;               /* RLIMIT_NOFILE */
};

extern const struct rlimit_name rlimit_names[];
extern const size_t rlimit_count;

#endif
