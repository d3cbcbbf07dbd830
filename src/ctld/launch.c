/*
 * launch: the controller's calls to node agents. A launch goes out only
 * after the job's RUNNING state is durable, so a restart can never forget a
 * job that a node runs; a launch that fails puts the job back in the queue.
 */
#include <signal.h>
#include <stdlib.h>

#include <event2/event.h>

#include "common/conf.h"
#include "common/http.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "ctld/ctld.h"
#include "ctld/preempt.h"
#include "ctld/step.h"
#include "ctld/store.h"

#define RPC_TIMEOUT_S 10

struct call_ctx {
    struct ctld *c;
    uint64_t id;
    bool cancel;
    size_t node;     /* a launch's: the node it went to */
    int busy;        /* a launch's: answers 503 so far */
    struct event *again;          /* while it waits to be sent again */
    struct call_ctx *next_wait;   /* in c->launch_waits meanwhile */
};

/* A node that answers 503 is up but busy (its credential checks or
 * connections are full, or it is stopping): the job has not started there.
 * The launch is sent again after 1, 2 and 4 s, the job keeping its
 * allocation, before it counts as failed. */
#define LAUNCH_BUSY_TRIES 3

static struct call_ctx *ctx_new(struct ctld *c, const struct job *j, bool cancel)
{
    struct call_ctx *x = xmalloc(sizeof *x);
    *x = (struct call_ctx){ c, j->id, cancel, j->nallocs ? j->allocs[0].node : 0, 0, NULL, NULL };
    return x;
}

/* A node started a run the controller no longer holds there: the launch
 * was on its way while the node was silent and the job ended NODE_FAIL
 * (or was requeued elsewhere). That copy is killed, as a returning node's
 * stale jobs are, and an end it reports from now on is the kill's own, not
 * the job's: it must not replace the NODE_FAIL that a dependency has
 * already acted on. */
static void launch_late(struct ctld *c, struct job *j, size_t node, uint64_t id)
{
    struct node *n = &c->nodes[node];
    if (j && j->end_assumed && !j->stale_kill_at) {
        j->stale_kill_at = ctld_now();
        job_save(c, j);
    }
    log_warnx("node %s started job %llu after the job %s: killing it", n->conf->name,
              (unsigned long long)id, !j ? "was forgotten" : job_is_finished(j) ? "ended"
              : "was requeued");
    launch_kill_stale(c, n, id);
}

static void launch_now(void *arg);

static void launch_again(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct call_ctx *x = arg;
    struct call_ctx **p = &x->c->launch_waits;
    while (*p != x)
        p = &(*p)->next_wait;
    *p = x->next_wait;
    event_free(x->again);
    x->again = NULL;
    launch_now(x);
}

/* Whether the busy node's launch is sent again later (x is then kept). */
static bool launch_later(struct call_ctx *x, const struct job *j)
{
    struct timeval tv = { 1 << x->busy, 0 };
    if (x->busy >= LAUNCH_BUSY_TRIES ||
        !(x->again = evtimer_new(x->c->base, launch_again, x)))
        return false;
    evtimer_add(x->again, &tv);
    x->next_wait = x->c->launch_waits;
    x->c->launch_waits = x;
    x->busy++;
    log_info("launch of job %llu: node %s is busy (503); again in %lld s",
             (unsigned long long)j->id, x->c->nodes[x->node].conf->name, (long long)tv.tv_sec);
    return true;
}

void launch_waits_free(struct ctld *c)
{
    while (c->launch_waits) {
        struct call_ctx *x = c->launch_waits;
        c->launch_waits = x->next_wait;
        event_free(x->again);
        free(x);
    }
}

static void launch_failed(struct ctld *c, struct job *j, int status)
{
    struct node *n = &c->nodes[j->allocs[0].node];
    log_warnx("launch of job %llu on %s failed (status %d); requeued",
              (unsigned long long)j->id, n->conf->name, status);
    n->responding = false;
    job_requeue(c, j);
}

