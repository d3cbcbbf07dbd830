/*
 * api_admin: what scontrol changes. Holds and releases, requeues and updates
 * of jobs (their owner may do some of it, root all of it), node and
 * partition states, and re-reading slurm.conf (root only). A change that is
 * stored is answered after its commit.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf.h"
#include "common/hostlist.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "ctld/api.h"
#include "ctld/ctld.h"
#include "ctld/reconfig.h"
#include "ctld/resv.h"
#include "ctld/store.h"
#include "common/slurm_errno.h"

#define MSG_NOT_PENDING "Job is no longer pending execution"

static bool must_be_pending(struct http_req *r, const struct job *j)
{
    if (j->state == JOB_PENDING)
        return true;
    if (job_is_finished(j))
        http_reply_error(r, 400, ESLURM_ALREADY_DONE, "Job/step already completing or completed");
    else
        http_reply_error(r, 400, ESLURM_JOB_NOT_PENDING, MSG_NOT_PENDING);
    return false;
}

static void spec_changed(struct ctld *c, struct http_req *r, struct job *j)
{
    job_updated(c, j);
    store_after_commit(c->store, api_reply_after_commit, r);
}

/* POST /v1/jobs/{id}/hold {"user": bool}: user hold (JobHeldUser), else an
 * admin hold (JobHeldAdmin, root only). */
void api_job_hold(struct http_req *r)
{
    struct ctld *c = r->ctx;
    struct job *j = api_path_own_job(r);
    if (!j || !must_be_pending(r, j))
        return;
    bool user = json_is_true(json_object_get(r->body, "user"));
    if (!user && r->who.uid != 0) {
        http_reply_error(r, 403, ESLURM_ACCESS_DENIED, API_MSG_DENIED);
        return;
    }
    if (user)
        j->req.held_user = true;
    else
        j->req.held_admin = true;
    log_info("job %llu held (%s) by uid %u", (unsigned long long)j->id, user ? "user" : "admin",
             (unsigned)r->who.uid);
    spec_changed(c, r, j);
}

/* POST /v1/jobs/{id}/release: clears the holds; an admin hold only by root. */
void api_job_release(struct http_req *r)
{
    struct ctld *c = r->ctx;
    struct job *j = api_path_own_job(r);
    if (!j || !must_be_pending(r, j))
        return;
    if (j->req.held_admin && r->who.uid != 0) {
        http_reply_error(r, 403, ESLURM_ACCESS_DENIED, API_MSG_DENIED);
        return;
    }
    j->req.held_user = j->req.held_admin = false;
    j->requeue_held = false;
    j->reason = SCHED_NONE;
    spec_changed(c, r, j);
}

/* POST /v1/jobs/{id}/requeue {"hold": bool}: a running job is stopped
 * (SIGTERM, SIGKILL after KillWait) and queued again when its end arrives;
 * a finished one is queued again at once. */
void api_job_requeue(struct http_req *r)
{
    struct ctld *c = r->ctx;
    struct job *j = api_path_own_job(r);
    if (!j)
        return;
    if (j->state == JOB_PENDING) {
        http_reply_error(r, 400, ESLURM_JOB_PENDING, "Job is pending execution");
        return;
    }
    if (json_is_true(json_object_get(r->body, "hold"))) {
        /* a user hold whoever asks, as Slurm's (sacct: JobHeldUser) */
        j->req.held_user = true;
        j->requeue_held = true;
    }
    if (j->state == JOB_SUSPENDED)   /* as Slurm: it comes back held (JobHeldAdmin) */
        j->req.held_admin = true;
    log_info("job %llu requeue requested by uid %u", (unsigned long long)j->id,
             (unsigned)r->who.uid);
    if (job_is_finished(j)) {
        job_requeue(c, j);
        store_after_commit(c->store, api_reply_after_commit, r);
        return;
    }
    if (j->cancel_sent) {
        http_reply_error(r, 400, ESLURM_ALREADY_DONE, "Job/step already completing or completed");
        return;
    }
    if (!j->requeue_pending) {
        j->requeue_pending = true;
        launch_signal(c, j, SIGTERM, true, SIG_FULL);
    }
    job_save(c, j);
    store_after_commit(c->store, api_reply_after_commit, r);
}

