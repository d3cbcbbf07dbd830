/*
 * job: the job record, built from a submission or from the store, shown as
 * JSON, and moved through its states. A job's request shape (struct
 * sched_job) is derived once from its spec; the spec is kept as submitted,
 * without the script and environment, which live only in the store.
 */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/conf.h"
#include "common/hostlist.h"
#include "common/log.h"
#include "common/rawstr.h"
#include "common/timefmt.h"
#include "common/xmalloc.h"
#include "ctld/array.h"
#include "ctld/ctld.h"
#include "ctld/job_pool.h"
#include "ctld/gpu_live.h"
#include "ctld/depend.h"
#include "ctld/preempt.h"
#include "ctld/prio.h"
#include "ctld/resv.h"
#include "ctld/step.h"
#include "ctld/store.h"
#include "ctld/suspend.h"
#include "common/slurm_errno.h"

static const char *state_names[] = {
    [JOB_PENDING] = "PENDING",     [JOB_RUNNING] = "RUNNING",
    [JOB_COMPLETED] = "COMPLETED", [JOB_FAILED] = "FAILED",
    [JOB_CANCELLED] = "CANCELLED", [JOB_TIMEOUT] = "TIMEOUT",
    [JOB_NODE_FAIL] = "NODE_FAIL", [JOB_OUT_OF_MEMORY] = "OUT_OF_MEMORY",
    [JOB_PREEMPTED] = "PREEMPTED", [JOB_SUSPENDED] = "SUSPENDED",
};

const char *job_state_name(enum job_state s)
{
    return state_names[s];
}

int job_state_parse(const char *s)
{
    for (size_t i = 0; s && i < sizeof state_names / sizeof *state_names; i++)
        if (strcmp(s, state_names[i]) == 0)
            return (int)i;
    return -1;
}

bool job_is_finished(const struct job *j)
{
    return j->state != JOB_PENDING && j->state != JOB_RUNNING && j->state != JOB_SUSPENDED;
}

bool job_holds_alloc(const struct job *j)
{
    return j->state == JOB_RUNNING || j->state == JOB_SUSPENDED;
}

size_t job_first_at(const struct ctld *c, uint64_t from)
{
    size_t lo = 0, hi = c->njobs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->jobs[mid]->id < from)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

struct job *job_find(struct ctld *c, uint64_t id)
{
    size_t at = job_first_at(c, id);
    return at < c->njobs && c->jobs[at]->id == id ? c->jobs[at] : NULL;
}

void job_insert(struct ctld *c, struct job *j)
{
    if (c->njobs == c->capjobs) {
        c->capjobs = c->capjobs ? c->capjobs * 2 : 1024;
        c->jobs = xrealloc(c->jobs, c->capjobs * sizeof *c->jobs);
    }
    size_t i = c->njobs;
    while (i > 0 && c->jobs[i - 1]->id > j->id) {   /* only at load can ids arrive unsorted */
        c->jobs[i] = c->jobs[i - 1];
        i--;
    }
    c->jobs[i] = j;
    c->njobs++;
    job_count_note(c, j);
    job_holding_note(c, j);   /* one loaded running */
}

void job_purge(struct ctld *c, int64_t ended_before)
{
    size_t keep = 0;
    struct job *j;
    JOB_FOREACH(c, j) {
        if (job_is_finished(j) && j->end_time < ended_before)
            job_destroy(j);
        else
            c->jobs[keep++] = j;
    }
    c->njobs = keep;
}

void job_destroy_all(struct ctld *c)
{
    for (size_t i = 0; i < c->njobs; i++)
        job_destroy(c->jobs[i]);
    job_holding_clear(c);
    free(c->jobs);
    c->jobs = NULL;
    c->njobs = c->capjobs = 0;
}

void job_destroy(struct job *j)
{
    if (!j)
        return;
    job_spec_free(j);
    json_decref(j->usage);
    gpu_live_free(j);
    intern_release(j->user_name);
    intern_release(j->name);
    free((size_t *)j->req.req_nodes);
    free((size_t *)j->req.excl_nodes);
    intern_release(j->req.gpu_type);
    free(j->allocs);
    free(j->reason_text);
    array_free(j->array);
    depend_free(j->deps);
    step_free_all(j->steps);
    json_decref(j->step_recs);
    free(j->preempt);
    job_pool_put(j);
}

/* ---- reading a spec ---- */

struct parse {
    int status, code;
    char *err;
    size_t errlen;
    bool failed;
    bool submit;     /* a new submission: today's limits (MaxArraySize) apply */
};

static void fail(struct parse *p, int status, int code, const char *fmt, const char *arg)
{
    if (p->failed)
        return;
    p->failed = true;
    p->status = status;
    p->code = code;
    snprintf(p->err, p->errlen, fmt, arg);
}

