/*
 * api_nodes: nodes and partitions for users, and the node agents' side:
 * registration (which is also the heartbeat) and job ends.
 */
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "ctld/api.h"
#include "ctld/ctld.h"
#include "ctld/gpu_live.h"
#include "ctld/preempt.h"
#include "ctld/store.h"
#include "ctld/suspend.h"
#include "common/slurm_errno.h"

void api_nodes(struct http_req *r)
{
    struct ctld *c = r->ctx;
    struct node_usage *u = node_usage_get(c);
    json_t *a = json_array();
    for (size_t i = 0; i < c->nnodes; i++)
        json_array_append_new(a, node_to_json(c, i, u));
    free(u);
    http_reply(r, 200, json_pack("{s:o, s:I}", "nodes", a, "now", (json_int_t)ctld_now()));
}

void api_partitions(struct http_req *r)
{
    struct ctld *c = r->ctx;
    json_t *a = json_array();
    for (size_t i = 0; i < c->conf->nparts; i++)
        json_array_append_new(a, part_to_json(c, i));
    http_reply(r, 200, json_pack("{s:o}", "partitions", a));
}

static bool listed(json_t *jobs, uint64_t id)
{
    size_t i;
    json_t *v;
    json_array_foreach(jobs, i, v) if (json_is_integer(v) && (uint64_t)json_integer_value(v) == id)
        return true;
    return false;
}

/* A node lists only the jobs it has started; a list it made just before it
 * answered a launch can arrive after that answer. */
#define REGISTER_LAG_S 5

/* Jobs this node should run, as the node says it does: a job the controller
 * has running there that the agent never heard of was lost in a restart
 * before its launch went out (send it again) or vanished with the node's
 * spool after it was launched (it failed). */
static void reconcile(struct ctld *c, struct node *n, json_t *jobs)
{
    size_t idx = node_index(c, n);
    struct job *j;
    JOB_FOREACH_HOLDING(c, j) {
        if (j->nallocs == 0 || j->allocs[0].node != idx || j->alloc_only)
            continue;
        if (listed(jobs, j->id)) {
            j->launch = LAUNCH_ACKED;
            suspend_reconcile(c, j);
            continue;
        }
        if (j->launch == LAUNCH_NONE)
            launch_job(c, j);
        else if (j->launch == LAUNCH_ACKED && ctld_now() - j->acked_at > REGISTER_LAG_S)
            job_end(c, j, JOB_NODE_FAIL, 0, 0, 0);
    }
}

/* Whether a job the agent lists is one the controller does not hold as
 * running on this node. A job whose end this node reported is not: the
 * list was made before the agent forgot it. */
static bool stale(struct ctld *c, size_t idx, uint64_t id)
{
    const struct job *j = job_find(c, id);
    if (!j)
        return true;
    if (job_holds_alloc(j) && j->nallocs > 0 && j->allocs[0].node == idx)
        return false;
    return j->end_node != (int)idx;
}

/* A job the node is still starting whose launch the controller took for
 * failed (its answer was lost) holds the node's resources as much as a
 * running one: the node takes no new work until the job is running and
 * can be killed, at the next registration. */
static bool starts_stale(struct ctld *c, struct node *n, json_t *starting)
{
    size_t idx = node_index(c, n), i;
    json_t *v;
    json_array_foreach(starting, i, v) {
        uint64_t id = json_is_integer(v) ? (uint64_t)json_integer_value(v) : 0;
        if (id && stale(c, idx, id)) {
            log_warnx("node %s is starting job %llu, which the controller does not hold "
                      "there: no new work on it until the job can be killed", n->conf->name,
                      (unsigned long long)id);
            return true;
        }
    }
    return false;
}

/* As Slurm kills the jobs a returning slurmd still runs: every job this
 * node lists that the controller does not hold as running there (it ended
 * NODE_FAIL, was cancelled or requeued, maybe runs elsewhere) is killed,
 * and the node takes no new work until its agent lists none. A job whose
 * end was assumed notes when: an end after that is the kill's own. */
static void kill_stale(struct ctld *c, struct node *n, json_t *jobs, json_t *starting)
{
    size_t idx = node_index(c, n), i;
    json_t *v;
    bool any = false;
    json_array_foreach(jobs, i, v) {
        uint64_t id = json_is_integer(v) ? (uint64_t)json_integer_value(v) : 0;
        if (!id || !stale(c, idx, id))
            continue;
        any = true;
        struct job *j = job_find(c, id);
        if (j && j->end_assumed && !j->stale_kill_at) {
            j->stale_kill_at = ctld_now();
            job_save(c, j);
        }
        log_warnx("node %s still runs job %llu, which %s: killing it", n->conf->name,
                  (unsigned long long)id, !j ? "is unknown" : job_holds_alloc(j)
                  ? "runs elsewhere" : job_is_finished(j) ? "has ended" : "was requeued");
        launch_kill_stale(c, n, id);
    }
    if (!any)
        any = starts_stale(c, n, starting);
    if (n->cleaning && !any)
        log_info("node %s runs no stale job any more", n->conf->name);
    n->cleaning = any;
}

