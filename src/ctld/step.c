/*
 * step: laying job steps out over a job's nodes, and showing the layout.
 * See step.h.
 */
#include "ctld/step.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/hostlist.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "ctld/api.h"
#include "ctld/ctld.h"
#include "common/slurm_errno.h"

#define MSG_LAYOUT "Requested node configuration is not available"
#define MSG_BUSY "Requested nodes are busy"

void step_free_all(struct job_step *s)
{
    while (s) {
        struct job_step *next = s->next;
        free(s->alloc);
        free(s->tasks);
        free(s->cpus);
        free(s->gpus);
        free(s->name);
        free(s);
        s = next;
    }
}

static int body_int(json_t *body, const char *key)
{
    json_t *v = json_object_get(body, key);
    return json_is_integer(v) && json_integer_value(v) > 0 && json_integer_value(v) < (1 << 24)
               ? (int)json_integer_value(v) : 0;
}

/* The job's allocations a step may use: those -w names, else all. -1 when
 * -w names a node the job does not hold. */
static int pick_nodes(const struct ctld *c, const struct job *j, const char *nodelist,
                      size_t *out)
{
    if (!nodelist || !*nodelist) {
        for (size_t i = 0; i < j->nallocs; i++)
            out[i] = i;
        return (int)j->nallocs;
    }
    struct hostlist *hl = hostlist_create(nodelist);
    int n = 0;
    for (size_t i = 0; hl && i < j->nallocs; i++)
        if (hostlist_find(hl, c->conf->nodes[j->allocs[i].node].name) >= 0)
            out[n++] = i;
    bool all = hl && (size_t)n == hostlist_count(hl);
    hostlist_destroy(hl);
    return all ? n : -1;
}

/* What the job's running steps hold on allocation a. */
static void held(const struct job *j, size_t a, int *cpus, uint64_t *gpus)
{
    *cpus = 0;
    *gpus = 0;
    for (const struct job_step *s = j->steps; s; s = s->next)
        for (size_t i = 0; !s->ended && i < s->nnodes; i++)
            if (s->alloc[i] == a) {
                *cpus += s->cpus[i];
                *gpus |= s->gpus_per_task ? s->gpus[i] : 0;
            }
}

/* The lowest n GPUs of mask; 0 when it has fewer. */
static uint64_t take_gpus(uint64_t mask, int n)
{
    uint64_t got = 0;
    for (int b = 0; b < 64 && n > 0; b++)
        if (mask & (1ULL << b)) {
            got |= 1ULL << b;
            n--;
        }
    return n > 0 ? 0 : got;
}

/* Step node k (k tasks there) on allocation a, with what it holds: false
 * when a has not that much, counting what running steps hold when busy. */
static bool fit(const struct job *j, struct job_step *s, size_t k, size_t a, bool busy,
                bool overlap)
{
    const struct sched_alloc *al = &j->allocs[a];
    int used = 0;
    uint64_t taken = 0;
    if (busy)
        held(j, a, &used, &taken);
    int cpus = s->tasks[k] * (s->cpus_per_task ? s->cpus_per_task : 1);
    int gpus = s->gpus_per_task * s->tasks[k];
    uint64_t mine = gpus ? take_gpus(al->gpu_mask & ~(overlap ? 0 : taken), gpus) : al->gpu_mask;
    if ((!overlap && used + cpus > al->cpus) || (gpus && !mine) || (!overlap && cpus > al->cpus))
        return false;
    s->alloc[k] = a;
    s->cpus[k] = overlap ? 0 : cpus;
    s->gpus[k] = mine;
    return true;
}

/* The step's nodes, first fit in the job's order among the candidates. */
static bool place(const struct job *j, struct job_step *s, const size_t *cand, int avail,
                  bool busy, bool overlap)
{
    size_t k = 0;
    for (int c = 0; c < avail && k < s->nnodes; c++)
        if (fit(j, s, k, cand[c], busy, overlap))
            k++;
    return k == s->nnodes;
}

/* Tasks over nodes in blocks, as Slurm's default distribution: the first
 * ntasks % nnodes nodes get one more. NULL with *status 400 when it could
 * never run in the allocation, 409 when running steps hold what it needs. */
