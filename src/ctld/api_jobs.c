/*
 * api_jobs: the job half of the route table: submit, list, show, cancel and
 * signal. A submission is answered only once the transaction that holds it
 * has committed.
 */
#include <event2/buffer.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json_fast.h"
#include "common/conf.h"
#include "common/conf_hash.h"
#include "common/http.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "ctld/api.h"
#include "ctld/array.h"
#include "ctld/ctld.h"
#include "ctld/limits.h"
#include "ctld/depend.h"
#include "ctld/job_list.h"
#include "ctld/store.h"
#include "common/slurm_errno.h"

/* Slurm 22.05's text for ESLURM_ERROR_ON_DESC_TO_RECORD_COPY, its answer
 * once MaxJobCount is reached (sbatch then waits and tries again) */
#define MSG_MAX_JOB_COUNT "Unable to create job record, try again"

/* A submission's answer, sent once its transaction has committed. */
struct submitted {
    struct http_req *r;
    json_t *answer;
};

static void submit_answer(void *arg)
{
    struct submitted *s = arg;
    http_reply(s->r, 200, s->answer);
    free(s);
}

/* The environment as the store keeps it. Jobs given it by a bulk
 * request's defaults share one tree: its text is made once. */
struct env_text {
    json_t *env;
    char *text;
};

static const char *env_text_of(struct env_text *e, json_t *env)
{
    if (!e->text || env != e->env) {
        free(e->text);
        e->text = env ? json_fast_dumps(env) : NULL;
        if (!e->text)
            e->text = xstrdup("[]");
        e->env = env;
    }
    return e->text;
}

/* A built job into the queue and the open transaction, with its script
 * and environment (which only the store keeps). The caller stores the
 * next id, once per request. */
static void submit_commit(struct ctld *c, struct job *j, json_t *spec, struct env_text *env)
{
    c->next_job_id = j->id + 1;
    const char *script = json_string_value(json_object_get(spec, "script"));
    store_job_script(c->store, j->id, script ? script : "",
                     env_text_of(env, json_object_get(spec, "environment")));
    job_submitted(c, j);
    log_debug("job %llu submitted by uid %u", (unsigned long long)j->id, (unsigned)j->uid);
}

/* A job built from its spec and within the enforced limits; NULL with
 * the status, code and message of a refusal. */
static struct job *job_admitted(struct ctld *c, json_t *spec, uint64_t id, struct http_req *r,
                                int *status, int *code, char *err, size_t errlen)
{
    struct job *j = job_from_spec(c, spec, id, r->who.uid, r->who.gid, status, code, err,
                                  errlen);
    if (j && limits_admit(c, j, status, code, err, errlen) < 0) {
        job_destroy(j);
        return NULL;
    }
    return j;
}

/* The specs of {"defaults": {...}, "jobs": [spec, ...]}: each job is the
 * defaults with its own keys over them; NULL, answered, if malformed. */
static json_t *bulk_specs(struct http_req *r, json_t *many)
{
    json_t *defs = json_object_get(r->body, "defaults");
    if (defs && !json_is_object(defs)) {
        http_reply_error(r, 400, SLURM_ERROR, "defaults: not an object");
        return NULL;
    }
    if (!defs)
        return json_incref(many);
    json_t *specs = json_array(), *spec;
    size_t i;
    json_array_foreach(many, i, spec) {
        json_t *m = json_copy(defs);   /* shallow: the jobs share the defaults' values */
        if (json_is_object(spec))
            json_object_update(m, spec);
        json_array_append_new(specs, m);
    }
    return specs;
}

/* Whether jobs (n built, an array counting as its tasks) fit under
 * MaxJobCount; when they do not, the refusal in status, code and err. */
static bool count_fits(struct http_req *r, struct job **jobs, size_t n, int *status, int *code,
                       char *err, size_t errlen)
{
    size_t more = 0;
    for (size_t i = 0; i < n; i++)
        more += job_count_of(jobs[i]);
    if (job_count_allows(r->ctx, more))
        return true;
    log_info("submission of %zu jobs by uid %u refused: MaxJobCount=%d reached", more,
             (unsigned)r->who.uid, ((struct ctld *)r->ctx)->conf->max_job_count);
    *status = 400;
    *code = ESLURM_ERROR_ON_DESC_TO_RECORD_COPY;
    snprintf(err, errlen, "%s", MSG_MAX_JOB_COUNT);
    return false;
}

/* Every job is built before any is accepted, so a bad spec, or more jobs
 * than MaxJobCount leaves room for, refuses the request whole (a bad spec
 * named by its index). */