static int64_t get_int(struct parse *p, json_t *spec, const char *key, int64_t def, int64_t min,
                       int64_t max)
{
    json_t *v = json_object_get(spec, key);
    if (!v || json_is_null(v))
        return def;
    if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max) {
        fail(p, 400, SLURM_ERROR, "Invalid value for %s", key);
        return def;
    }
    return json_integer_value(v);
}

static const char *get_str(struct parse *p, json_t *spec, const char *key)
{
    json_t *v = json_object_get(spec, key);
    if (!v || json_is_null(v))
        return NULL;
    if (!json_is_string(v)) {
        fail(p, 400, SLURM_ERROR, "Invalid value for %s", key);
        return NULL;
    }
    return json_string_value(v);
}

/* A node list of the spec as indices; *n = count. */
static size_t *node_indices(struct ctld *c, struct parse *p, const char *expr, size_t *n)
{
    *n = 0;
    if (!expr || !*expr)
        return NULL;
    struct hostlist *hl = hostlist_create(expr);
    if (!hl) {
        fail(p, 400, ESLURM_INVALID_NODE_NAME, "Invalid node name specified", NULL);
        return NULL;
    }
    hostlist_uniq(hl);
    size_t *idx = xcalloc(hostlist_count(hl), sizeof *idx);
    for (size_t i = 0; i < hostlist_count(hl); i++) {
        struct node *nd = node_find(c, hostlist_nth(hl, i));
        if (!nd) {
            fail(p, 400, ESLURM_INVALID_NODE_NAME, "Invalid node name specified", NULL);
            break;
        }
        idx[(*n)++] = node_index(c, nd);
    }
    hostlist_destroy(hl);
    return idx;
}

static void parse_partition(struct ctld *c, struct parse *p, struct job *j, json_t *spec)
{
    const char *pname = get_str(p, spec, "partition");
    const struct conf_part *cp = pname && *pname ? conf_part_find(c->conf, pname)
                                                 : conf_part_default(c->conf);
    if (!cp) {
        if (pname && *pname)
            fail(p, 400, ESLURM_INVALID_PARTITION_NAME, "Invalid partition name specified", NULL);
        else
            fail(p, 400, ESLURM_DEFAULT_PARTITION_NOT_SET,
                 "No partition specified or system default partition", NULL);
        return;
    }
    j->part = (size_t)(cp - c->conf->parts);
}

static void parse_shape(struct ctld *c, struct parse *p, struct job *j, json_t *spec)
{
    struct sched_job *r = &j->req;
    const int64_t big = 1 << 30;
    r->job_id = j->id;
    r->part = j->part;
    r->min_nodes = (int)get_int(p, spec, "nodes", 1, 1, big);
    r->ntasks = (int)get_int(p, spec, "ntasks", 0, 0, big);
    r->cpus_per_task = (int)get_int(p, spec, "cpus_per_task", 1, 1, big);
    r->ntasks_per_node = (int)get_int(p, spec, "ntasks_per_node", 0, 0, big);
    r->mem_per_node_mb = (uint64_t)get_int(p, spec, "mem_per_node_mb", 0, 0, INT64_MAX);
    r->mem_per_cpu_mb = (uint64_t)get_int(p, spec, "mem_per_cpu_mb", 0, 0, INT64_MAX);
    r->mem_per_gpu_mb = (uint64_t)get_int(p, spec, "mem_per_gpu_mb", 0, 0, INT64_MAX);
    if (!r->mem_per_node_mb && !r->mem_per_cpu_mb && !r->mem_per_gpu_mb)
        r->mem_per_cpu_mb = c->conf->def_mem_per_cpu;
    r->gpus = (int)get_int(p, spec, "gpus", 0, 0, big);
    r->gpus_per_node = (int)get_int(p, spec, "gpus_per_node", 0, 0, big);
    const char *gt = get_str(p, spec, "gpu_type");
    r->gpu_type = gt && *gt ? intern(gt) : NULL;
    job_gpus_shape(r, spec);
    r->exclusive = json_is_true(json_object_get(spec, "exclusive"));
    r->req_nodes = node_indices(c, p, get_str(p, spec, "req_nodes"), &r->nreq_nodes);
    r->excl_nodes = node_indices(c, p, get_str(p, spec, "exc_nodes"), &r->nexcl_nodes);
    j->requeue = json_is_true(json_object_get(spec, "requeue"));
}

static void parse_time_limit(struct ctld *c, struct parse *p, struct job *j, json_t *spec)
{
    const struct conf_part *cp = &c->conf->parts[j->part];
    int64_t t = get_int(p, spec, "time_limit", -1, -1, INT32_MAX);
    if (t < 0)
        t = cp->default_time_min >= 0 ? cp->default_time_min : cp->max_time_min;
    j->time_limit = t;
    j->req.time_limit_min = t;
}

