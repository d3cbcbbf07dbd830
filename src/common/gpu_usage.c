#include "common/gpu_usage.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"

void gpu_usage_init(struct gpu_usage *u, const int *idx, size_t n)
{
    memset(u, 0, sizeof *u);
    u->ngpus = n;
    u->g = xcalloc(n + 1, sizeof *u->g);
    for (size_t i = 0; i < n; i++)
        u->g[i].index = idx[i];
}

void gpu_usage_free(struct gpu_usage *u)
{
    free(u->g);
    memset(u, 0, sizeof *u);
}

void gpu_usage_add(struct gpu_usage *u, int64_t now, const struct gpu_reading *r, int idle_pct)
{
    double util = 0;
    int64_t mem = 0;
    bool idle = u->ngpus > 0, any = false;
    for (size_t i = 0; i < u->ngpus; i++) {
        struct gpu_one *g = &u->g[i];
        if (r[i].util < 0)
            continue;
        any = true;
        g->samples++;
        g->util_sum += r[i].util;
        g->util_last = r[i].util;
        if (r[i].util > g->util_max)
            g->util_max = r[i].util;
        g->mem_sum_mb += (double)r[i].mem_used_mb;
        g->mem_last_mb = r[i].mem_used_mb;
        if (r[i].mem_used_mb > g->mem_max_mb)
            g->mem_max_mb = r[i].mem_used_mb;
        g->mem_total_mb = r[i].mem_total_mb;
        util += r[i].util;
        mem += r[i].mem_used_mb;
        if (r[i].util >= idle_pct)
            idle = false;
    }
    if (!any)
        return;
    u->samples++;
    u->sampled_at = now;
    if (util > u->util_max)
        u->util_max = util;
    if (mem > u->mem_max_mb)
        u->mem_max_mb = mem;
    if (!idle)
        u->idle_since = 0;
    else if (!u->idle_since)
        u->idle_since = now;
}

static double ave(double sum, int64_t n)
{
    return n > 0 ? sum / (double)n : 0;
}

json_t *gpu_usage_json(const struct gpu_usage *u)
{
    json_t *gpus = json_array();
    for (size_t i = 0; i < u->ngpus; i++) {
        const struct gpu_one *g = &u->g[i];
        json_array_append_new(gpus, json_pack(
            "{s:i, s:I, s:f, s:i, s:i, s:f, s:I, s:I, s:I}", "index", g->index, "samples",
            (json_int_t)g->samples, "util_ave", ave(g->util_sum, g->samples), "util_max",
            g->util_max, "util_last", g->util_last, "mem_ave_mb", ave(g->mem_sum_mb, g->samples),
            "mem_max_mb", (json_int_t)g->mem_max_mb, "mem_last_mb", (json_int_t)g->mem_last_mb,
            "mem_total_mb", (json_int_t)g->mem_total_mb));
    }
    return json_pack("{s:I, s:I, s:I, s:f, s:I, s:o}", "samples", (json_int_t)u->samples,
                     "sampled_at", (json_int_t)u->sampled_at, "idle_since",
                     (json_int_t)u->idle_since, "util_max", u->util_max, "mem_max_mb",
                     (json_int_t)u->mem_max_mb, "gpus", gpus);
}

static int64_t jint(const json_t *o, const char *k)
{
    return (int64_t)json_integer_value(json_object_get(o, k));
}

static double jnum(const json_t *o, const char *k)
{
    return json_number_value(json_object_get(o, k));
}

void gpu_usage_restore(struct gpu_usage *u, const json_t *o)
{
    if (!json_is_object(o))
        return;
    u->samples = jint(o, "samples");
    u->sampled_at = jint(o, "sampled_at");
    u->idle_since = jint(o, "idle_since");
    u->util_max = jnum(o, "util_max");
    u->mem_max_mb = jint(o, "mem_max_mb");
    size_t k;
    const json_t *e;
    json_array_foreach(json_object_get(o, "gpus"), k, e) {
        for (size_t i = 0; i < u->ngpus; i++) {
            struct gpu_one *g = &u->g[i];
            if (g->index != jint(e, "index"))
                continue;
            g->samples = jint(e, "samples");
            g->util_sum = jnum(e, "util_ave") * (double)g->samples;
            g->util_max = (int)jint(e, "util_max");
            g->util_last = (int)jint(e, "util_last");
            g->mem_sum_mb = jnum(e, "mem_ave_mb") * (double)g->samples;
            g->mem_max_mb = jint(e, "mem_max_mb");
            g->mem_last_mb = jint(e, "mem_last_mb");
            g->mem_total_mb = jint(e, "mem_total_mb");
        }
    }
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

json_t *gpu_usage_summary(const json_t *by_node)
{
    /* nodes by name, so that every reader lists the GPUs in one order */
    size_t nn = json_object_size(by_node), k = 0;
    const char **names = xcalloc(nn + 1, sizeof *names);
    const char *key;
    const json_t *val;
    json_object_foreach((json_t *)by_node, key, val)
        names[k++] = key;
    qsort(names, nn, sizeof *names, by_name);
    json_t *gpus = json_array();
    double util = 0, mem = 0, util_max = 0;
    int64_t samples = 0, at = 0, idle = 0, mem_max = 0;
    bool all_idle = true;
    for (size_t ni = 0; ni < nn; ni++) {
        const char *node = names[ni];
        const json_t *o = json_object_get(by_node, node);
        if (jint(o, "samples") <= 0)
            continue;
        int64_t s = jint(o, "samples"), t = jint(o, "sampled_at"), is = jint(o, "idle_since");
        samples = s > samples ? s : samples;
        at = t > at ? t : at;
        if (!is)
            all_idle = false;
        idle = is > idle ? is : idle;
        util_max += jnum(o, "util_max");
        mem_max += jint(o, "mem_max_mb");
        size_t k;
        const json_t *e;
        json_array_foreach(json_object_get(o, "gpus"), k, e) {
            json_t *g = json_deep_copy(e);
            json_object_set_new(g, "node", json_string(node));
            json_array_append_new(gpus, g);
            util += jnum(e, "util_ave");
            mem += jnum(e, "mem_ave_mb");
        }
    }
    free(names);
    if (samples == 0) {
        json_decref(gpus);
        return NULL;
    }
    return json_pack("{s:I, s:I, s:I, s:f, s:f, s:f, s:I, s:o}", "samples", (json_int_t)samples,
                     "sampled_at", (json_int_t)at, "idle_since",
                     (json_int_t)(all_idle ? idle : 0), "util_ave", util, "util_max", util_max,
                     "mem_ave_mb", mem, "mem_max_mb", (json_int_t)mem_max, "gpus", gpus);
}