static bool all_digits(const char *s)
{
    if (!s || !*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/* "gpu", "gpu:2", "gpu:a100", "gpu:a100:2"; "" or "none": no GPUs. Into the spec. */
static int apply_gres(json_t *spec, const char *g)
{
    json_object_del(spec, "gpus");
    json_object_del(spec, "gpu_type");
    json_object_del(spec, "gpus_per_node");
    if (!*g || strcasecmp(g, "none") == 0 || strcmp(g, "(null)") == 0)
        return 0;
    char *copy = xstrdup(g), *save = NULL;
    const char *name = strtok_r(copy, ":", &save);
    const char *f1 = strtok_r(NULL, ":", &save), *f2 = strtok_r(NULL, ":", &save);
    bool extra = strtok_r(NULL, ":", &save) != NULL;
    const char *type = f2 || !all_digits(f1) ? f1 : NULL;
    const char *num = f2 ? f2 : all_digits(f1) ? f1 : NULL;
    long n = num ? strtol(num, NULL, 10) : 1;
    int rc = -1;
    if (name && strcmp(name, "gpu") == 0 && !extra && (!num || all_digits(num)) && n <= 1 << 20) {
        if (type)
            json_object_set_new(spec, "gpu_type", json_string(type));
        json_object_set_new(spec, "gpus_per_node", json_integer(n));
        rc = 0;
    }
    free(copy);
    return rc;
}

/* May a non-root owner set this time limit? Only a shorter one. */
static bool limit_allowed(const struct job *j, json_int_t t)
{
    if (j->time_limit < 0)
        return t >= 0;
    return t >= 0 && t <= j->time_limit;
}

json_t *api_job_update_spec(const struct ctld *c, const struct job *j, json_t *b, bool root,
                            int *status_out, int *code_out, const char **err_out)
{
    json_t *spec = job_spec(c, j);
    const char *err = NULL;
    int status = 400, code = 0;
    json_t *v;
    if ((v = json_object_get(b, "time_limit"))) {
        if (!json_is_integer(v) || json_integer_value(v) < -1)
            err = "Invalid TimeLimit value";
        else if (!root && !limit_allowed(j, json_integer_value(v)))
            status = 403, code = ESLURM_ACCESS_DENIED, err = API_MSG_DENIED;
        else
            json_object_set(spec, "time_limit", v);
    }
    if (!err && (v = json_object_get(b, "nice"))) {
        if (!json_is_integer(v))
            err = "Invalid nice value";
        else if (!root && json_integer_value(v) < 0)
            status = 403, code = ESLURM_ACCESS_DENIED, err = API_MSG_DENIED;
        else
            json_object_set(spec, "nice", v);
    }
    if (!err && (v = json_object_get(b, "gres")) &&
        (!json_is_string(v) || apply_gres(spec, json_string_value(v)) < 0))
        err = "Invalid generic resource (gres) specification";
    if (!err && (v = json_object_get(b, "nodes"))) {
        if (!json_is_integer(v) || json_integer_value(v) < 1)
            err = "Invalid node count specified";
        else {
            json_object_set(spec, "nodes", v);
            json_object_del(spec, "max_nodes");   /* Slurm shows an updated count bare */
        }
    }
    if (!err && (v = json_object_get(b, "begin_time"))) {
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            err = "Invalid StartTime value";
        else
            json_object_set(spec, "begin_time", v);
    }
    if (!err && (v = json_object_get(b, "dependency"))) {
        if (!json_is_string(v))
            err = "Invalid dependency";
        else if (!*json_string_value(v))
            json_object_del(spec, "dependency");   /* Dependency= clears it */
        else
            json_object_set(spec, "dependency", v);
    }
    static const char *const strs[] = { "partition", "name", "comment", "wckey", "account",
                                        "reservation" };
    for (size_t i = 0; !err && i < sizeof strs / sizeof *strs; i++)
        if ((v = json_object_get(b, strs[i]))) {
            if (json_is_string(v))
                json_object_set(spec, strs[i], v);
            else
                err = "Invalid update request";
        }
    if (err) {
        *status_out = status;
        *code_out = code;
        *err_out = err;
        json_decref(spec);
        return NULL;
    }
    return spec;
}

/* The fields of an update into a copy of the job's spec; NULL, answered,
 * when one is wrong or not allowed. */
static json_t *update_spec(struct http_req *r, const struct job *j)
{
    int status = 400, code = 0;
    const char *err = NULL;
    json_t *spec = api_job_update_spec(r->ctx, j, r->body, r->who.uid == 0, &status, &code, &err);
    if (!spec)
        http_reply_error(r, status, code, "%s", err);
    return spec;
}

/* What may change while a job runs: words, and its time limit (which its
 * node is told), nothing it was given. */
static bool running_may(json_t *body)
{
    const char *k;
    json_t *v;
    json_object_foreach(body, k, v) if (strcmp(k, "comment") && strcmp(k, "name") &&
                                        strcmp(k, "wckey") && strcmp(k, "time_limit"))
        return false;
    return true;
}

/* POST /v1/jobs/{id}/update {"time_limit", "partition", "nodes", "gres",
 * "name", "nice", "comment", "wckey", "account", "begin_time", "reservation"}. */
void api_job_update(struct http_req *r)
{
    struct ctld *c = r->ctx;
    struct job *j = api_path_own_job(r);
    if (!j)
        return;
    if (j->state != JOB_PENDING && !(job_holds_alloc(j) && running_may(r->body)) &&
        !must_be_pending(r, j))
        return;
    int code_r = 0;
    char err_r[128];
    if (resv_job_update_check(c, j, r->body, &code_r, err_r, sizeof err_r) < 0) {
        http_reply_error(r, 400, code_r, "%s", err_r);
        return;
    }
    json_t *spec = update_spec(r, j);
    if (!spec)
        return;
    int status = 400, code = 0;
    char err[256];
    const char *nm = json_string_value(json_object_get(spec, "name"));
    if (job_holds_alloc(j)) {      /* labels and the limit only: no new shape */
        intern_release(j->name);
        j->name = intern(nm && *nm ? nm : "sbatch");
        job_spec_set(j, spec);
        json_decref(spec);
        json_t *tl = json_object_get(r->body, "time_limit");
        if (tl) {
            j->time_limit = j->req.time_limit_min = json_integer_value(tl);
            if (!j->alloc_only)   /* an allocation's limit the controller keeps itself */
                launch_time_limit(c, j);
        }
    } else {
        int rc = job_respec(c, j, spec, &status, &code, err, sizeof err);
        json_decref(spec);
        if (rc < 0) {
            http_reply_error(r, status, code, "%s", err);
            return;
        }
    }
    log_info("job %llu updated by uid %u", (unsigned long long)j->id, (unsigned)r->who.uid);
    spec_changed(c, r, j);
}

static bool need_root(struct http_req *r)
{
    if (r->who.uid == 0)
        return true;
    http_reply_error(r, 403, ESLURM_ACCESS_DENIED, API_MSG_DENIED);
    return false;
}

/* DOWN by an admin: what runs there is killed, and ends as the node's loss. */
static void node_set_down(struct ctld *c, struct node *n, const char *reason)
{
    size_t idx = node_index(c, n);
    struct job *j;
    JOB_FOREACH_HOLDING(c, j) {
        for (size_t k = 0; k < j->nallocs; k++)
            if (j->allocs[k].node == idx) {
                launch_signal(c, j, SIGKILL, true, SIG_FULL);
                break;
            }
    }
    bool responding = n->responding;
    node_mark_down(c, n, reason, false);
    n->responding = responding;     /* it still answers: only its state changed */
}

enum node_op { NODE_OP_NONE, NODE_OP_DRAIN, NODE_OP_DOWN, NODE_OP_RESUME, NODE_OP_UNDRAIN };

static int node_op_parse(const char *s)
{
    static const struct { const char *name; enum node_op op; } ops[] = {
        { "DRAIN", NODE_OP_DRAIN }, { "DOWN", NODE_OP_DOWN }, { "RESUME", NODE_OP_RESUME },
        { "IDLE", NODE_OP_RESUME }, { "UNDRAIN", NODE_OP_UNDRAIN },
    };
    if (!s)
        return NODE_OP_NONE;
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (strcasecmp(s, ops[i].name) == 0)
            return ops[i].op;
    return -1;
}

static void node_apply(struct ctld *c, struct node *n, enum node_op op, const char *reason,
                       uid_t uid)
{
    switch (op) {
    case NODE_OP_DRAIN:
        node_drain(c, n, reason);
        break;
    case NODE_OP_DOWN:
        node_set_down(c, n, reason);
        break;
    case NODE_OP_RESUME:
        n->down = false;
        /* fall through */
    case NODE_OP_UNDRAIN:
        n->drain = false;
        if (!n->down)
            xfree(n->reason);
        log_info("node %s resumed", n->conf->name);
        break;
    case NODE_OP_NONE:
        if (reason) {
            free(n->reason);
            n->reason = xstrdup(reason);
        }
        break;
    }
    if (n->reason) {
        n->reason_uid = uid;
        n->reason_time = ctld_now();
    }
    nodes_save_state(c);
}

/* POST /v1/nodes/update {"nodes": "node[1-2]", "state": "DRAIN" | "DOWN" |
 * "RESUME" | "IDLE" | "UNDRAIN", "reason": "..."} (root). DRAIN and DOWN
 * are kept across a restart of herdctld (node_state.c). */
void api_node_update(struct http_req *r)
{
    struct ctld *c = r->ctx;
    if (!need_root(r))
        return;
    const char *expr = json_string_value(json_object_get(r->body, "nodes"));
    const char *reason = json_string_value(json_object_get(r->body, "reason"));
    int op = node_op_parse(json_string_value(json_object_get(r->body, "state")));
    if (op < 0) {
        http_reply_error(r, 400, SLURM_ERROR, "Invalid node state specified");
        return;
    }
    if ((op == NODE_OP_DRAIN || op == NODE_OP_DOWN) && (!reason || !*reason)) {
        http_reply_error(r, 400, SLURM_ERROR, "You must specify a reason when DOWNING or DRAINING a "
                                    "node. Request denied");
        return;
    }
    struct hostlist *hl = expr ? hostlist_create(expr) : NULL;
    for (size_t i = 0; hl && i < hostlist_count(hl); i++)
        if (!node_find(c, hostlist_nth(hl, i))) {
            hostlist_destroy(hl);
            hl = NULL;
        }
    if (!hl || hostlist_count(hl) == 0) {
        hostlist_destroy(hl);
        http_reply_error(r, 404, ESLURM_INVALID_NODE_NAME, "Invalid node name specified");
        return;
    }
    for (size_t i = 0; i < hostlist_count(hl); i++)
        node_apply(c, node_find(c, hostlist_nth(hl, i)), (enum node_op)op, reason, r->who.uid);
    hostlist_destroy(hl);
    ctld_sched_request(c);
    store_after_commit(c->store, api_reply_after_commit, r);   /* jobs a DOWN ended are stored */
}

static int64_t minutes_of(json_t *v, bool *bad)
{
    if (!v)
        return -2;
    if (!json_is_integer(v) || json_integer_value(v) < -1)
        *bad = true;
    return json_integer_value(v);
}

/* POST /v1/partitions/update {"name", "state": "UP" | "DOWN", "max_time",
 * "default_time"} (root; minutes, -1 UNLIMITED). Kept across a restart
 * until a reconfigure, as Slurm keeps it. */
void api_part_update(struct http_req *r)
{
    struct ctld *c = r->ctx;
    if (!need_root(r))
        return;
    const struct conf_part *cp =
        conf_part_find(c->conf, json_string_value(json_object_get(r->body, "name")));
    if (!cp) {
        http_reply_error(r, 404, ESLURM_INVALID_PARTITION_NAME, "Invalid partition name specified");
        return;
    }
    const char *st = json_string_value(json_object_get(r->body, "state"));
    int up = !st ? -1 : strcasecmp(st, "UP") == 0 ? 1 : strcasecmp(st, "DOWN") == 0 ? 0 : -2;
    bool bad = false;
    int64_t max_time = minutes_of(json_object_get(r->body, "max_time"), &bad);
    int64_t def_time = minutes_of(json_object_get(r->body, "default_time"), &bad);
    if (up == -2 || bad) {
        http_reply_error(r, 400, SLURM_ERROR, "Invalid input: %s", up == -2 ? "State (UP or DOWN)"
                                                                    : "time value");
        return;
    }
    part_set(c, (size_t)(cp - c->conf->parts), up, max_time, def_time);
    parts_state_note(c, cp->name, up, max_time, def_time);
    log_info("partition %s updated by uid %u", cp->name, (unsigned)r->who.uid);
    ctld_sched_request(c);
    http_reply(r, 200, NULL);
}

/* POST /v1/reconfigure (root): what SIGHUP does (reconfig.c), answered. */
void api_reconfigure(struct http_req *r)
{
    struct ctld *c = r->ctx;
    if (!need_root(r))
        return;
    char err[512];
    int rc = ctld_reconfigure(c, err, sizeof err);
    if (rc < 0) {
        http_reply_error(r, 400, SLURM_ERROR, "%s", err);
        return;
    }
    http_reply(r, 200, rc == 0 ? NULL
                               : json_pack("{s:s}", "warning",
                                           "nodes or partitions changed: restart herdctld"));
}