static json_t *submit_many(struct http_req *r, json_t *many)
{
    struct ctld *c = r->ctx;
    json_t *specs = bulk_specs(r, many);
    if (!specs)
        return NULL;
    size_t n = json_array_size(specs), i;
    struct job **jobs = xcalloc(n + 1, sizeof *jobs);
    int status = 400, code = 0;
    char err[512];
    for (i = 0; i < n; i++) {
        jobs[i] = job_admitted(c, json_array_get(specs, i), c->next_job_id + i, r, &status,
                               &code, err, sizeof err);
        if (!jobs[i])
            break;
    }
    json_t *ids = NULL;
    bool fits = i == n && count_fits(r, jobs, n, &status, &code, err, sizeof err);
    if (i < n)
        http_reply_error(r, status, code, "job %zu: %s", i, err);
    else if (!fits)
        http_reply_error(r, status, code, "%s", err);
    if (!fits) {
        while (i > 0)
            job_destroy(jobs[--i]);
    } else {
        struct env_text env = { 0 };
        ids = json_array();
        for (i = 0; i < n; i++) {
            json_array_append_new(ids, json_integer((json_int_t)jobs[i]->id));
            submit_commit(c, jobs[i], json_array_get(specs, i), &env);
        }
        store_set_next_id(c->store, c->next_job_id);
        free(env.text);
    }
    free(jobs);
    json_decref(specs);
    return ids ? json_pack("{s:o}", "job_ids", ids) : NULL;
}

uint64_t api_submit_spec(struct http_req *r, json_t *spec, int *status, int *code, char *err,
                         size_t errlen)
{
    struct ctld *c = r->ctx;
    struct job *j = job_admitted(c, spec, c->next_job_id, r, status, code, err, errlen);
    if (!j)
        return 0;
    if (!count_fits(r, &j, 1, status, code, err, errlen)) {
        job_destroy(j);
        return 0;
    }
    struct env_text env = { 0 };
    submit_commit(c, j, spec, &env);
    store_set_next_id(c->store, c->next_job_id);
    free(env.text);
    c->stats.submitted++;
    return j->id;
}

static json_t *submit_single(struct http_req *r)
{
    int status = 400, code = 0;
    char err[512];
    uint64_t id = api_submit_spec(r, r->body, &status, &code, err, sizeof err);
    if (!id) {
        http_reply_error(r, status, code, "%s", err);
        return NULL;
    }
    return json_pack("{s:I}", "job_id", (json_int_t)id);
}

/* POST /v1/jobs: one spec, or {"jobs": [spec, ...]} (and "defaults") for many in one
 * request. */
void api_submit(struct http_req *r)
{
    struct ctld *c = r->ctx;
    json_t *many = json_object_get(r->body, "jobs");
    json_t *answer = json_is_array(many) ? submit_many(r, many) : submit_single(r);
    if (!answer)
        return;
    struct submitted *s = xmalloc(sizeof *s);
    *s = (struct submitted){ r, answer };
    store_after_commit(c->store, submit_answer, s);
    if (json_is_array(many))   /* a single one is counted by api_submit_spec */
        c->stats.submitted += json_array_size(many);
}

/* The filters of GET /v1/jobs: each a comma list, absent = any. */
struct job_filter {
    char *states, *users, *ids;
    struct api_viewer viewer;   /* PrivateData=jobs: whose jobs the caller reads */
};

static bool in_list(const char *list, const char *item)
{
    size_t n = strlen(item);
    for (const char *p = list; p && *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == n && strncmp(p, item, n) == 0)
            return true;
        p = comma ? comma + 1 : NULL;
    }
    return false;
}

static bool filter_match(const struct ctld *c, const struct job_filter *f, const struct job *j)
{
    char num[24];
    if (!api_viewer_sees_job(c, &f->viewer, j))
        return false;
    if (f->states && !in_list(f->states, job_state_name(j->state)))
        return false;
    if (f->users) {
        snprintf(num, sizeof num, "%u", (unsigned)j->uid);
        if (!in_list(f->users, num))
            return false;
    }
    if (!f->ids)
        return true;
    snprintf(num, sizeof num, "%llu", (unsigned long long)j->id);
    if (in_list(f->ids, num))
        return true;
    /* an array's id names its every task, as in Slurm */
    snprintf(num, sizeof num, "%llu", (unsigned long long)j->array_job_id);
    return j->array_job_id && in_list(f->ids, num);
}