/* The submitter's name. The last answer is kept for a minute: reading the
 * password database (a file open, read and close) was a tenth of a bulk
 * submission's cost, for the same user each time. */
static char *owner_name(uid_t uid)
{
    static uid_t last_uid;
    static char last[256];
    static int64_t last_at = -1;
    int64_t now = ctld_now();
    if (last_at < 0 || uid != last_uid || now - last_at > 60) {
        struct passwd pw, *res = NULL;
        char tmp[4096];
        if (getpwuid_r(uid, &pw, tmp, sizeof tmp, &res) == 0 && res)
            snprintf(last, sizeof last, "%s", pw.pw_name);
        else
            snprintf(last, sizeof last, "%u", (unsigned)uid);
        last_uid = uid;
        last_at = now;
    }
    return xstrdup(last);
}

/* What every job, new or reloaded, is built from. */
static struct job *job_parse(struct ctld *c, json_t *spec, uint64_t id, struct parse *p)
{
    struct job *j = job_pool_get();
    j->id = id;
    j->end_node = -1;
    parse_partition(c, p, j, spec);
    if (!p->failed)
        parse_shape(c, p, j, spec);
    if (!p->failed)
        parse_time_limit(c, p, j, spec);
    const char *name = get_str(p, spec, "name");
    j->name = intern(name && *name ? name : "sbatch");
    j->begin_time = get_int(p, spec, "begin_time", 0, 0, INT64_MAX);
    j->alloc_only = json_is_true(json_object_get(spec, "allocation"));
    j->deadline = get_int(p, spec, "deadline", 0, 0, INT64_MAX);
    if (!p->failed && array_parse(c, j, spec, p->submit, p->err, p->errlen) < 0) {
        p->failed = true;   /* array_parse wrote the message */
        p->status = 400;
        p->code = ESLURM_INVALID_ARRAY;
    }
    if (!p->failed && depend_parse(c, j, spec, p->submit, p->err, p->errlen) < 0) {
        p->failed = true;
        p->status = 400;
        p->code = ESLURM_DEPENDENCY;
    }
    if (!p->failed && resv_job_parse(c, j, spec, p->submit, &p->code, p->err, p->errlen) < 0) {
        p->failed = true;
        p->status = 400;
    }
    if (p->failed) {
        job_destroy(j);
        return NULL;
    }
    job_spec_set(j, spec);
    j->reason = SCHED_NONE;
    j->start_estimate = -1;
    return j;
}

static bool spec_has_script(json_t *spec)
{
    const char *s = json_string_value(json_object_get(spec, "script"));
    json_t *env = json_object_get(spec, "environment");
    if (!s || !*s || (env && !json_is_array(env)))
        return false;
    size_t i;
    json_t *v;
    json_array_foreach(env, i, v) if (!json_is_string(v)) return false;
    return true;
}

/* SchedulerParameters=max_script_size, counted in the script's bytes (its
 * encoded text is never shorter, so most scripts need no count). */
static bool script_too_large(const struct ctld *c, json_t *spec)
{
    const char *s = json_string_value(json_object_get(spec, "script"));
    int64_t max = conf_max_script_size(c->conf);
    return s && strlen(s) > (size_t)max && rawstr_decoded_len(s) > (size_t)max;
}

/* Whether some node has the feature (Features= "a,b"). */
static bool feature_known(const struct conf *conf, const char *name, size_t len)
{
    for (size_t i = 0; i < conf->nnodes; i++) {
        const char *f = conf->nodes[i].features;
        while (f && *f) {
            size_t n = strcspn(f, ",");
            if (n == len && !strncmp(f, name, len))
                return true;
            f += n + (f[n] == ',');
        }
    }
    return false;
}

/* Slurm refuses a constraint naming a feature no node has ("Invalid
 * feature specification") before it asks whether the job fits; the words
 * are what lies between the operators of "a&b|c", "[a*2&b]", "!a" (an
 * all-digit word is a count). */
static bool constraint_known(const struct conf *conf, const char *expr)
{
    const char *ops = "&|,[]()!* ";
    while (expr && *expr) {
        expr += strspn(expr, ops);
        size_t n = strcspn(expr, ops);
        if (n && strspn(expr, "0123456789") < n && !feature_known(conf, expr, n))
            return false;
        expr += n;
    }
    return true;
}

static void check_feasible(struct ctld *c, struct parse *p, struct job *j)
{
    if (!constraint_known(c->conf, j->req.constraint)) {
        fail(p, 400, ESLURM_INVALID_FEATURE, "Invalid feature specification", NULL);
        return;
    }
    struct sched_input in;
    ctld_sched_input_fill(c, &in);
    enum sched_reason r = sched_feasible(&in, &j->req);
    ctld_sched_input_free(&in);
    if (r == SCHED_PART_TIME_LIMIT)
        fail(p, 400, ESLURM_INVALID_TIME_LIMIT,
             "Requested time limit is invalid (missing or exceeds some limit)", NULL);
    else if (r != SCHED_NONE)
        fail(p, 400, ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE,
             "Requested node configuration is not available", NULL);
}

