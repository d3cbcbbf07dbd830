#include "ctld/gpu_live.h"

#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/gpu_usage.h"
#include "common/http.h"
#include "common/log.h"
#include "common/slurm_errno.h"
#include "common/xmalloc.h"
#include "ctld/clock.h"
#include "ctld/ctld.h"

static struct job_gpu *jg(struct job *j)
{
    if (!j->gpu)
        j->gpu = xcalloc(1, sizeof *j->gpu);
    return j->gpu;
}

/* The report comes from a node the job runs on, in this run. */
static bool runs_on(const struct ctld *c, const struct job *j, const char *node)
{
    if (!job_holds_alloc(j))
        return false;
    for (size_t i = 0; i < j->nallocs; i++)
        if (strcmp(c->conf->nodes[j->allocs[i].node].name, node) == 0)
            return true;
    return false;
}

static void take_one(struct ctld *c, const char *node, const char *key, json_t *o, int64_t at)
{
    char *end;
    unsigned long long id = strtoull(key, &end, 10);
    struct job *j = *end || !json_is_object(o) ? NULL : job_find(c, id);
    if (!j || !runs_on(c, j, node))
        return;
    struct job_gpu *g = jg(j);
    if (!g->live)
        g->live = json_object();
    json_t *v = json_pack("{s:I, s:I, s:I}", "at", (json_int_t)at, "cpu_ms",
                          json_integer_value(json_object_get(o, "cpu_ms")), "max_rss_kb",
                          json_integer_value(json_object_get(o, "max_rss_kb")));
    json_t *gpu = json_object_get(o, "gpu");
    if (json_is_object(gpu))
        json_object_set(v, "gpu", gpu);
    json_object_set_new(g->live, node, v);
    idle_gpu_check(c, j, ctld_now());
}

void api_node_usage(struct http_req *r)
{
    struct ctld *c = r->ctx;
    const char *node = json_string_value(json_object_get(r->body, "name"));
    json_t *jobs = json_object_get(r->body, "jobs");
    if (!node || !node_find(c, node) || !json_is_object(jobs)) {
        http_reply_error(r, 400, SLURM_ERROR, "usage report needs name (a node) and jobs");
        return;
    }
    int64_t at = json_integer_value(json_object_get(r->body, "time"));
    const char *key;
    json_t *o;
    json_object_foreach(jobs, key, o)
        take_one(c, node, key, o, at > 0 ? at : ctld_now());
    http_reply(r, 200, NULL);
}

void gpu_live_take_end(struct ctld *c, struct job *j, const char *node)
{
    (void)c;
    json_t *gpu = j->usage ? json_object_get(j->usage, "gpu") : NULL;
    if (!json_is_object(gpu) || !node)
        return;
    struct job_gpu *g = jg(j);
    if (!g->live)
        g->live = json_object();
    json_t *v = json_object_get(g->live, node);
    if (!v) {
        v = json_object();
        json_object_set_new(g->live, node, v);
    }
    json_object_set(v, "gpu", gpu);
    json_object_del(j->usage, "gpu");
}

static json_t *by_node(const struct job *j)
{
    json_t *m = json_object();
    const char *node;
    json_t *v;
    if (j->gpu && j->gpu->live)
        json_object_foreach(j->gpu->live, node, v)
            if (json_is_object(json_object_get(v, "gpu")))
                json_object_set(m, node, json_object_get(v, "gpu"));
    return m;
}

void gpu_live_finish(struct job *j)
{
    if (!j->gpu || !j->gpu->live)
        return;
    json_t *m = by_node(j);
    json_t *sum = gpu_usage_summary(m);
    json_decref(m);
    if (sum) {
        if (!j->usage)
            j->usage = json_object();
        else if (j->usage->refcount > 1) {   /* shared with a stored record: ours alone now */
            json_t *u = json_deep_copy(j->usage);
            json_decref(j->usage);
            j->usage = u;
        }
        json_object_set_new(j->usage, "gpu", sum);
    }
    json_decref(j->gpu->live);
    j->gpu->live = NULL;
}