void api_node_register(struct http_req *r)
{
    struct ctld *c = r->ctx;
    struct node *n = node_find(c, json_string_value(json_object_get(r->body, "name")));
    json_t *jobs = json_object_get(r->body, "jobs");
    json_t *starting = json_object_get(r->body, "starting");
    if (!n || (jobs && !json_is_array(jobs)) || (starting && !json_is_array(starting))) {
        http_reply_error(r, n ? 400 : 404, ESLURM_INVALID_NODE_NAME,
                         n ? "Invalid jobs list" : "Invalid node name specified");
        return;
    }
    if (!n->registered || !n->responding)
        log_info("node %s registered", n->conf->name);
    bool was_silent = !n->registered || !n->responding;
    bool was_down = n->down, was_cleaning = n->cleaning;
    n->registered = true;
    n->responding = true;
    n->last_seen = ctld_now();
    if (jobs) {
        if (was_silent)
            node_fail_firm_unlisted(c, n, jobs);
        kill_stale(c, n, jobs, starting);
        reconcile(c, n, jobs);
    }
    node_return(c, n, was_silent);
    /* an agent running from fetched files sees a reconfigure by this */
    http_reply(r, 200, c->conf_hash ? json_pack("{s:s}", "conf_hash", c->conf_hash) : NULL);
    if (was_silent || was_down != n->down || was_cleaning != n->cleaning)
        ctld_sched_request(c);
}

/* The end an agent reports for a job the controller no longer holds as
 * running: kept when the controller only assumed the end (NODE_FAIL while
 * the node was silent, not yet firm: node_fail_firm.c) and this node ran
 * it, unless the job ended by the kill sent when the node came back (an end
 * at or after that kill), which makes the NODE_FAIL firm. A job requeued
 * since is a new run: no late report touches it. */
static bool late_end_kept(struct ctld *c, struct job *j, int from, int st, int64_t when)
{
    if (!j->end_assumed || from < 0 || j->nallocs == 0 ||
        j->allocs[0].node != (size_t)from)
        return false;
    if (j->stale_kill_at && (when <= 0 || when >= j->stale_kill_at)) {
        node_fail_firm(c, j, "its node killed the copy it still ran");
        return false;
    }
    log_info("job %llu: node %s reports its real end, %s, over the NODE_FAIL assumed",
             (unsigned long long)j->id, c->conf->nodes[from].name,
             job_state_name((enum job_state)st));
    j->end_assumed = false;
    j->stale_kill_at = 0;
    if (c->stats.failed)
        c->stats.failed--;   /* job_end counts it again as what it was */
    return true;
}

/* The usage the agent measured, when it sent one; its GPU figures join
 * the other nodes' (gpu_live.c). */
static void take_usage(struct ctld *c, struct job *j, json_t *b)
{
    json_t *usage = json_object_get(b, "usage");
    if (json_is_object(usage)) {
        json_decref(j->usage);
        j->usage = json_deep_copy(usage);
        gpu_live_take_end(c, j, json_string_value(json_object_get(b, "name")));
    }
}

void api_node_job_end(struct http_req *r)
{
    struct ctld *c = r->ctx;
    json_t *b = r->body;
    json_t *idv = json_object_get(b, "job_id");
    int st = job_state_parse(json_string_value(json_object_get(b, "state")));
    if (!json_is_integer(idv) || st < 0 || st == JOB_PENDING || st == JOB_RUNNING) {
        http_reply_error(r, 400, SLURM_ERROR, "Invalid job end message");
        return;
    }
    struct node *n = node_find(c, json_string_value(json_object_get(b, "name")));
    int from = n ? (int)node_index(c, n) : -1;
    struct job *j = job_find(c, (uint64_t)json_integer_value(idv));
    int code = (int)json_integer_value(json_object_get(b, "exit_code"));
    int sig = (int)json_integer_value(json_object_get(b, "exit_signal"));
    int64_t when = json_integer_value(json_object_get(b, "end_time"));
    if (j && j->state == JOB_NODE_FAIL && late_end_kept(c, j, from, st, when)) {
        take_usage(c, j, b);
        j->end_node = from;
        job_end(c, j, (enum job_state)st, code & 0xff, sig & 0x7f, when);
        store_after_commit(c->store, api_reply_after_commit, r);
        return;
    }
    /* already recorded, or the end of an earlier run on another node (the
     * job was requeued and runs elsewhere now): changes nothing */
    if (!j || !job_holds_alloc(j) ||
        (from >= 0 && (j->nallocs == 0 || j->allocs[0].node != (size_t)from))) {
        if (j && job_holds_alloc(j))
            log_info("job %llu: end of its earlier run on %s ignored", (unsigned long long)j->id,
                     n->conf->name);
        http_reply(r, 200, NULL);
        return;
    }
    if (json_is_true(json_object_get(b, "prolog_failed"))) {
        /* As Slurm: the node drains, the job goes back to the queue, held. */
        node_drain(c, &c->nodes[j->allocs[0].node], "Prolog error");
        j->req.held_admin = true;
        job_requeue(c, j);
        j->end_node = from;
        store_after_commit(c->store, api_reply_after_commit, r);
        return;
    }
    take_usage(c, j, b);
    if (j->preempt)             /* a victim's end, whatever ended it: as its mode says */
        preempt_job_end(c, j, code & 0xff, sig & 0x7f, when);
    else if (j->requeue_pending) {   /* scontrol requeue: it ran, and goes back to the queue */
        j->exit_code = code & 0xff;   /* the run's end, as sacct -D shows it */
        j->exit_signal = sig & 0x7f;
        j->end_time = when;
        job_requeue(c, j);
    } else
        job_end(c, j, (enum job_state)st, code & 0xff, sig & 0x7f, when);
    j->end_node = from;         /* this agent forgets the job once answered */
    store_after_commit(c->store, api_reply_after_commit, r);
}