struct job *job_from_spec(struct ctld *c, json_t *spec, uint64_t id, uid_t uid, gid_t gid,
                          int *status, int *code, char *err, size_t errlen)
{
    struct parse p = { .err = err, .errlen = errlen, .submit = true };
    char *user = owner_name(uid);
    /* as Slurm: a job without --account is charged to, and shows, the
     * user's default account */
    const char *account = json_string_value(json_object_get(spec, "account"));
    const char *dflt = account && *account ? NULL : prio_default_account(c, user, uid);
    if (dflt)
        json_object_set_new(spec, "account", json_string(dflt));
    if (!json_is_true(json_object_get(spec, "allocation")) && !spec_has_script(spec))
        fail(&p, 400, ESLURM_JOB_SCRIPT_MISSING, "Batch script is empty or invalid%s", "");
    if (script_too_large(c, spec))   /* Slurm's words for it */
        fail(&p, 400, ESLURM_PATHNAME_TOO_LONG,
             "Pathname of a file, directory or other parameter too long%s", "");
    struct job *j = p.failed ? NULL : job_parse(c, spec, id, &p);
    /* as slurmctld's validate_job_create_req: only an operator may raise a
     * job's priority with a negative nice */
    if (j && j->nice < 0 && uid != 0)
        fail(&p, 400, ESLURM_INVALID_NICE, "Invalid --nice value%s", "");
    if (j)
        check_feasible(c, &p, j);
    if (j && !p.failed && resv_job_access(c, j, user, &p.code, err, errlen) < 0) {
        p.failed = true;
        p.status = 400;
    }
    if (p.failed) {
        job_destroy(j);
        free(user);
        *status = p.status;
        *code = p.code;
        return NULL;
    }
    j->uid = uid;
    j->gid = gid;
    j->user_name = intern(user);
    free(user);
    j->state = JOB_PENDING;
    j->submit_time = ctld_now();
    j->req.held_user = json_is_true(json_object_get(spec, "hold"));
    return j;
}

/* ---- records ---- */

static json_t *allocs_json(const struct ctld *c, const struct job *j)
{
    json_t *a = json_array();
    for (size_t i = 0; i < j->nallocs; i++) {
        const struct sched_alloc *al = &j->allocs[i];
        json_array_append_new(a, json_pack("{s:s, s:i, s:I, s:I}", "node",
                                           c->conf->nodes[al->node].name, "cpus", al->cpus,
                                           "mem_mb", (json_int_t)al->mem_mb, "gpu_mask",
                                           (json_int_t)al->gpu_mask));
    }
    return a;
}

/* The record less its spec, which the store writes beside it as text. */
static json_t *record_rest(const struct ctld *c, const struct job *j)
{
    json_t *rec =  json_pack("{s:i, s:i, s:s, s:s, s:s, s:I, s:I, s:I, s:i, s:i, s:o, s:b, s:b}",
                     "uid", (int)j->uid, "gid", (int)j->gid, "user_name",
                     j->user_name, "state", job_state_name(j->state), "reason",
                     sched_reason_name(j->reason), "submit_time", (json_int_t)j->submit_time,
                     "start_time", (json_int_t)j->start_time, "end_time",
                     (json_int_t)j->end_time, "exit_code", j->exit_code, "exit_signal",
                     j->exit_signal, "allocs", allocs_json(c, j), "held_user",
                     j->req.held_user, "held_admin", j->req.held_admin);
    if (j->restarts)
        json_object_set_new(rec, "restarts", json_integer(j->restarts));
    if (j->nallocs)   /* the billing TRES sacct shows: what fair share charges a second */
        json_object_set_new(rec, "billing", json_real(usage_job_rate(c, prio_get(c), j)));
    if (j->begin_time)   /* a requeue moves it past the spec's */
        json_object_set_new(rec, "begin_time", json_integer(j->begin_time));
    if (j->requeue_held)
        json_object_set_new(rec, "requeue_held", json_true());
    if (j->end_assumed)
        json_object_set_new(rec, "end_assumed", json_true());
    if (j->extern_step)
        json_object_set_new(rec, "extern_step", json_true());
    if (j->stale_kill_at)
        json_object_set_new(rec, "stale_kill_at", json_integer(j->stale_kill_at));
    preempt_record(j, rec);
    if (j->next_step)
        json_object_set_new(rec, "next_step", json_integer(j->next_step));
    if (j->step_recs)
        json_object_set(rec, "steps", j->step_recs);
    if (j->usage)
        json_object_set(rec, "usage", j->usage);
    array_record_add(j, rec);
    depend_record_add(j, rec);
    suspend_record_add(j, rec);
    gpu_live_record_add(j, rec);
    resv_job_json(c, j, rec);
    /* for accounting (sacct): what the job was, as resolved at submission */
    json_object_update_new(rec, json_pack("{s:s, s:s, s:I, s:i}", "name", j->name, "partition",
                                          c->conf->parts[j->part].name, "time_limit",
                                          (json_int_t)j->time_limit, "cancelled_by",
                                          (int)j->cancelled_by));
    return rec;
}