static struct job_step *layout(const struct ctld *c, const struct job *j, json_t *body,
                               int *status)
{
    size_t *cand = xcalloc(j->nallocs + 1, sizeof *cand);
    int avail = pick_nodes(c, j, json_string_value(json_object_get(body, "nodelist")), cand);
    int ntasks = body_int(body, "ntasks"), nodes = body_int(body, "nodes");
    int per_node = body_int(body, "ntasks_per_node");
    bool overlap = json_is_true(json_object_get(body, "overlap"));
    *status = 400;
    if (!nodes)
        nodes = avail < 0 ? 0 : ntasks && ntasks < avail ? ntasks : avail;
    if (!ntasks)
        ntasks = per_node ? per_node * nodes : nodes;
    if (avail < 0 || nodes < 1 || nodes > avail || ntasks < nodes ||
        (per_node && ntasks > per_node * nodes)) {
        free(cand);
        return NULL;
    }
    struct job_step *s = xcalloc(1, sizeof *s);
    s->ntasks = ntasks;
    s->nnodes = (size_t)nodes;
    s->alloc = xcalloc((size_t)nodes, sizeof *s->alloc);
    s->tasks = xcalloc((size_t)nodes, sizeof *s->tasks);
    s->cpus = xcalloc((size_t)nodes, sizeof *s->cpus);
    s->gpus = xcalloc((size_t)nodes, sizeof *s->gpus);
    s->gpus_per_task = body_int(body, "gpus_per_task");
    s->cpus_per_task = body_int(body, "cpus_per_task");
    for (int i = 0; i < nodes; i++)   /* within ntasks_per_node, as checked above */
        s->tasks[i] = ntasks / nodes + (i < ntasks % nodes);
    bool ok = place(j, s, cand, avail, true, overlap);
    if (!ok)
        *status = place(j, s, cand, avail, false, overlap) ? 409 : 400;
    free(cand);
    if (!ok) {
        step_free_all(s);
        return NULL;
    }
    return s;
}

/* Slurm's compressed per-node counts: "2(x3),1". */
char *step_counts_str(const int *v, size_t n)
{
    char *out = xstrdup("");
    for (size_t i = 0; i < n;) {
        size_t k = i;
        while (k < n && v[k] == v[i])
            k++;
        char *t = k - i > 1 ? xasprintf("%s%s%d(x%zu)", out, *out ? "," : "", v[i], k - i)
                            : xasprintf("%s%s%d", out, *out ? "," : "", v[i]);
        free(out);
        out = t;
        i = k;
    }
    return out;
}

/* GPU indices of a mask, in order. */
static json_t *mask_gpus(uint64_t mask)
{
    json_t *all = json_array();
    for (int b = 0; b < 64; b++)
        if (mask & (1ULL << b))
            json_array_append_new(all, json_integer(b));
    return all;
}

/* The GPUs of one step node (its mask), by task: each task's own with --gpus-per-task. */
static json_t *node_gpus(const struct job_step *s, uint64_t mask, int ntasks)
{
    json_t *all = mask_gpus(mask);
    if (!s->gpus_per_task)
        return all;
    json_t *per = json_array();
    for (int t = 0; t < ntasks; t++) {
        json_t *mine = json_array();
        for (int g = 0; g < s->gpus_per_task; g++)
            json_array_append(mine, json_array_get(all, (size_t)(t * s->gpus_per_task + g)));
        json_array_append_new(per, mine);
    }
    json_decref(all);
    return per;
}

static json_t *step_json(const struct ctld *c, const struct job *j, const struct job_step *s)
{
    struct hostlist *hl = hostlist_create("");
    json_t *nodes = json_array();
    for (size_t i = 0, first = 0; i < s->nnodes; first += (size_t)s->tasks[i], i++) {
        const struct sched_alloc *al = &j->allocs[s->alloc[i]];
        const struct conf_node *cn = &c->conf->nodes[al->node];
        hostlist_push(hl, cn->name);
        json_t *n = json_pack("{s:s, s:s, s:i, s:i, s:i, s:i}", "name", cn->name, "addr",
                              cn->addr, "port", cn->port, "node_id", (int)i, "ntasks",
                              s->tasks[i], "first_task", (int)first);
        json_object_set_new(n, "mem_mb", json_integer((json_int_t)al->mem_mb));
        json_object_set_new(n, s->gpus_per_task ? "task_gpus" : "gpus",
                            node_gpus(s, s->gpus[i], s->tasks[i]));
        json_array_append_new(nodes, n);
    }
    char *nl = hostlist_ranged_string(hl), *tpn = step_counts_str(s->tasks, s->nnodes);
    hostlist_destroy(hl);
    json_t *o = json_pack("{s:I, s:i, s:i, s:i, s:s, s:i, s:s, s:s, s:o, s:i, s:s}", "job_id",
                          (json_int_t)j->id, "step_id", s->id, "user_id", (int)j->uid,
                          "group_id", (int)j->gid, "user_name", j->user_name, "ntasks",
                          s->ntasks, "node_list", nl, "tasks_per_node", tpn, "nodes", nodes,
                          "cpus_per_task", s->cpus_per_task, "name", s->name);
    free(nl);
    free(tpn);
    return o;
}

