/*
 * job_holding: the jobs that hold an allocation (running or suspended), by
 * ascending id. The job table also holds every pending job, up to MaxJobCount
 * of them: a node agent's registration, sinfo, a node going down and each
 * scheduler pass need only the running few, and walked the whole table to
 * find them (100,000 pending made sinfo twice as slow, and a registration
 * storm of 5,000 nodes 5,000 walks of it).
 *
 * job.c keeps it: every change of a job's state goes through job_holding_note.
 */
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "ctld/ctld.h"

/* The first index whose job's id is > after. */
static size_t first_after(const struct ctld *c, uint64_t after)
{
    size_t lo = 0, hi = c->nholding;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->holding[mid]->id <= after)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

struct job *job_holding_after(const struct ctld *c, uint64_t after)
{
    size_t i = first_after(c, after);
    return i < c->nholding ? c->holding[i] : NULL;
}

void job_holding_note(struct ctld *c, struct job *j)
{
    size_t i = first_after(c, j->id - 1);
    bool listed = i < c->nholding && c->holding[i] == j;
    if (job_holds_alloc(j) == listed)
        return;
    if (listed) {
        memmove(&c->holding[i], &c->holding[i + 1], (c->nholding - i - 1) * sizeof *c->holding);
        c->nholding--;
        return;
    }
    if (c->nholding == c->capholding) {
        c->capholding = c->capholding ? c->capholding * 2 : 64;
        c->holding = xrealloc(c->holding, c->capholding * sizeof *c->holding);
    }
    memmove(&c->holding[i + 1], &c->holding[i], (c->nholding - i) * sizeof *c->holding);
    c->holding[i] = j;
    c->nholding++;
}

void job_holding_clear(struct ctld *c)
{
    free(c->holding);
    c->holding = NULL;
    c->nholding = c->capholding = 0;
}