json_t *job_record(const struct ctld *c, const struct job *j)
{
    json_t *rec = record_rest(c, j);
    json_object_set_new(rec, "spec", job_spec(c, j));
    return rec;
}

void job_save(struct ctld *c, struct job *j)
{
    json_t *rec = record_rest(c, j);
    store_job_save(c->store, j->id, (int)j->state, j->end_time, rec, j->spec);
    json_decref(rec);
    free(j->spec);   /* stored: job_spec reads it from there */
    j->spec = NULL;
}

static void restore_allocs(struct ctld *c, struct job *j, json_t *allocs)
{
    size_t i;
    json_t *a;
    j->allocs = xcalloc(json_array_size(allocs) + 1, sizeof *j->allocs);
    json_array_foreach(allocs, i, a) {
        struct node *n = node_find(c, json_string_value(json_object_get(a, "node")));
        if (!n)
            continue;
        struct sched_alloc *al = &j->allocs[j->nallocs++];
        al->node = node_index(c, n);
        al->cpus = (int)json_integer_value(json_object_get(a, "cpus"));
        al->mem_mb = (uint64_t)json_integer_value(json_object_get(a, "mem_mb"));
        al->gpu_mask = (uint64_t)json_integer_value(json_object_get(a, "gpu_mask"));
    }
}

struct job *job_from_record(struct ctld *c, json_t *rec, uint64_t id, char *err, size_t errlen)
{
    struct parse p = { .err = err, .errlen = errlen };
    json_t *spec = json_object_get(rec, "spec");
    int st = job_state_parse(json_string_value(json_object_get(rec, "state")));
    if (!json_is_object(spec) || st < 0) {
        snprintf(err, errlen, "malformed record");
        return NULL;
    }
    struct job *j = job_parse(c, spec, id, &p);
    if (!j)
        return NULL;
    j->uid = (uid_t)json_integer_value(json_object_get(rec, "uid"));
    j->gid = (gid_t)json_integer_value(json_object_get(rec, "gid"));
    const char *un = json_string_value(json_object_get(rec, "user_name"));
    j->user_name = intern(un ? un : "?");
    j->state = (enum job_state)st;
    j->submit_time = json_integer_value(json_object_get(rec, "submit_time"));
    j->start_time = json_integer_value(json_object_get(rec, "start_time"));
    j->end_time = json_integer_value(json_object_get(rec, "end_time"));
    j->exit_code = (int)json_integer_value(json_object_get(rec, "exit_code"));
    j->exit_signal = (int)json_integer_value(json_object_get(rec, "exit_signal"));
    j->req.held_user = json_is_true(json_object_get(rec, "held_user"));
    j->req.held_admin = json_is_true(json_object_get(rec, "held_admin"));
    j->restarts = (int)json_integer_value(json_object_get(rec, "restarts"));
    if (json_integer_value(json_object_get(rec, "begin_time")) > j->begin_time)
        j->begin_time = json_integer_value(json_object_get(rec, "begin_time"));
    j->requeue_held = json_is_true(json_object_get(rec, "requeue_held"));
    j->end_assumed = json_is_true(json_object_get(rec, "end_assumed"));
    j->extern_step = json_is_true(json_object_get(rec, "extern_step"));
    j->stale_kill_at = json_integer_value(json_object_get(rec, "stale_kill_at"));
    preempt_from_record(j, rec);
    j->next_step = (int)json_integer_value(json_object_get(rec, "next_step"));
    json_t *steps = json_object_get(rec, "steps");
    j->step_recs = json_is_array(steps) ? json_deep_copy(steps) : NULL;
    j->cancelled_by = (uid_t)json_integer_value(json_object_get(rec, "cancelled_by"));
    json_t *usage = json_object_get(rec, "usage");
    j->usage = json_is_object(usage) ? json_incref(usage) : NULL;
    if (j->state != JOB_PENDING)
        restore_allocs(c, j, json_object_get(rec, "allocs"));
    array_record_read(j, rec);
    depend_record_read(c, j, rec);
    suspend_record_read(j, rec);
    gpu_live_record_read(j, rec);
    if (json_integer_value(json_object_get(rec, "reservation_id")) > 0)   /* by id: names recur */
        j->resv_id = (uint32_t)json_integer_value(json_object_get(rec, "reservation_id"));
    return j;
}

struct load {
    struct ctld *c;
    char err[256];
};