static void launch_done(int status, json_t *body, void *arg)
{
    struct call_ctx *x = arg;
    struct job *j = job_find(x->c, x->id);
    (void)body;
    bool current = j && job_holds_alloc(j) && j->nallocs > 0 && j->allocs[0].node == x->node;
    if (status == 200 && !current) {
        launch_late(x->c, j, x->node, x->id);
    } else if (current && j->launch == LAUNCH_INFLIGHT) {
        if (status == 200) {
            j->launch = LAUNCH_ACKED;
            j->acked_at = ctld_now();
        } else if (status == 503 && launch_later(x, j)) {
            return;
        } else {
            launch_failed(x->c, j, status);
        }
    }
    free(x);
}

/* The batch job's tasks as srun inside it sees them: -n, else
 * --ntasks-per-node on every node, else one per node, in blocks. */
static void job_tasks_json(const struct job *j, json_t *o)
{
    int nodes = j->nallocs ? (int)j->nallocs : 1, per = j->req.ntasks_per_node;
    int ntasks = j->req.ntasks ? j->req.ntasks : per ? per * nodes : nodes;
    int *v = xcalloc((size_t)nodes, sizeof *v);
    for (int i = 0; i < nodes; i++)
        v[i] = ntasks / nodes + (i < ntasks % nodes);
    char *tpn = step_counts_str(v, (size_t)nodes);
    json_object_set_new(o, "ntasks", json_integer(ntasks));
    json_object_set_new(o, "tasks_per_node", json_string(tpn));
    free(tpn);
    free(v);
}

/* SLURM_RESTART_COUNT of this run: the agent reads "restart_count". */
static void job_restarts_json(const struct job *j, json_t *o)
{
    json_object_set_new(o, "restart_count", json_integer(j->restarts));
}

static json_t *launch_body(struct ctld *c, struct job *j)
{
    char *script = NULL;
    json_t *env = NULL;
    /* an array's tasks run the script stored with the array's meta job */
    uint64_t script_id = j->array_job_id ? j->array_job_id : j->id;
    if (store_job_script_get(c->store, script_id, &script, &env) < 0)
        return NULL;
    const struct sched_alloc *a = &j->allocs[0];
    json_t *gpus = json_array();
    for (int b = 0; b < SCHED_MAX_GPUS; b++)
        if (a->gpu_mask & (1ULL << b))
            json_array_append_new(gpus, json_integer(b));
    json_t *o = job_to_json(c, j);
    json_object_set_new(o, "script", json_string(script));
    json_object_set_new(o, "environment", env);
    json_object_set_new(o, "node_name", json_string(c->conf->nodes[a->node].name));
    json_object_set_new(o, "node_cpus", json_integer(a->cpus));
    json_object_set_new(o, "node_mem_mb", json_integer((json_int_t)a->mem_mb));
    json_object_set_new(o, "node_gpus", gpus);
    json_object_set_new(o, "cluster_name", json_string(c->conf->cluster_name));
    job_tasks_json(j, o);
    job_restarts_json(j, o);
    free(script);
    return o;
}

static void launch_now(void *arg)
{
    struct call_ctx *x = arg;
    struct job *j = job_find(x->c, x->id);
    if (!j || !job_holds_alloc(j) || j->launch != LAUNCH_INFLIGHT) {
        free(x);
        return;
    }
    json_t *body = launch_body(x->c, j);
    if (!body) {
        log_warnx("job %llu has no script in the store", (unsigned long long)j->id);
        job_end(x->c, j, JOB_FAILED, 1, 0, 0);
        free(x);
        return;
    }
    const struct conf_node *cn = x->c->nodes[j->allocs[0].node].conf;
    http_call(x->c->base, x->c->conf->munge_socket, cn->addr, cn->port, "POST", "/v1/launch",
              body, RPC_TIMEOUT_S, launch_done, x);
}

/* A started job goes to its batch node; an allocation alone has nothing to send. */
void launch_on_job(struct ctld *c, struct job *j, enum job_event ev)
{
    if (ev == JOB_STARTED && !j->alloc_only)
        launch_job(c, j);
}

void launch_job(struct ctld *c, struct job *j)
{
    j->launch = LAUNCH_INFLIGHT;
    store_after_commit(c->store, launch_now, ctx_new(c, j, false));
}

