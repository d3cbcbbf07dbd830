/*
 * intern: an open-addressing table (linear probing, deletion by backward
 * shift, so no tombstones build up) of counted strings. A string's count
 * sits in front of its bytes: a release finds its entry from the pointer
 * alone.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/fnv.h"
#include "common/xmalloc.h"
#include "ctld/intern.h"

struct entry {
    uint64_t hash;
    size_t refs;
    char s[];
};

static struct entry **slots;   /* a power of two of them */
static size_t nslots, used;

static struct entry *entry_of(const char *s)
{
    return (struct entry *)(s - offsetof(struct entry, s));
}

static void grow(void)
{
    size_t old = nslots;
    struct entry **was = slots;
    nslots = old ? old * 2 : 64;
    slots = xcalloc(nslots, sizeof *slots);
    for (size_t i = 0; i < old; i++) {
        if (!was[i])
            continue;
        size_t k = was[i]->hash & (nslots - 1);
        while (slots[k])
            k = (k + 1) & (nslots - 1);
        slots[k] = was[i];
    }
    free(was);
}

const char *intern(const char *s)
{
    if (!s)
        return NULL;
    if (2 * (used + 1) > nslots)
        grow();
    uint64_t h = fnv1a_str(s);
    size_t k = h & (nslots - 1);
    for (; slots[k]; k = (k + 1) & (nslots - 1))
        if (slots[k]->hash == h && strcmp(slots[k]->s, s) == 0) {
            slots[k]->refs++;
            return slots[k]->s;
        }
    size_t n = strlen(s) + 1;
    struct entry *e = xmalloc(sizeof *e + n);
    e->hash = h;
    e->refs = 1;
    memcpy(e->s, s, n);
    slots[k] = e;
    used++;
    return e->s;
}

/* Empties slot k and moves back the entries after it that probed past it. */
static void remove_at(size_t k)
{
    slots[k] = NULL;
    for (size_t j = (k + 1) & (nslots - 1); slots[j]; j = (j + 1) & (nslots - 1)) {
        size_t home = slots[j]->hash & (nslots - 1);
        /* j's entry may fill the hole unless its home lies in (k, j] */
        bool stays = k <= j ? (home > k && home <= j) : (home > k || home <= j);
        if (stays)
            continue;
        slots[k] = slots[j];
        slots[j] = NULL;
        k = j;
    }
}

void intern_release(const char *s)
{
    if (!s)
        return;
    struct entry *e = entry_of(s);
    if (--e->refs > 0)
        return;
    size_t k = e->hash & (nslots - 1);
    while (slots[k] != e)
        k = (k + 1) & (nslots - 1);
    remove_at(k);
    used--;
    free(e);
    if (used == 0) {   /* a controller that stops leaves no table behind */
        free(slots);
        slots = NULL;
        nslots = 0;
    }
}

size_t intern_count(void)
{
    return used;
}