static void load_one(uint64_t id, json_t *rec, void *arg)
{
    struct load *l = arg;
    struct job *j = rec ? job_from_record(l->c, rec, id, l->err, sizeof l->err) : NULL;
    if (!j) {
        log_warnx("state database: job %llu not loaded: %s", (unsigned long long)id,
                  rec ? l->err : "unreadable record");
        return;
    }
    free(j->spec);   /* as read from the store, which keeps it */
    j->spec = NULL;
    job_insert(l->c, j);
    depend_track(l->c, j);
}

void job_load_all(struct ctld *c, int64_t since)
{
    struct load l = { .c = c };
    c->next_job_id = store_load_jobs(c->store, since, load_one, &l);
}

/* ---- JSON for clients ---- */

char *job_node_list(const struct ctld *c, const struct job *j)
{
    struct hostlist *hl = hostlist_create("");
    for (size_t i = 0; i < j->nallocs; i++)
        hostlist_push(hl, c->conf->nodes[j->allocs[i].node].name);
    char *s = hostlist_ranged_string(hl);
    hostlist_destroy(hl);
    return s;
}

static json_t *gpus_json(const struct ctld *c, const struct job *j, int *total_cpus)
{
    json_t *g = json_object();
    *total_cpus = 0;
    for (size_t i = 0; i < j->nallocs; i++) {
        const struct sched_alloc *al = &j->allocs[i];
        json_t *idx = json_array();
        for (int b = 0; b < SCHED_MAX_GPUS; b++)
            if (al->gpu_mask & (1ULL << b))
                json_array_append_new(idx, json_integer(b));
        json_object_set_new(g, c->conf->nodes[al->node].name, idx);
        *total_cpus += al->cpus;
    }
    return g;
}

enum sched_reason job_wait_reason(const struct ctld *c, const struct job *j, int64_t now)
{
    if (j->req.held_admin)
        return SCHED_HELD_ADMIN;
    if (j->req.held_user)
        return SCHED_HELD_USER;
    enum sched_reason d = depend_reason(c, j, now);
    if (d != SCHED_NONE)
        return d;
    if (j->begin_time > now)
        return SCHED_BEGIN_TIME;
    return resv_job_wait(c, j, now);
}

/* A job the pass skips (held, --begin, dependencies) is explained from its
 * wait reason now; the others by the last pass. */
static const char *wait_text(const struct ctld *c, const struct job *j, char *buf, size_t len)
{
    enum sched_reason w = job_wait_reason(c, j, ctld_now());
    if (w == SCHED_NONE)
        return j->reason_text ? j->reason_text : "";
    struct sched_input in = { .parts = c->sparts, .nparts = c->conf->nparts };
    sched_explain(&in, &j->req, w, buf, len);
    return buf;
}

const char *job_reason_name(const struct ctld *c, const struct job *j)
{
    /* held and not-yet-eligible jobs: at once, not at the next pass */
    enum sched_reason w = j->state == JOB_PENDING ? job_wait_reason(c, j, ctld_now()) : SCHED_NONE;
    if (j->requeue_held && (w == SCHED_HELD_USER || w == SCHED_HELD_ADMIN))
        return "job_requeued_in_held_state";
    if (w != SCHED_NONE)
        return sched_reason_name(w);
    if (j->state == JOB_PENDING && array_throttled(c, j))
        return "JobArrayTaskLimit";   /* Slurm's reason; the scheduler never saw these tasks */
    if (j->state == JOB_PENDING && j->reason == SCHED_LIMIT && j->limit_reason)
        return j->limit_reason;
    if (j->state == JOB_PENDING)
        return sched_reason_name(j->reason == SCHED_NONE ? SCHED_PRIORITY : j->reason);
    if (j->state == JOB_NODE_FAIL)
        return "NodeDown";
    if (j->state == JOB_TIMEOUT)
        return "TimeLimit";
    if (j->state == JOB_FAILED && j->exit_signal)
        return "JobLaunchFailure";   /* Slurm 22.05's words for a shell killed by a signal */
    if (j->state == JOB_FAILED)
        return "NonZeroExitCode";
    return "None";
}

