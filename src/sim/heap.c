/*
 * Run ends by time. A preemption moves a run's end earlier and a requeue
 * starts a new run, so an entry is not taken out when its run changes: it
 * carries the job's run number, and one that no longer matches is stale.
 */
#include "common/xmalloc.h"
#include "sim/engine.h"

static bool ev_less(const struct sim_ev *a, const struct sim_ev *b)
{
    if (a->t != b->t)
        return a->t < b->t;
    return a->job < b->job;        /* same second: the trace's order, deterministic */
}

static void ev_swap(struct sim *s, size_t a, size_t b)
{
    struct sim_ev t = s->heap[a];
    s->heap[a] = s->heap[b];
    s->heap[b] = t;
}

void sim_heap_push(struct sim *s, int64_t t, size_t job)
{
    size_t i = s->nheap++;

    if (s->nheap > s->heapcap) {
        s->heapcap = s->heapcap ? 2 * s->heapcap : 1024;
        s->heap = xrealloc(s->heap, s->heapcap * sizeof(*s->heap));
    }
    s->heap[i] = (struct sim_ev){ .t = t, .job = job, .seq = s->jobs[job].seq };
    while (i > 0 && ev_less(&s->heap[i], &s->heap[(i - 1) / 2])) {
        ev_swap(s, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

struct sim_ev sim_heap_pop(struct sim *s)
{
    struct sim_ev top = s->heap[0];
    size_t i = 0;

    s->heap[0] = s->heap[--s->nheap];
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < s->nheap && ev_less(&s->heap[l], &s->heap[m]))
            m = l;
        if (r < s->nheap && ev_less(&s->heap[r], &s->heap[m]))
            m = r;
        if (m == i)
            break;
        ev_swap(s, i, m);
        i = m;
    }
    return top;
}

bool sim_heap_live(const struct sim *s, const struct sim_ev *e)
{
    return s->jobs[e->job].seq == e->seq;
}