/* The list as it is written: JSON objects (whole, or only `keys`), or TSV rows. */
struct list_out {
    struct evbuffer *buf;
    struct job_keys *keys;
    bool tsv, first;
    size_t matched;
};

static void list_one(struct ctld *c, struct list_out *o, const struct job_filter *f,
                     struct job *j)
{
    if (!filter_match(c, f, j))
        return;
    o->matched++;
    if (o->tsv) {
        job_list_write_tsv(o->buf, c, j, o->keys);
        return;
    }
    if (!o->first)
        evbuffer_add(o->buf, ",", 1);
    o->first = false;
    if (o->keys) {
        job_list_write(o->buf, c, j, o->keys);
        return;
    }
    json_t *obj = job_to_json(c, j);
    char *text = json_dumps(obj, JSON_COMPACT);
    json_decref(obj);
    evbuffer_add(o->buf, text, strlen(text));
    free(text);
}

/* GET /v1/jobs[?states=A,B&users=UID,...&ids=N,...&fields=K,...]: written job
 * by job, so that a queue of 100,000 never becomes one tree in memory;
 * fields: only those keys of each job (what squeue's format shows). */
void api_list(struct http_req *r)
{
    struct ctld *c = r->ctx;
    struct job_filter f = { http_query_get(r, "states"), http_query_get(r, "users"),
                            http_query_get(r, "ids"), {0} };
    api_viewer_init(r, &f.viewer);
    char *fields = http_query_get(r, "fields"), *format = http_query_get(r, "format");
    struct job_keys *keys = fields ? job_keys_parse(fields) : NULL;
    struct list_out o = { evbuffer_new(), keys, keys && format && strcmp(format, "tsv") == 0,
                          true, 0 };
    free(format);
    struct evbuffer *buf = o.buf;
    if (o.tsv)
        job_list_tsv_head(buf, keys, ctld_now());
    else
        evbuffer_add_printf(buf, "{\"now\":%lld,\"jobs\":[", (long long)ctld_now());
    /* one job outside any array (squeue -j ID): found, not searched for */
    struct job *one = f.ids && !strchr(f.ids, ',') ? job_find(c, strtoull(f.ids, NULL, 10)) : NULL;
    if (one && !one->array_job_id)
        list_one(c, &o, &f, one);
    else {
        struct job *j;
        JOB_FOREACH(c, j)
            list_one(c, &o, &f, j);
    }
    size_t matched = o.matched;
    if (!o.tsv)
        evbuffer_add(buf, "]}\n", 3);
    /* one id asked for and none such: as GET /v1/jobs/{id}, and Slurm's squeue -j */
    bool unknown = f.ids && !strchr(f.ids, ',') && matched == 0;
    free(f.states);
    free(f.users);
    free(f.ids);
    api_viewer_free(&f.viewer);
    free(fields);
    job_keys_free(keys);
    if (unknown)
        http_reply_error(r, 404, ESLURM_INVALID_JOB_ID, "Invalid job id specified");
    else
        http_reply_buffer_type(r, 200, buf,
                               o.tsv ? "text/tab-separated-values" : "application/json");
    evbuffer_free(buf);
}

/* The job named by the path, or an answer saying there is none. */
void api_show(struct http_req *r)
{
    struct ctld *c = r->ctx;
    struct job *j = api_path_visible_job(r);
    if (!j)
        return;
    json_t *o = job_to_json(c, j);
    char *want = http_query_get(r, "script");
    char *script = NULL;
    json_t *env = NULL;
    if (want && strcmp(want, "1") == 0 && api_is_owner(r, j) &&
        store_job_script_get(c->store, j->id, &script, &env) == 0) {
        json_object_set_new(o, "script", json_string(script));
        json_object_set_new(o, "environment", env);
        free(script);
    }
    free(want);
    json_t *jobs = json_pack("[o]", o);
    array_tasks_append(c, j, jobs);   /* `scontrol show job ID` shows an array's every task */
    http_reply(r, 200, json_pack("{s:o, s:I}", "jobs", jobs, "now", (json_int_t)ctld_now()));
}

const char *api_cancel_job(struct ctld *c, struct job *j, const struct http_req *r, int sig,
                           int *code)
{
    size_t hit = 0, acted = 0;
    bool pending = j->state == JOB_PENDING;
    array_cancel_record(c, j, r->who.uid, sig, sig_to_of(r->body), &hit, &acted);
    if (acted)
        return NULL;
    *code = sig && pending ? ESLURM_JOB_PENDING : ESLURM_ALREADY_DONE;
    return sig && pending ? "Job is pending execution" : "Job/step already completing or completed";
}

