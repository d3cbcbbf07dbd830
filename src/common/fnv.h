/*
 * fnv: FNV-1a, the one cheap hash of bytes the project uses where no
 * adversary picks the input to collide (equality checks, ETags, table
 * slots). Its values are kept on disk (the store's environment rows) and
 * compared across hosts (configless hashes): they must never change.
 */
#ifndef HERD_FNV_H
#define HERD_FNV_H

#include <stddef.h>
#include <stdint.h>

#define FNV1A_OFFSET UINT64_C(1469598103934665603)
#define FNV1A_PRIME UINT64_C(1099511628211)

static inline uint64_t fnv1a_mem(const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t h = FNV1A_OFFSET;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * FNV1A_PRIME;
    return h;
}

static inline uint64_t fnv1a_str(const char *s)
{
    uint64_t h = FNV1A_OFFSET;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * FNV1A_PRIME;
    return h;
}

#endif
