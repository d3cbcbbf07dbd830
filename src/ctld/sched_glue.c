/*
 * sched_glue: between the controller's state and the pure scheduling core.
 * A pass takes a snapshot (nodes, partitions, running allocations, pending
 * jobs in priority order), asks src/sched for decisions, and applies them:
 * reasons for the waiting, allocations and launches for the starting.
 * Passes are coalesced: any number of requests in one loop turn make one.
 */
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "ctld/ctld.h"
#include "ctld/store.h"

void sched_request(struct ctld *c)
{
    if (c->sched_ev && !event_pending(c->sched_ev, EV_TIMEOUT, NULL))
        event_active(c->sched_ev, EV_TIMEOUT, 0);
}

static bool node_avail(const struct node *n)
{
    return n->registered && n->responding && !n->down;
}

void sched_input_fill(const struct ctld *c, struct sched_input *in, bool with_jobs)
{
    memset(in, 0, sizeof *in);
    struct sched_node *nodes = xcalloc(c->nnodes ? c->nnodes : 1, sizeof *nodes);
    for (size_t i = 0; i < c->nnodes; i++) {
        const struct conf_node *cn = c->nodes[i].conf;
        nodes[i] = (struct sched_node){ cn->name, cn->cpus, cn->mem_mb, cn->gpus, cn->gpu_type,
                                        node_avail(&c->nodes[i]) };
    }
    in->nodes = nodes;
    in->nnodes = c->nnodes;
    in->parts = c->sparts;
    in->nparts = c->conf->nparts;
    if (!with_jobs)
        return;
    struct sched_running *run = xcalloc(c->njobs ? c->njobs : 1, sizeof *run);
    struct sched_job *pend = xcalloc(c->njobs ? c->njobs : 1, sizeof *pend);
    for (size_t i = 0; i < c->njobs; i++) {
        const struct job *j = c->jobs[i];
        if (j->state == JOB_RUNNING)
            run[in->nrunning++] = (struct sched_running){
                j->id, j->allocs, j->nallocs, j->req.exclusive,
                j->time_limit >= 0 ? j->start_time + j->time_limit * 60 : -1 };
        else if (j->state == JOB_PENDING)
            pend[in->npending++] = j->req;   /* ids ascend: submit order is priority order */
    }
    in->running = run;
    in->pending = pend;
}

void sched_input_free(struct sched_input *in)
{
    free((void *)in->nodes);
    free((void *)in->running);
    free((void *)in->pending);
}

static void start_job(struct ctld *c, struct job *j, const struct sched_decision *d)
{
    free(j->allocs);
    j->allocs = xcalloc(d->nallocs, sizeof *j->allocs);
    memcpy(j->allocs, d->allocs, d->nallocs * sizeof *j->allocs);
    j->nallocs = d->nallocs;
    j->state = JOB_RUNNING;
    j->reason = SCHED_NONE;
    j->start_time = ctld_now();
    j->launch = LAUNCH_NONE;
    job_save(c, j);
    log_info("job %llu starts on %s", (unsigned long long)j->id,
             c->conf->nodes[j->allocs[0].node].name);
    launch_job(c, j);
}

void sched_pass(struct ctld *c)
{
    struct sched_input in;
    struct sched_output out = { 0 };
    sched_input_fill(c, &in, true);
    sched_plan(&in, ctld_now(), &out);
    for (size_t i = 0; i < out.n; i++) {
        const struct sched_decision *d = &out.d[i];
        struct job *j = job_find(c, d->job_id);
        if (!j || j->state != JOB_PENDING)
            continue;
        if (d->reason == SCHED_NONE && d->nallocs > 0)
            start_job(c, j, d);
        else
            j->reason = d->reason;
    }
    sched_output_free(&out);
    sched_input_free(&in);
}
