/*
 * node_down: a node falls, drains or comes back, and what that does to the
 * jobs it held (they end NODE_FAIL or go back to the queue). The registry
 * itself is node.c; what an admin set is kept across restarts by
 * node_state.c.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "ctld/ctld.h"
#include "ctld/step.h"

/* A job that ends because one of its nodes fell still runs on its other
 * nodes: its batch script on the batch node, its steps' tasks on the rest.
 * They are killed, and those nodes take no new work (cleaning) until a
 * registration of their agent lists the job no more, so that what the job
 * held there (its GPUs) is not given to another job while its processes
 * still run. */
static void kill_on_other_nodes(struct ctld *c, const struct job *j, size_t down)
{
    if (j->nallocs < 2)
        return;
    step_signal_all(c, j, SIGKILL, down);
    for (size_t k = 0; k < j->nallocs; k++) {
        struct node *o = &c->nodes[j->allocs[k].node];
        if (j->allocs[k].node == down || o->down)
            continue;
        if (!o->cleaning)
            log_info("job %llu: killed on %s too, which takes no new work until it no "
                     "longer runs it", (unsigned long long)j->id, o->conf->name);
        o->cleaning = true;
        if (k == 0 && !j->alloc_only)
            launch_kill_stale(c, o, j->id);
    }
}

/* A node that stopped answering (assumed), or an admin set DOWN: no new
 * work, and its jobs end NODE_FAIL or go back to the queue when they asked
 * for --requeue. Kept across a restart of the controller (node_state.c). */
void node_mark_down(struct ctld *c, struct node *n, const char *reason, bool assumed)
{
    size_t idx = node_index(c, n);
    log_warnx("node %s is DOWN: %s", n->conf->name, reason);
    n->down = true;
    n->responding = false;
    free(n->reason);
    n->reason = xstrdup(reason);
    n->reason_time = ctld_now();
    n->reason_uid = 0;
    struct job *j;
    JOB_FOREACH_HOLDING(c, j) {
        bool here = false;
        for (size_t k = 0; k < j->nallocs && !here; k++)
            here = j->allocs[k].node == idx;
        if (!here)
            continue;
        kill_on_other_nodes(c, j, idx);
        if (j->requeue) {
            job_requeue(c, j);
            continue;
        }
        j->end_assumed = assumed && j->allocs[0].node == idx;
        job_end(c, j, JOB_NODE_FAIL, 0, 0, 0);
    }
    nodes_save_state(c);
}

/* Slurm's ReturnToService: 0, a DOWN node stays DOWN until an admin
 * resumes it; 1, one DOWN for not responding returns when its agent
 * registers; 2, one DOWN for any reason does. Herd's agents register at
 * every heartbeat, so only a registration after silence (or the first
 * since start-up) stands for slurmd's registration: an admin's DOWN on a
 * node that kept answering stays. */
void node_return(struct ctld *c, struct node *n, bool was_silent)
{
    int rts = c->conf->return_to_service;
    bool silent = n->reason && strcmp(n->reason, "Not responding") == 0;
    if (!n->down || !was_silent || rts == 0 || (rts == 1 && !silent))
        return;
    log_info("node %s returns to service (ReturnToService=%d)", n->conf->name, rts);
    n->down = false;
    if (!n->drain)
        xfree(n->reason);
    nodes_save_state(c);
}

/* After a restart, a node that runs jobs is expected back: it counts as
 * registered but silent, so that it goes DOWN (and its jobs fail) if it does
 * not report within SlurmdTimeout, and takes no new work until it does. */
void nodes_expect_running(struct ctld *c)
{
    const struct job *j;
    JOB_FOREACH_HOLDING(c, j) {
        for (size_t k = 0; k < j->nallocs; k++) {
            struct node *n = &c->nodes[j->allocs[k].node];
            n->registered = true;
            n->responding = false;
            n->last_seen = ctld_now();
        }
    }
}

/* A node whose prolog failed takes no more work until an admin resumes it. */
void node_drain(struct ctld *c, struct node *n, const char *reason)
{
    log_warnx("node %s drained: %s", n->conf->name, reason);
    n->drain = true;
    free(n->reason);
    n->reason = xstrdup(reason);
    n->reason_time = ctld_now();
    n->reason_uid = 0;
    nodes_save_state(c);
}
