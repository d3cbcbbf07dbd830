/*
 * Carrying out a pass's preemptions as the controller does: each victim the
 * core names stops at once, or with a GraceTime is marked preempting (its
 * resources count as free to the job that chose it, and its planned end is
 * the grace's end) and stops when the grace is over. REQUEUE puts it back
 * in the queue to run again from scratch; CANCEL ends it. Either way the
 * run's processor-seconds are lost. A victim whose run ends within its
 * grace has done its work and counts as completed.
 */
#include "sim/engine.h"

static size_t run_find(const struct sim *s, uint64_t id)
{
    for (size_t i = 0; i < s->nrun; i++)
        if (s->run[i].job_id == id)
            return i;
    return SIZE_MAX;
}

void sim_preempt_stop(struct sim *s, size_t job, int64_t now)
{
    struct sim_job *j = &s->jobs[job];

    j->lost += (now - j->start) * j->procs;
    j->preemptions++;
    j->instant += now == j->start;
    j->seq++;                      /* its pending end events are stale now */
    j->stopping = false;
    if (sim_maint_overlaps(s, j->start, now))
        s->r->maint_overlaps++;
    sim_run_remove(s, job);
    if (s->o->scav.preempt == SIM_PREEMPT_CANCEL) {
        j->cancelled = true;
        j->end = now;
        return;
    }
    j->start = j->end = -1;
    sim_arrive(s, job);
}

size_t sim_preempt(struct sim *s, const struct sched_decision *d, int64_t now)
{
    size_t removed = 0;

    if (s->o->scav.preempt == SIM_PREEMPT_OFF)
        return 0;
    for (size_t i = 0; i < d->npreempt; i++) {
        size_t pos = run_find(s, d->preempt[i]);
        if (pos == SIZE_MAX || s->run[pos].preempting)
            continue;
        size_t job = s->run_job[pos];
        int64_t stop = now + s->o->scav.grace_s;
        if (s->o->scav.grace_s <= 0) {
            sim_preempt_stop(s, job, now);
            removed++;
            continue;
        }
        s->run[pos].preempting = true;
        if (stop < s->run[pos].end_time)
            s->run[pos].end_time = stop;
        if (stop < s->jobs[job].end) {
            s->jobs[job].stopping = true;
            sim_heap_push(s, stop, job);
        }
    }
    return removed;
}
