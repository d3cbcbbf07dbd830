/*
 * taskset: job array task ids as a bitmap, parsed from and folded back to
 * Slurm's --array syntax. See taskset.h.
 */
#include "common/taskset.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"

struct taskset {
    uint64_t *bits;
    uint32_t nbits;      /* capacity: one past the largest id ever in it */
    uint32_t count;
    uint32_t lo;         /* no id below this one is set: the scans start here */
};

struct range {
    uint32_t a, b, step;
};

static bool read_num(const char **pp, uint32_t *out)
{
    const char *p = *pp;
    uint64_t v = 0;
    if (!isdigit((unsigned char)*p))
        return false;
    while (isdigit((unsigned char)*p)) {
        v = v * 10 + (uint64_t)(*p++ - '0');
        if (v > TASKSET_ID_MAX)
            return false;
    }
    *pp = p;
    *out = (uint32_t)v;
    return true;
}

/* One element, "N", "N-M" or "N-M:S", up to a ',' '%' or the end. */
static bool read_range(const char **pp, struct range *r)
{
    if (!read_num(pp, &r->a))
        return false;
    r->b = r->a;
    r->step = 1;
    if (**pp == '-') {
        (*pp)++;
        if (!read_num(pp, &r->b) || r->b < r->a)
            return false;
        if (**pp == ':') {
            (*pp)++;
            if (!read_num(pp, &r->step) || r->step == 0)
                return false;
        }
    }
    return **pp == ',' || **pp == '%' || **pp == '\0';
}

/* Walks the list part of spec: calls set for each range; false if bad. */
static bool walk(const char *spec, struct taskset *t, uint32_t *max, const char **rest)
{
    const char *p = spec;
    *max = 0;
    for (;;) {
        struct range r;
        if (!read_range(&p, &r))
            return false;
        if (r.b > *max)
            *max = r.b;
        for (uint64_t id = r.a; t && id <= r.b; id += r.step)
            if (!taskset_has(t, (uint32_t)id)) {
                t->bits[id / 64] |= 1ULL << (id % 64);
                t->count++;
            }
        if (*p != ',')
            break;
        p++;
    }
    *rest = p;
    return true;
}

static bool read_throttle(const char *p, int *throttle)
{
    uint32_t n = 0;
    *throttle = 0;
    if (*p == '\0')
        return true;
    if (*p++ != '%' || !read_num(&p, &n) || *p != '\0')
        return false;
    *throttle = (int)n;
    return true;
}

struct taskset *taskset_parse(const char *spec, int *throttle, char *err, size_t errlen)
{
    uint32_t max;
    const char *rest;
    if (!spec || !walk(spec, NULL, &max, &rest) || !read_throttle(rest, throttle)) {
        snprintf(err, errlen, "Invalid job array specification");
        return NULL;
    }
    struct taskset *t = xcalloc(1, sizeof *t);
    t->nbits = max + 1;
    t->bits = xcalloc((t->nbits + 63) / 64, sizeof *t->bits);
    walk(spec, t, &max, &rest);
    return t;
}

struct taskset *taskset_copy(const struct taskset *t)
{
    struct taskset *c = xmalloc(sizeof *c);
    *c = *t;
    size_t words = (t->nbits + 63) / 64;
    c->bits = xcalloc(words ? words : 1, sizeof *c->bits);
    memcpy(c->bits, t->bits, words * sizeof *c->bits);
    return c;
}

void taskset_free(struct taskset *t)
{
    if (!t)
        return;
    free(t->bits);
    free(t);
}

bool taskset_has(const struct taskset *t, uint32_t id)
{
    return id < t->nbits && (t->bits[id / 64] >> (id % 64) & 1);
}

void taskset_del(struct taskset *t, uint32_t id)
{
    if (!taskset_has(t, id))
        return;
    t->bits[id / 64] &= ~(1ULL << (id % 64));
    t->count--;
}

uint32_t taskset_count(const struct taskset *t)
{
    return t->count;
}

/* The lowest id >= from, or -1. */
static int64_t next_set(const struct taskset *t, uint32_t from)
{
    for (uint64_t w = from / 64; w < (t->nbits + 63) / 64; w++) {
        uint64_t bits = t->bits[w];
        if (w == from / 64)
            bits &= ~0ULL << (from % 64);
        if (bits)
            return (int64_t)(w * 64 + (uint64_t)__builtin_ctzll(bits));
    }
    return -1;
}