json_t *job_to_json(const struct ctld *c, const struct job *j)
{
    json_t *o = job_spec(c, j);
    char wbuf[256];
    int cpus = 0;
    char *nl = job_node_list(c, j);
    json_t *gpus = gpus_json(c, j, &cpus);
    if (j->state == JOB_PENDING) {
        const struct sched_job *r = &j->req;
        int tasks = r->ntasks ? r->ntasks : (r->ntasks_per_node ? r->ntasks_per_node : 1) * r->min_nodes;
        /* as asked: Slurm counts --cpus-per-gpu's CPUs only once they are allocated */
        json_t *cpt = json_object_get(o, "cpus_per_task");
        cpus = tasks * (json_is_integer(cpt) ? (int)json_integer_value(cpt) : 1);
    }
    json_t *fields = json_pack(
        "{s:I, s:i, s:i, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:s, s:i, s:i, s:o, s:i,"
        " s:i, s:I, s:b}",
        "job_id", (json_int_t)j->id, "user_id", (int)j->uid, "group_id", (int)j->gid,
        "user_name", j->user_name, "name", j->name, "partition", c->conf->parts[j->part].name,
        "state", job_state_name(j->state), "reason", job_reason_name(c, j), "submit_time",
        (json_int_t)j->submit_time, "start_time", (json_int_t)j->start_time, "end_time",
        (json_int_t)j->end_time, "time_limit", (json_int_t)j->time_limit, "node_list", nl,
        "num_nodes", j->nallocs ? (int)j->nallocs : j->req.min_nodes, "num_cpus", cpus,
        "gpus_alloc", gpus, "exit_code", j->exit_code, "exit_signal", j->exit_signal, "priority",
        (json_int_t)(j->priority ? j->priority : 4294901760ULL - j->id), "hold", j->req.held_user);
    json_object_update(o, fields);
    json_decref(fields);
    json_object_set_new(o, "qos", json_string(prio_job_qos(c, j)));   /* Slurm's QOS=normal */
    if (j->usage)
        json_object_set(o, "usage", j->usage);
    if (j->state == JOB_PENDING) {
        json_object_set_new(o, "start_estimate", json_integer(j->start_estimate));
        json_object_set_new(o, "reason_text", json_string(wait_text(c, j, wbuf, sizeof wbuf)));
    }
    json_object_set_new(o, "held_admin", json_boolean(j->req.held_admin));
    json_object_set_new(o, "restarts", json_integer(j->restarts));
    preempt_job_json(c, j, o);
    gpu_live_json(j, o);
    if (j->begin_time)   /* the spec's, or a requeue's later one */
        json_object_set_new(o, "begin_time", json_integer(j->begin_time));
    /* squeue -s and scontrol show step list a running job's steps */
    json_object_set_new(o, "extern_step", json_boolean(j->extern_step));
    if (j->step_recs && job_holds_alloc(j))
        json_object_set_new(o, "steps", step_running_json(j));
    array_json_add(j, o);
    suspend_json_add(j, o);
    resv_job_json(c, j, o);
    char *dep = depend_str(c, j, ctld_now());
    json_object_set_new(o, "dependency", dep ? json_string(dep) : json_null());
    free(dep);
    free(nl);
    return o;
}

/* ---- transitions ---- */

/* Who hears of a job's changes: the rows main.c registers at start-up
 * (scheduler, node agents, waiters, dependencies; limits, metrics and
 * preemption later), walked in that order. Each row decides for itself
 * which events concern it; a new concern is a new row, not a call added to
 * every transition, and the model names none of them. */
void job_listen(struct ctld *c, const char *name, job_listener_fn fn)
{
    if (c->nlisteners == sizeof c->listeners / sizeof *c->listeners)
        fatalx("job listener %s: the table is full", name);
    c->listeners[c->nlisteners++] = (struct job_listener){ name, fn };
}

/* After every change, once the job is whole and saved. */
static void job_changed(struct ctld *c, struct job *j, enum job_event ev)
{
    for (size_t i = 0; i < c->nlisteners; i++)
        c->listeners[i].fn(c, j, ev);
}

void job_submitted(struct ctld *c, struct job *j)
{
    job_save(c, j);
    job_insert(c, j);
    job_changed(c, j, JOB_SUBMITTED);
}

void job_updated(struct ctld *c, struct job *j)
{
    job_save(c, j);
    job_changed(c, j, JOB_UPDATED);
}

void job_start(struct ctld *c, struct job *j, const struct sched_alloc *allocs, size_t nallocs)
{
    free(j->allocs);
    j->allocs = xcalloc(nallocs, sizeof *j->allocs);
    memcpy(j->allocs, allocs, nallocs * sizeof *j->allocs);
    j->nallocs = nallocs;
    j->state = JOB_RUNNING;
    j->reason = SCHED_NONE;
    free(j->reason_text);
    j->reason_text = NULL;
    j->start_time = ctld_now();
    j->launch = j->alloc_only ? LAUNCH_ACKED : LAUNCH_NONE;   /* nothing to send a node */
    j->end_node = -1;          /* a new run: no agent has reported its end */
    j->extern_step = c->conf->prolog_contain;
    c->stats.started++;
    job_holding_note(c, j);
    job_save(c, j);
    log_info("job %llu starts on %s", (unsigned long long)j->id,
             c->conf->nodes[j->allocs[0].node].name);
    job_changed(c, j, JOB_STARTED);
}