/* What sacct shows of a step, in the shape of a job's record (allocs on the
 * step's nodes), so that its rows read the same fields. */
static void record_step(struct ctld *c, struct job *j, const struct job_step *s)
{
    json_t *allocs = json_array();
    struct hostlist *hl = hostlist_create("");
    for (size_t i = 0; i < s->nnodes; i++) {
        const struct sched_alloc *al = &j->allocs[s->alloc[i]];
        const char *name = c->conf->nodes[al->node].name;
        int cpus = s->tasks[i] * (s->cpus_per_task ? s->cpus_per_task : 1);
        hostlist_push(hl, name);
        json_array_append_new(allocs, json_pack("{s:s, s:i, s:I, s:I}", "node", name, "cpus",
                                                cpus < al->cpus ? cpus : al->cpus, "mem_mb",
                                                (json_int_t)0, "gpu_mask",
                                                (json_int_t)s->gpus[i]));
    }
    char *nl = hostlist_ranged_string(hl);
    hostlist_destroy(hl);
    if (!j->step_recs)
        j->step_recs = json_array();
    json_array_append_new(j->step_recs,
                          json_pack("{s:i, s:s, s:i, s:s, s:I, s:I, s:s, s:i, s:i, s:o}", "id",
                                    s->id, "name", s->name, "ntasks", s->ntasks, "node_list", nl,
                                    "start_time", (json_int_t)ctld_now(), "end_time",
                                    (json_int_t)0, "state", "RUNNING", "exit_code", 0,
                                    "exit_signal", 0, "allocs", allocs));
    free(nl);
    job_save(c, j);
}

static void end_record(json_t *rec, const char *state, int code, int sig, int64_t when)
{
    json_object_set_new(rec, "state", json_string(state));
    json_object_set_new(rec, "exit_code", json_integer(code));
    json_object_set_new(rec, "exit_signal", json_integer(sig));
    json_object_set_new(rec, "end_time", json_integer(when));
}

void step_records_close(struct job *j)
{
    size_t i;
    json_t *rec;
    json_array_foreach(j->step_recs, i, rec)
        if (!strcmp(json_string_value(json_object_get(rec, "state")) ?: "", "RUNNING"))
            end_record(rec, "CANCELLED", 0, SIGKILL, j->end_time);
}

static bool job_runs(struct http_req *r, const struct job *j)
{
    if (j->state == JOB_RUNNING)
        return true;
    if (j->state == JOB_SUSPENDED)   /* as Slurm: no new step until it resumes */
        http_reply_error(r, 400, ESLURM_DISABLED, "Requested operation is presently disabled");
    else if (j->state == JOB_PENDING)
        http_reply_error(r, 400, ESLURM_JOB_PENDING, "Job is pending execution");
    else
        http_reply_error(r, 400, ESLURM_ALREADY_DONE, "Job/step already completing or completed");
    return false;
}

void api_step_create(struct http_req *r)
{
    struct ctld *c = r->ctx;
    struct job *j = api_path_owner_job(r);
    if (!j)
        return;
    if (!job_runs(r, j))
        return;
    int status;
    struct job_step *s = layout(c, j, r->body, &status);
    if (!s) {
        if (status == 409)
            http_reply_error(r, 409, ESLURM_NODES_BUSY, MSG_BUSY);
        else
            http_reply_error(r, 400, ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE, MSG_LAYOUT);
        return;
    }
    const char *name = json_string_value(json_object_get(r->body, "name"));
    s->name = xstrdup(name && *name ? name : j->name);
    s->id = j->next_step++;
    s->next = j->steps;
    j->steps = s;
    record_step(c, j, s);
    log_info("job %llu: step %d, %d tasks on %zu nodes", (unsigned long long)j->id, s->id,
             s->ntasks, s->nnodes);
    http_reply(r, 200, step_json(c, j, s));
}