void api_cancel(struct http_req *r)
{
    struct ctld *c = r->ctx;
    if (array_cancel_request(r))   /* a whole array, or some of its tasks */
        return;
    struct job *j = api_path_own_job(r);
    if (!j)
        return;
    int sig = api_signal_arg(r->body), code = 0;
    if (sig < 0) {
        http_reply_error(r, 400, SLURM_ERROR, "Invalid signal");
        return;
    }
    bool pending = j->state == JOB_PENDING;
    const char *why = api_cancel_job(c, j, r, sig, &code);
    if (why) {
        http_reply_error(r, 400, code, "%s", why);
        return;
    }
    if (!sig)
        log_info("job %llu cancelled by uid %u", (unsigned long long)j->id, (unsigned)r->who.uid);
    /* a pending job ended here: answered once its end is stored; a running
     * one at once, its signal on the way to its node */
    if (pending)
        store_after_commit(c->store, api_reply_after_commit, r);
    else
        http_reply(r, 200, NULL);
}

/* Why one job of a bulk cancel was refused, or NULL; *code Slurm's. */
static const char *cancel_refusal(struct ctld *c, struct job *j, const struct http_req *r,
                                  int sig, int *code)
{
    if (!j) {
        *code = ESLURM_INVALID_JOB_ID;
        return "Invalid job id specified";
    }
    if (!api_may_act(r, j)) {
        *code = ESLURM_ACCESS_DENIED;
        return API_MSG_DENIED;
    }
    return api_cancel_job(c, j, r, sig, code);
}

struct cancelled {
    struct http_req *r;
    json_t *errors;
};

static void cancel_many_answer(void *arg)
{
    struct cancelled *x = arg;
    http_reply(x->r, 200, json_pack("{s:o}", "errors", x->errors));
    free(x);
}

/* POST /v1/jobs/cancel {"job_ids": [N, ...], "signal", "batch", "full"}: what
 * `scancel -u USER` (and its other filters) picked, in one request and one
 * commit; answered with the jobs refused: {"errors": [{"job_id", "error",
 * "code"}]}. Each id names the record the job list shows: an array's id its
 * waiting tasks, not the tasks that left it (listed with ids of their own). */
void api_cancel_many(struct http_req *r)
{
    struct ctld *c = r->ctx;
    json_t *ids = json_object_get(r->body, "job_ids"), *v;
    int sig = api_signal_arg(r->body);
    if (!json_is_array(ids)) {
        http_reply_error(r, 400, SLURM_ERROR, "job_ids: not a list");
        return;
    }
    if (sig < 0) {
        http_reply_error(r, 400, SLURM_ERROR, "Invalid signal");
        return;
    }
    struct cancelled *x = xmalloc(sizeof *x);
    *x = (struct cancelled){ r, json_array() };
    size_t i;
    json_array_foreach(ids, i, v) {
        int code = 0;
        json_int_t id = json_is_integer(v) ? json_integer_value(v) : 0;
        struct job *j = id > 0 ? job_find(c, (uint64_t)id) : NULL;
        const char *why = cancel_refusal(c, j, r, sig, &code);
        if (why)
            json_array_append_new(x->errors, json_pack("{s:O, s:s, s:i}", "job_id", v, "error",
                                                       why, "code", code));
    }
    if (json_array_size(ids) > json_array_size(x->errors))
        log_info("%zu jobs cancelled or signalled by uid %u",
                 json_array_size(ids) - json_array_size(x->errors), (unsigned)r->who.uid);
    store_after_commit(c->store, cancel_many_answer, x);
}

void api_ping(struct http_req *r)
{
    struct ctld *c = r->ctx;
    /* scontrol show config prints NEXT_JOB_ID and BOOT_TIME from here; herd
     * doctor compares "now" with its own clock (MUNGE credentials expire)
     * and, asking ?conf_hash=1, its files with the controller's */
    json_t *o = json_pack("{s:s, s:I, s:I, s:I}", "cluster", c->conf->cluster_name,
                          "next_job_id", (json_int_t)c->next_job_id, "boot_time",
                          (json_int_t)c->boot_time, "now", (json_int_t)ctld_now());
    char *want = http_query_get(r, "conf_hash");
    if (want) {
        json_t *files = conf_hash_files(c->conf->path);
        char *h = conf_hash_of(files);
        json_object_set_new(o, "conf_hash", json_string(h));
        free(h);
        json_decref(files);
    }
    free(want);
    http_reply(r, 200, o);
}

