/*
 * gpubind: --gpu-bind's map_gpu, mask_gpu and single for one task. See
 * gpubind.h.
 */
#include "noded/gpubind.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The element of a "V[*count],..." list that task i takes, cycling over
 * the list with each element repeated count times; NULL when malformed. */
static const char *list_pick(const char *list, int i, size_t *len)
{
    long total = 0;
    for (const char *p = list; *p;) {
        size_t l = strcspn(p, ",");
        const char *star = memchr(p, '*', l);
        long c = star ? strtol(star + 1, NULL, 10) : 1;
        if (l == 0 || c < 1 || c > 1 << 20)
            return NULL;
        total += c;
        p += l + (p[l] == ',');
    }
    if (total == 0)
        return NULL;
    long want = i % total;
    for (const char *p = list;;) {
        size_t l = strcspn(p, ",");
        const char *star = memchr(p, '*', l);
        long c = star ? strtol(star + 1, NULL, 10) : 1;
        if (want < c) {
            *len = star ? (size_t)(star - p) : l;
            return p;
        }
        want -= c;
        p += l + 1;
    }
}

static bool has(const int *gpus, size_t n, long id)
{
    for (size_t i = 0; i < n; i++)
        if (gpus[i] == id)
            return true;
    return false;
}

/* map_gpu (one id) or mask_gpu (a hex mask of ids) for task i. */
static size_t by_list(const char *list, bool mask, const int *gpus, size_t n, int i, int *out)
{
    size_t len, k = 0;
    const char *e = list_pick(list, i, &len);
    if (!e)
        return 0;
    char *v = strndup(e, len);
    char *end;
    unsigned long long x = strtoull(v, &end, mask ? 16 : 10);
    bool ok = *v && !*end;
    free(v);
    if (!ok)
        return 0;
    if (!mask)
        return has(gpus, n, (long)x) ? (out[0] = (int)x, 1) : 0;
    for (size_t g = 0; g < n; g++)
        if (gpus[g] >= 0 && gpus[g] < 64 && (x >> gpus[g]) & 1)
            out[k++] = gpus[g];
    return k;
}

size_t gpubind_task(const char *bind, const int *gpus, size_t n, int localid, int *out,
                    bool *outside)
{
    *outside = false;
    if (!bind || !n || localid < 0)
        return 0;
    if (strncasecmp(bind, "verbose,", 8) == 0)
        bind += 8;
    if (strncasecmp(bind, "single:", 7) == 0) {
        long per = strtol(bind + 7, NULL, 10);
        out[0] = gpus[(size_t)(localid / (per > 0 ? per : 1)) % n];
        return 1;
    }
    bool map = strncasecmp(bind, "map_gpu:", 8) == 0;
    if (!map && strncasecmp(bind, "mask_gpu:", 9) != 0)
        return 0;
    size_t k = by_list(bind + (map ? 8 : 9), !map, gpus, n, localid, out);
    if (k == 0) {
        *outside = true;
        out[0] = gpus[0];
        k = 1;
    }
    return k;
}