static void signal_done(int status, json_t *body, void *arg)
{
    struct call_ctx *x = arg;
    struct job *j = job_find(x->c, x->id);
    (void)body;
    /* A node that cannot be reached, or that does not know the job, cannot
     * end it: a cancel then ends it here. */
    if (j && job_holds_alloc(j) && x->cancel && status != 200) {
        log_warnx("cancel of job %llu reached no agent (status %d)", (unsigned long long)j->id,
                  status);
        if (j->preempt)   /* a victim's end is its mode's */
            preempt_job_end(x->c, j, 0, 0, 0);
        else
            job_end(x->c, j, JOB_CANCELLED, 0, 0, 0);
    }
    free(x);
}

enum sig_to sig_to_of(json_t *body)
{
    return json_is_true(json_object_get(body, "batch"))  ? SIG_BATCH
         : json_is_true(json_object_get(body, "full")) ? SIG_FULL
                                                        : SIG_STEPS;
}

void launch_signal(struct ctld *c, struct job *j, int sig, bool cancel, enum sig_to to)
{
    if (j->alloc_only) {   /* no batch shell: its steps' tasks, and a cancel ends it here */
        step_signal_all(c, j, cancel ? SIGKILL : sig, SIZE_MAX);
        if (cancel)
            job_end(c, j, JOB_CANCELLED, 0, 0, 0);
        return;
    }
    if (!cancel && to == SIG_STEPS) {
        step_signal_all(c, j, sig, SIZE_MAX);
        return;
    }
    /* -f: the batch node's signal reaches every process of the job there
     * (its cgroup holds the steps' tasks too); the other nodes' steps here */
    if (!cancel && to == SIG_FULL)
        step_signal_all(c, j, sig, j->allocs[0].node);
    const struct conf_node *cn = c->nodes[j->allocs[0].node].conf;
    json_t *body = json_pack("{s:I, s:i, s:b, s:b, s:b, s:b}", "job_id", (json_int_t)j->id,
                             "signal", sig, "cancel", cancel, "batch", to == SIG_BATCH, "requeue",
                             cancel && j->requeue_pending, "preempt", cancel && j->preempt);
    http_call(c->base, c->conf->munge_socket, cn->addr, cn->port, "POST", "/v1/signal", body,
              RPC_TIMEOUT_S, signal_done, ctx_new(c, j, cancel));
}

static void limit_done(int status, json_t *body, void *arg)
{
    struct call_ctx *x = arg;
    (void)body;
    if (status != 200)
        log_warnx("job %llu: the new time limit reached no agent (status %d)",
                  (unsigned long long)x->id, status);
    free(x);
}

void launch_time_limit(struct ctld *c, struct job *j)
{
    const struct conf_node *cn = c->nodes[j->allocs[0].node].conf;
    json_t *body = json_pack("{s:I, s:I}", "job_id", (json_int_t)j->id, "time_limit",
                             (json_int_t)j->time_limit);
    http_call(c->base, c->conf->munge_socket, cn->addr, cn->port, "POST", "/v1/timelimit", body,
              RPC_TIMEOUT_S, limit_done, ctx_new(c, j, false));
}

static void stale_done(int status, json_t *body, void *arg)
{
    struct call_ctx *x = arg;
    (void)body;
    /* 404: the agent no longer has it; anything else is sent again at the
     * node's next registration while the agent still lists the job */
    if (status != 200 && status != 404)
        log_warnx("kill of stale job %llu reached no agent (status %d)",
                  (unsigned long long)x->id, status);
    free(x);
}

void launch_kill_stale(struct ctld *c, const struct node *n, uint64_t job_id)
{
    struct call_ctx *x = xmalloc(sizeof *x);
    *x = (struct call_ctx){ c, job_id, true, node_index(c, n), 0, NULL, NULL };
    json_t *body = json_pack("{s:I, s:i, s:b}", "job_id", (json_int_t)job_id, "signal", SIGKILL,
                             "cancel", true);
    http_call(c->base, c->conf->munge_socket, n->conf->addr, n->conf->port, "POST",
              "/v1/signal", body, RPC_TIMEOUT_S, stale_done, x);
}