json_t *gpu_live_summary(const struct job *j)
{
    if (!j->gpu || !j->gpu->live || !job_holds_alloc(j))
        return NULL;
    int64_t cpu = 0, rss = 0, at = 0;
    bool cpu_known = false, rss_known = false;
    const char *node;
    json_t *v;
    json_object_foreach(j->gpu->live, node, v) {
        int64_t c = json_integer_value(json_object_get(v, "cpu_ms"));
        int64_t r = json_integer_value(json_object_get(v, "max_rss_kb"));
        int64_t t = json_integer_value(json_object_get(v, "at"));
        if (c >= 0) {
            cpu += c;
            cpu_known = true;
        }
        if (r >= 0) {
            rss = r > rss ? r : rss;
            rss_known = true;
        }
        at = t > at ? t : at;
    }
    json_t *o = json_pack("{s:I, s:I, s:I}", "sampled_at", (json_int_t)at, "cpu_ms",
                          (json_int_t)(cpu_known ? cpu : -1), "max_rss_kb",
                          (json_int_t)(rss_known ? rss : -1));
    json_t *m = by_node(j);
    json_t *sum = gpu_usage_summary(m);
    json_decref(m);
    if (sum)
        json_object_set_new(o, "gpu", sum);
    return o;
}

void gpu_live_json(const struct job *j, json_t *o)
{
    json_t *live = gpu_live_summary(j);
    json_t *gpu = json_object_get(live, "gpu");
    size_t n = json_array_size(json_object_get(gpu, "gpus"));
    if (n) {   /* squeue's GpuUtil: the last round, the mean over its GPUs */
        double sum = 0;
        size_t k;
        json_t *g;
        json_array_foreach(json_object_get(gpu, "gpus"), k, g)
            sum += (double)json_integer_value(json_object_get(g, "util_last"));
        json_object_set_new(o, "gpu_util", json_real(sum / (double)n));
    }
    if (live)
        json_object_set_new(o, "usage_live", live);
    if (!j->gpu)
        return;
    if (j->gpu->flagged_at && job_holds_alloc(j))
        json_object_set_new(o, "gpu_idle_flagged_at", json_integer(j->gpu->flagged_at));
    if (j->gpu->note)
        json_object_set_new(o, "admin_comment", json_string(j->gpu->note));
    if (j->gpu->end_reason)
        json_object_set_new(o, "end_reason", json_string(j->gpu->end_reason));
}

void gpu_live_record_add(const struct job *j, json_t *rec)
{
    if (!j->gpu)
        return;
    if (j->gpu->flagged_at)
        json_object_set_new(rec, "gpu_idle_flagged_at", json_integer(j->gpu->flagged_at));
    if (j->gpu->acted_at)
        json_object_set_new(rec, "gpu_idle_acted_at", json_integer(j->gpu->acted_at));
    if (j->gpu->note)
        json_object_set_new(rec, "admin_comment", json_string(j->gpu->note));
    if (j->gpu->end_reason)
        json_object_set_new(rec, "end_reason", json_string(j->gpu->end_reason));
}

void gpu_live_record_read(struct job *j, const json_t *rec)
{
    int64_t f = json_integer_value(json_object_get(rec, "gpu_idle_flagged_at"));
    int64_t a = json_integer_value(json_object_get(rec, "gpu_idle_acted_at"));
    const char *note = json_string_value(json_object_get(rec, "admin_comment"));
    const char *why = json_string_value(json_object_get(rec, "end_reason"));
    if (!f && !a && !note && !why)
        return;
    struct job_gpu *g = jg(j);
    g->flagged_at = f;
    g->acted_at = a;
    g->note = note ? xstrdup(note) : NULL;
    g->end_reason = why ? xstrdup(why) : NULL;
}

void gpu_live_next_run(struct job *j)
{
    if (!j->gpu)
        return;
    j->gpu->flagged_at = j->gpu->acted_at = 0;
    xfree(j->gpu->note);
    xfree(j->gpu->end_reason);
}

void gpu_live_free(struct job *j)
{
    if (!j->gpu)
        return;
    json_decref(j->gpu->live);
    free(j->gpu->note);
    free(j->gpu->end_reason);
    free(j->gpu);
    j->gpu = NULL;
}
