/*
 * job_pool: slabs of jobs. Each slab links its free slots through their
 * first word; the slabs with a free slot form a list, so a job is taken in
 * constant time, and a job given back finds its slab by a binary search of
 * the slabs sorted by address. An empty slab goes back unless it is the
 * only one with room (a job made and destroyed in turn would otherwise
 * allocate a slab each time). Under AddressSanitizer a free slot is
 * poisoned, so that a use after job_destroy is still caught.
 */
#include "ctld/job_pool.h"

#include <stdint.h>
#include <string.h>

#include "common/xmalloc.h"
#include "ctld/ctld.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define POISON(p, n)   ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POISON(p, n)   ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define SLAB_JOBS 256

struct slab {
    struct slab *prev, *next;  /* in the list of slabs with a free slot */
    void *free;                /* its free slots given back, through their first word */
    size_t used;               /* slots handed out */
    size_t fresh;              /* slots from here on were never handed out */
    struct job slot[];
};

static struct slab **slabs;    /* by address */
static size_t nslabs, capslabs;
static struct slab *avail;     /* slabs with a free slot */

static void avail_add(struct slab *s)
{
    s->prev = NULL;
    s->next = avail;
    if (avail)
        avail->prev = s;
    avail = s;
}

static void avail_del(struct slab *s)
{
    if (s->prev)
        s->prev->next = s->next;
    else
        avail = s->next;
    if (s->next)
        s->next->prev = s->prev;
    s->prev = s->next = NULL;
}

/* The index of the slab holding p, or of where a slab at p would go. */
static size_t slab_index(const void *p)
{
    size_t lo = 0, hi = nslabs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((uintptr_t)slabs[mid] <= (uintptr_t)p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;   /* the slab holding p, if any, is at lo - 1 */
}

static struct slab *slab_new(void)
{
    struct slab *s = xmalloc(sizeof *s + SLAB_JOBS * sizeof(struct job));
    s->free = NULL;
    s->used = s->fresh = 0;
    POISON(s->slot, SLAB_JOBS * sizeof(struct job));
    if (nslabs == capslabs) {
        capslabs = capslabs ? capslabs * 2 : 16;
        slabs = xrealloc(slabs, capslabs * sizeof *slabs);
    }
    size_t at = slab_index(s);
    memmove(slabs + at + 1, slabs + at, (nslabs - at) * sizeof *slabs);
    slabs[at] = s;
    nslabs++;
    avail_add(s);
    return s;
}

struct job *job_pool_get(void)
{
    struct slab *s = avail ? avail : slab_new();
    struct job *j;
    if (s->free) {   /* its first word, the link, is never poisoned */
        j = s->free;
        memcpy(&s->free, j, sizeof s->free);
    } else
        j = &s->slot[s->fresh++];
    UNPOISON(j, sizeof *j);
    if (++s->used == SLAB_JOBS)
        avail_del(s);
    memset(j, 0, sizeof *j);
    return j;
}

static void slab_free(struct slab *s, size_t at)
{
    avail_del(s);
    memmove(slabs + at, slabs + at + 1, (nslabs - at - 1) * sizeof *slabs);
    if (--nslabs == 0) {
        free(slabs);
        slabs = NULL;
        capslabs = 0;
    }
    UNPOISON(s->slot, SLAB_JOBS * sizeof(struct job));
    free(s);
}

void job_pool_put(struct job *j)
{
    if (!j)
        return;
    size_t at = slab_index(j) - 1;
    struct slab *s = slabs[at];
    if (s->used-- == SLAB_JOBS)
        avail_add(s);
    if (s->used == 0 && (avail != s || s->next)) {   /* one spare slab stays */
        slab_free(s, at);
        return;
    }
    memcpy(j, &s->free, sizeof s->free);
    s->free = j;
    POISON((char *)j + sizeof s->free, sizeof *j - sizeof s->free);
}

size_t job_pool_slabs(void)
{
    return nslabs;
}