static void signal_done(int status, json_t *body, void *arg)
{
    (void)status;
    (void)body;
    (void)arg;
}

void step_signal_all(struct ctld *c, const struct job *j, int sig, size_t skip_node)
{
    for (const struct job_step *s = j->steps; s; s = s->next)
        for (size_t i = 0; !s->ended && i < s->nnodes; i++) {
            if (j->allocs[s->alloc[i]].node == skip_node)
                continue;
            const struct conf_node *cn = &c->conf->nodes[j->allocs[s->alloc[i]].node];
            json_t *b = json_pack("{s:I, s:i, s:i}", "job_id", (json_int_t)j->id, "step_id",
                                  s->id, "signal", sig);
            http_call(c->base, c->conf->munge_socket, cn->addr, cn->port, "POST",
                      "/v1/steps/signal", b, 10, signal_done, NULL);
        }
}

void api_alloc_complete(struct http_req *r)
{
    struct ctld *c = r->ctx;
    struct job *j = api_path_owner_job(r);
    if (!j)
        return;
    json_t *code = json_object_get(r->body, "exit_code");
    if (!j->alloc_only)
        http_reply_error(r, 400, ESLURM_ALREADY_DONE, "Job is not an allocation (a batch job "
                         "ends with its script)");
    else if (code && (!json_is_integer(code) || json_integer_value(code) < 0 ||
                      json_integer_value(code) > 255))
        http_reply_error(r, 400, SLURM_ERROR, "Invalid exit code");
    else if (job_runs(r, j)) {
        int rc = (int)json_integer_value(code);
        step_signal_all(c, j, SIGKILL, SIZE_MAX);
        job_end(c, j, rc ? JOB_FAILED : JOB_COMPLETED, rc, 0, 0);
        http_reply(r, 200, NULL);
    }
}

/* A step srun ended (-K, Ctrl-C) was cancelled; one whose worst task
 * exited non-zero or died of a signal of its own failed. */
static const char *step_end_state(int code, int sig, bool cancelled)
{
    if (cancelled)
        return "CANCELLED";
    return sig || code ? "FAILED" : "COMPLETED";
}

void api_step_complete(struct http_req *r)
{
    struct ctld *c = r->ctx;
    struct job *j = api_path_owner_job(r);
    if (!j)
        return;
    int code = (int)json_integer_value(json_object_get(r->body, "exit_code"));
    int sig = (int)json_integer_value(json_object_get(r->body, "signal"));
    char *end;
    long id = strtol(r->args[1], &end, 10);
    size_t i;
    json_t *rec;
    for (struct job_step *s = j->steps; s && !*end; s = s->next)
        if (s->id == id)
            s->ended = true;
    json_array_foreach(j->step_recs, i, rec) {
        if (*end || json_integer_value(json_object_get(rec, "id")) != id)
            continue;
        if (!strcmp(json_string_value(json_object_get(rec, "state")) ?: "", "RUNNING")) {
            bool cancelled = json_is_true(json_object_get(r->body, "cancelled"));
            end_record(rec, step_end_state(code & 0xff, sig & 0x7f, cancelled), code & 0xff,
                       sig & 0x7f, ctld_now());
            job_save(c, j);
        }
        http_reply(r, 200, NULL);
        return;
    }
    http_reply_error(r, 404, ESLURM_INVALID_JOB_ID, "Invalid job step id specified");
}

/* A step's layout names its nodes, ports and GPUs: for its job's owner,
 * and root (the node agents that start its tasks). */
void api_step_show(struct http_req *r)
{
    struct ctld *c = r->ctx;
    struct job *j = api_path_owner_job(r);
    if (!j || !job_runs(r, j))
        return;
    char *end;
    long id = strtol(r->args[1], &end, 10);
    const struct job_step *s = j->steps;
    while (s && (*end || s->id != id))
        s = s->next;
    if (!s)
        http_reply_error(r, 404, ESLURM_INVALID_JOB_ID, "Invalid job step id specified");
    else
        http_reply(r, 200, step_json(c, j, s));
}

json_t *step_running_json(const struct job *j)
{
    json_t *out = json_array();
    size_t i;
    json_t *rec;
    json_array_foreach(j->step_recs, i, rec) {
        const char *st = json_string_value(json_object_get(rec, "state"));
        if (st && !strcmp(st, "RUNNING"))
            json_array_append(out, rec);
    }
    return out;
}
