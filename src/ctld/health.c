/*
 * health: the controller's clock-driven work, once a second: nodes silent
 * for SlurmdTimeout go DOWN (their jobs end NODE_FAIL or are requeued; such
 * an end stands after SlurmdTimeout more), and
 * finished jobs older than MinJobAge leave memory (the store keeps them).
 */
#include <event2/event.h>
#include <malloc.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>

#include "common/conf.h"
#include "common/log.h"
#include "ctld/ctld.h"
#include "ctld/preempt.h"
#include "ctld/resv.h"
#include "ctld/metrics.h"
#include "ctld/step.h"
#include "ctld/suspend.h"

static void check_nodes(struct ctld *c, int64_t now)
{
    for (size_t i = 0; i < c->nnodes; i++) {
        struct node *n = &c->nodes[i];
        if (n->registered && !n->down && now - n->last_seen > c->conf->slurmd_timeout)
            node_mark_down(c, n, "Not responding", true);
    }
}

/* An allocation has no supervisor to keep its time limit: the controller
 * does, and kills what its steps still run. A NODE_FAIL assumed long
 * enough ago stands. */
static void check_jobs(struct ctld *c, int64_t now)
{
    struct job *j;
    JOB_FOREACH(c, j) {
        node_fail_firm_due(c, j, now);
        if (j->alloc_only && j->state == JOB_RUNNING && j->time_limit >= 0 &&
            now >= suspend_end_time(j, now)) {
            log_info("job %llu: allocation reached its time limit", (unsigned long long)j->id);
            step_signal_all(c, j, SIGKILL, SIZE_MAX);
            job_end(c, j, JOB_TIMEOUT, 0, 0, now);
        }
    }
}

static void tick(evutil_socket_t fd, short what, void *arg)
{
    struct ctld *c = arg;
    int64_t now = ctld_now();
    (void)fd;
    (void)what;
    check_nodes(c, now);
    check_jobs(c, now);
    job_purge(c, now - c->conf->min_job_age);
    preempt_tick(c, now);
    resv_tick(c, now);
    ctld_sched_tick(c, now);
    metrics_tick(c);
    /* What a second's requests and passes freed goes back to the system:
     * glibc keeps freed pages resident, and transient copies of a big queue
     * (a pass's, an answer's) would otherwise count as the daemon's own. */
    malloc_trim(0);
}

void health_start(struct ctld *c)
{
    struct timeval one = { 1, 0 };
    c->tick_ev = event_new(c->base, -1, EV_PERSIST, tick, c);
    event_add(c->tick_ev, &one);
}
