/*
 * decimal: an integer's decimal digits without printf, for the hot loops
 * that write tables of numbers (the controller's job list, squeue's cells),
 * where snprintf's format parsing cost more than the digits.
 */
#ifndef HERD_COMMON_DECIMAL_H
#define HERD_COMMON_DECIMAL_H

#include <stddef.h>

#define DECIMAL_MAX 24   /* a long long's digits, its sign and room to spare */

/* The digits of v, written at the end of t; returns where they start and
 * their length in *len (no NUL). */
static inline const char *decimal(long long v, char t[DECIMAL_MAX], size_t *len)
{
    size_t k = DECIMAL_MAX;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do
        t[--k] = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        t[--k] = '-';
    *len = DECIMAL_MAX - k;
    return t + k;
}

#endif