int64_t taskset_first(const struct taskset *t)
{
    int64_t id = t->count ? next_set(t, t->lo) : -1;
    if (id >= 0)
        ((struct taskset *)t)->lo = (uint32_t)id;   /* a cache: the set itself is unchanged */
    return id;
}

int64_t taskset_next(const struct taskset *t, uint32_t from)
{
    return t->count && from < t->nbits ? next_set(t, from < t->lo ? t->lo : from) : -1;
}

int64_t taskset_last(const struct taskset *t)
{
    for (uint32_t w = (t->nbits + 63) / 64; t->count && w-- > 0;)
        if (t->bits[w])
            return (int64_t)w * 64 + 63 - __builtin_clzll(t->bits[w]);
    return -1;
}

static uint64_t word(const struct taskset *t, size_t w)
{
    return w < (t->nbits + 63) / 64 ? t->bits[w] : 0;
}

uint32_t taskset_common(const struct taskset *a, const struct taskset *b)
{
    uint32_t n = 0;
    for (size_t w = 0; w < (a->nbits + 63) / 64; w++)
        n += (uint32_t)__builtin_popcountll(a->bits[w] & word(b, w));
    return n;
}

bool taskset_covers(const struct taskset *t, const struct taskset *part)
{
    for (size_t w = 0; w < (part->nbits + 63) / 64; w++)
        if (part->bits[w] & ~word(t, w))
            return false;
    return true;
}

uint32_t taskset_step(const struct taskset *t)
{
    int64_t a = taskset_first(t), b = a >= 0 ? next_set(t, (uint32_t)a + 1) : -1;
    if (b < 0)
        return 1;
    uint32_t step = (uint32_t)(b - a);
    int64_t last = taskset_last(t);
    if ((uint64_t)(last - a) / step + 1 != t->count)
        return 1;
    for (int64_t id = a; id <= last; id += step)
        if (!taskset_has(t, (uint32_t)id))
            return 1;
    return step;
}

static void out_add(char **s, size_t *len, size_t *cap, const char *piece)
{
    size_t n = strlen(piece);
    if (*len + n + 1 > *cap) {
        *cap = (*len + n + 1) * 2;
        *s = xrealloc(*s, *cap);
    }
    memcpy(*s + *len, piece, n + 1);
    *len += n;
}

/* The run that starts at a: its last id and step. Consecutive ids make a
 * step-1 run; a stepped run needs three ids and stops before an id that
 * starts a consecutive pair, so "1,3,5-7" stays as written. */
static int64_t run_end(const struct taskset *t, int64_t a, uint32_t *step)
{
    int64_t b = next_set(t, (uint32_t)a + 1);
    *step = 1;
    if (b < 0)
        return a;
    if (b == a + 1) {
        while (taskset_has(t, (uint32_t)b + 1))
            b++;
        return b;
    }
    uint32_t s = (uint32_t)(b - a);
    int64_t z = a;
    while (z + s < t->nbits && next_set(t, (uint32_t)z + 1) == z + s &&
           !taskset_has(t, (uint32_t)(z + s) + 1))
        z += s;
    if ((z - a) / s < 2)
        return a;
    *step = s;
    return z;
}

char *taskset_fmt(const struct taskset *t)
{
    size_t len = 0, cap = 32;
    char *s = xmalloc(cap), piece[48];
    s[0] = '\0';
    for (int64_t a = taskset_first(t); a >= 0;) {
        uint32_t step;
        int64_t z = run_end(t, a, &step);
        if (z == a)
            snprintf(piece, sizeof piece, "%s%lld", len ? "," : "", (long long)a);
        else if (step == 1)
            snprintf(piece, sizeof piece, "%s%lld-%lld", len ? "," : "", (long long)a,
                     (long long)z);
        else
            snprintf(piece, sizeof piece, "%s%lld-%lld:%u", len ? "," : "", (long long)a,
                     (long long)z, step);
        out_add(&s, &len, &cap, piece);
        a = next_set(t, (uint32_t)z + 1);
    }
    return s;
}