void job_end(struct ctld *c, struct job *j, enum job_state st, int exit_code, int exit_signal,
             int64_t when)
{
    /* a job that ends suspended: its run time stopped at the suspension */
    bool was_suspended = j->state == JOB_SUSPENDED;
    j->state = st;
    j->exit_code = exit_code;
    j->exit_signal = exit_signal;
    j->end_time = when ? when : ctld_now();
    if (was_suspended)
        j->suspended_s += j->end_time > j->suspend_time ? j->end_time - j->suspend_time : 0;
    if (!j->start_time)
        j->start_time = j->end_time;
    j->reason = SCHED_NONE;
    step_records_close(j);
    gpu_live_finish(j);
    /* allocs stay: they say where it ran; only running jobs hold resources */
    job_holding_note(c, j);
    job_save(c, j);
    if (st == JOB_COMPLETED)
        c->stats.completed++;
    else if (st == JOB_CANCELLED)
        c->stats.canceled++;
    else
        c->stats.failed++;
    log_info("job %llu ended %s (%d:%d)", (unsigned long long)j->id, job_state_name(st),
             exit_code, exit_signal);
    job_changed(c, j, JOB_ENDED);
}

void job_requeue(struct ctld *c, struct job *j)
{
    gpu_live_finish(j);
    job_run_keep(c, j);         /* the run that ends here, for sacct -D */
    gpu_live_next_run(j);
    if (job_is_finished(j)) {   /* scontrol requeue of an ended job: its end is undone */
        j->end_time = 0;
        j->exit_code = j->exit_signal = 0;
    }
    j->state = JOB_PENDING;
    j->start_time = 0;
    j->nallocs = 0;
    j->launch = LAUNCH_NONE;
    j->cancel_sent = false;
    j->requeue_pending = false;
    j->end_assumed = false;
    j->stale_kill_at = 0;
    suspend_clear(j);
    j->restarts++;
    job_run_next(c, j);
    job_holding_note(c, j);
    job_save(c, j);
    log_info("job %llu requeued", (unsigned long long)j->id);
    job_changed(c, j, JOB_REQUEUED);
}

void job_suspended(struct ctld *c, struct job *j)
{
    int64_t now = ctld_now();
    j->pre_suspend_s = now - j->start_time - j->suspended_s;
    j->suspend_time = now;
    j->state = JOB_SUSPENDED;
    job_save(c, j);
    log_info("job %llu suspended%s", (unsigned long long)j->id,
             j->yielded_to ? " by a preemption" : "");
    job_changed(c, j, JOB_STOPPED);
}

void job_resumed(struct ctld *c, struct job *j)
{
    int64_t now = ctld_now();
    j->suspended_s += now > j->suspend_time ? now - j->suspend_time : 0;
    j->suspend_time = now;
    j->yielded_to = 0;
    j->state = JOB_RUNNING;
    job_save(c, j);
    log_info("job %llu resumed", (unsigned long long)j->id);
    job_changed(c, j, JOB_RESUMED);
}

int job_respec(struct ctld *c, struct job *j, json_t *spec, int *status, int *code, char *err,
               size_t errlen)
{
    struct parse p = { .err = err, .errlen = errlen };
    struct job *n = job_parse(c, spec, j->id, &p);
    if (n)
        check_feasible(c, &p, n);
    json_t *old = job_spec(c, j);
    json_t *dep_new = json_object_get(spec, "dependency");
    json_t *dep_old = json_object_get(old, "dependency");
    bool dep_changed = (dep_new || dep_old) && !json_equal(dep_new, dep_old);
    json_decref(old);
    if (n && !p.failed && dep_changed && depend_change(c, j, spec, err, errlen) < 0) {
        p.failed = true;
        p.status = 400;
        p.code = ESLURM_DEPENDENCY;
    }
    if (p.failed) {
        job_destroy(n);
        *status = p.status;
        *code = p.code;
        return -1;
    }
    /* n takes the old arrays and strings with it to job_destroy */
    char *spec_old = j->spec;
    const char *acct_old = j->account, *qos_old = j->qos;
    const char *name_old = j->name;
    struct sched_job req_old = j->req;
    bool hu = j->req.held_user, ha = j->req.held_admin;
    j->spec = n->spec;
    j->account = n->account;
    j->qos = n->qos;
    j->nice = n->nice;
    j->name = n->name;
    j->req = n->req;
    j->req.held_user = hu;
    j->req.held_admin = ha;
    j->part = n->part;
    j->time_limit = n->time_limit;
    j->begin_time = n->begin_time;
    j->deadline = n->deadline;
    j->requeue = n->requeue;
    j->resv_id = n->resv_id;
    j->reason = SCHED_NONE;
    j->spec_gen++;
    n->spec = spec_old;
    n->account = acct_old;
    n->qos = qos_old;
    n->name = name_old;
    n->req = req_old;
    job_destroy(n);
    return 0;
}
