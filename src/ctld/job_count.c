/*
 * job_count: MaxJobCount as Slurm counts it. Every job the controller holds
 * counts, finished ones too until MinJobAge purges them, and an array counts
 * as its tasks: a meta job stands for each task still waiting in it. The
 * meta jobs are few, so their ids are listed here rather than found by a
 * walk over every job at each submission.
 */
#include "common/conf.h"
#include "common/taskset.h"
#include "common/xmalloc.h"
#include "ctld/array.h"
#include "ctld/ctld.h"

size_t job_count_of(const struct job *j)
{
    if (!array_is_meta(j))
        return 1;
    size_t n = taskset_count(j->array->pending);
    return n ? n : 1;
}

void job_count_note(struct ctld *c, const struct job *j)
{
    if (!array_is_meta(j))
        return;
    if (c->nmeta_jobs == c->capmeta_jobs) {
        c->capmeta_jobs = c->capmeta_jobs ? c->capmeta_jobs * 2 : 16;
        c->meta_jobs = xrealloc(c->meta_jobs, c->capmeta_jobs * sizeof *c->meta_jobs);
    }
    c->meta_jobs[c->nmeta_jobs++] = j->id;
}

/* A meta job's record counts once in c->njobs; its other waiting tasks are
 * the extra. Ids whose job is purged, or no longer a meta job (its last
 * task took the record over), leave the list. */
size_t job_count_held(struct ctld *c)
{
    size_t extra = 0, keep = 0;
    for (size_t i = 0; i < c->nmeta_jobs; i++) {
        const struct job *j = job_find(c, c->meta_jobs[i]);
        if (!j || !array_is_meta(j))
            continue;
        extra += job_count_of(j) - 1;
        c->meta_jobs[keep++] = c->meta_jobs[i];
    }
    c->nmeta_jobs = keep;
    return c->njobs + extra;
}

bool job_count_allows(struct ctld *c, size_t more)
{
    return job_count_held(c) + more <= (size_t)c->conf->max_job_count;
}
