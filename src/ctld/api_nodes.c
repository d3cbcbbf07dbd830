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
#include "ctld/store.h"

#define ESLURM_INVALID_NODE_NAME 2008

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
    for (size_t i = 0; i < c->njobs; i++) {
        struct job *j = c->jobs[i];
        if (j->state != JOB_RUNNING || j->nallocs == 0 || j->allocs[0].node != idx ||
            j->alloc_only)
            continue;
        if (listed(jobs, j->id)) {
            j->launch = LAUNCH_ACKED;
            continue;
        }
        if (j->launch == LAUNCH_NONE)
            launch_job(c, j);
        else if (j->launch == LAUNCH_ACKED && ctld_now() - j->acked_at > REGISTER_LAG_S)
            job_end(c, j, JOB_NODE_FAIL, 0, 0, 0);
    }
}

void api_node_register(struct http_req *r)
{
    struct ctld *c = r->ctx;
    struct node *n = node_find(c, json_string_value(json_object_get(r->body, "name")));
    json_t *jobs = json_object_get(r->body, "jobs");
    if (!n || (jobs && !json_is_array(jobs))) {
        http_reply_error(r, n ? 400 : 404, ESLURM_INVALID_NODE_NAME,
                         n ? "Invalid jobs list" : "Invalid node name specified");
        return;
    }
    if (!n->registered || !n->responding)
        log_info("node %s registered", n->conf->name);
    bool changed = !n->registered || n->down || !n->responding;
    n->registered = true;
    n->responding = true;
    n->last_seen = ctld_now();
    if (n->down && n->reason && strcmp(n->reason, "Not responding") == 0) {
        n->down = false;
        xfree(n->reason);
    }
    if (jobs)
        reconcile(c, n, jobs);
    http_reply(r, 200, NULL);
    if (changed)
        sched_request(c);
}

static void end_answer(void *arg)
{
    http_reply(arg, 200, NULL);
}

void api_node_job_end(struct http_req *r)
{
    struct ctld *c = r->ctx;
    json_t *b = r->body;
    json_t *idv = json_object_get(b, "job_id");
    int st = job_state_parse(json_string_value(json_object_get(b, "state")));
    if (!json_is_integer(idv) || st < 0 || st == JOB_PENDING || st == JOB_RUNNING) {
        http_reply_error(r, 400, 0, "Invalid job end message");
        return;
    }
    struct job *j = job_find(c, (uint64_t)json_integer_value(idv));
    if (!j || j->state != JOB_RUNNING) {    /* already recorded: changes nothing */
        http_reply(r, 200, NULL);
        return;
    }
    if (json_is_true(json_object_get(b, "prolog_failed"))) {
        /* As Slurm: the node drains, the job goes back to the queue, held. */
        node_drain(c, &c->nodes[j->allocs[0].node], "Prolog error");
        j->req.held_admin = true;
        job_requeue(c, j);
        store_after_commit(c->store, end_answer, r);
        return;
    }
    int code = (int)json_integer_value(json_object_get(b, "exit_code"));
    int sig = (int)json_integer_value(json_object_get(b, "exit_signal"));
    int64_t when = json_integer_value(json_object_get(b, "end_time"));
    json_t *usage = json_object_get(b, "usage");
    if (json_is_object(usage)) {
        json_decref(j->usage);
        j->usage = json_incref(usage);
    }
    if (j->requeue_pending)     /* scontrol requeue: it ran, and goes back to the queue */
        job_requeue(c, j);
    else
        job_end(c, j, (enum job_state)st, code & 0xff, sig & 0x7f, when);
    store_after_commit(c->store, end_answer, r);
}
