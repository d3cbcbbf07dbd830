#include "noded/gpumon.h"
#include "noded/gpumon_int.h"

#include <event2/buffer.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/http.h"
#include "common/log.h"
#include "common/openmetrics.h"
#include "common/xmalloc.h"
#include "noded/agent.h"
#include "noded/cgroup.h"
#include "noded/clock.h"
#include "noded/jobctl.h"
#include "noded/nodeconf.h"
#include "noded/nvml.h"

#define USAGE_TIMEOUT_S 5

void gpumon_start(struct agent *a)
{
    struct gpumon *m = xcalloc(1, sizeof *m);
    a->mon = m;
    m->have_nc = nodeconf_load(&m->nc, a->conf_path) == 0;
    if (nvml_open(&m->nvml) < 0)
        return;
    unsigned int count = 0;
    if (m->nvml.count(&count) != NVML_SUCCESS || count > 1024)
        count = 0;
    m->dev = xcalloc(count + 1, sizeof *m->dev);
    m->minor = xcalloc(count + 1, sizeof *m->minor);
    m->ndev = count;
    for (unsigned int i = 0; i < count; i++) {
        unsigned int mnr;
        if (m->nvml.handle(i, &m->dev[i]) != NVML_SUCCESS)
            m->dev[i] = NULL;
        m->minor[i] = m->dev[i] && m->nvml.minor_number &&
                      m->nvml.minor_number(m->dev[i], &mnr) == NVML_SUCCESS ? (int)mnr : -1;
    }
    if (!m->nvml.utilization || !m->nvml.memory)
        log_warnx("NVML lacks utilization or memory readings: GPU use is not recorded");
}

void gpumon_stop(struct agent *a)
{
    struct gpumon *m = a->mon;
    if (!m)
        return;
    nvml_close(&m->nvml);
    free(m->dev);
    free(m->minor);
    gpumon_steps_free(m);
    if (m->have_nc)
        nodeconf_clear(&m->nc);
    free(m);
    a->mon = NULL;
}

bool gpumon_read(struct gpumon *m, int idx, struct gpu_reading *r)
{
    struct nvml_utilization u;
    struct nvml_memory mem;
    r->util = -1;
    if (idx < 0 || (size_t)idx >= m->ndev || !m->dev[idx] || !m->nvml.utilization ||
        !m->nvml.memory || m->nvml.utilization(m->dev[idx], &u) != NVML_SUCCESS ||
        m->nvml.memory(m->dev[idx], &mem) != NVML_SUCCESS)
        return false;
    r->util = u.gpu > 100 ? 100 : (int)u.gpu;
    r->mem_used_mb = (int64_t)(mem.used >> 20);
    r->mem_total_mb = (int64_t)(mem.total >> 20);
    return true;
}

static int job_freq(const struct agent *a, const json_t *spec)
{
    json_t *f = json_object_get(spec, "acctg_freq");
    if (json_is_integer(f) && json_integer_value(f) >= 0)
        return (int)json_integer_value(f);
    return a->conf->acctg_freq;
}

void gpumon_job_init(struct agent *a, struct ajob *j, const char *dir)
{
    char *path = xasprintf("%s/%s", dir, SPOOL_JOB_JSON);
    json_t *spec = json_load_file(path, 0, NULL);
    free(path);
    json_t *g = json_object_get(spec, "node_gpus");
    size_t n = json_array_size(g);
    int *idx = xcalloc(n + 1, sizeof *idx);
    for (size_t i = 0; i < n; i++)
        idx[i] = (int)json_integer_value(json_array_get(g, i));
    gpu_usage_free(&j->mon.gpu);
    gpu_usage_init(&j->mon.gpu, idx, n);
    free(idx);
    j->mon.freq_s = job_freq(a, spec);
    j->mon.next_at = noded_now() + (j->mon.freq_s > 0 ? 1 : 0);
    j->mon.cpu_ms = j->mon.max_rss_kb = -1;
    const char *user = json_string_value(json_object_get(spec, "user_name"));
    snprintf(j->mon.user, sizeof j->mon.user, "%s", user ? user : "");
    json_decref(spec);
    path = xasprintf("%s/%s", dir, SPOOL_GPU_USAGE);
    json_t *saved = json_load_file(path, 0, NULL);
    free(path);
    gpu_usage_restore(&j->mon.gpu, saved);
    json_decref(saved);
}

void gpumon_job_free(struct ajob *j)
{
    gpu_usage_free(&j->mon.gpu);
}

static void read_cgroup(struct agent *a, struct ajob *j, const char *dir)
{
    struct gpumon *m = a->mon;
    if (!m->have_nc || (!m->nc.proctrack_cgroup && !m->nc.task_cgroup))
        return;
    char *scope = jobctl_cgroup_scope(a->node->name, dir);
    struct jobcg *cg = jobcg_open(m->nc.cgroup_mount, scope, j->id);
    free(scope);
    if (!cg)
        return;
    struct jobcg_usage u;
    jobcg_usage(cg, &u);
    jobcg_close(cg);
    j->mon.cpu_ms = u.cpu_ms;
    j->mon.max_rss_kb = u.max_rss_kb;
}

/* One round of j; its state saved in the spool. */
static void sample(struct agent *a, struct ajob *j, int64_t now)
{
    struct gpu_usage *u = &j->mon.gpu;
    char *dir = spool_job_dir(a->spool, j->id);
    read_cgroup(a, j, dir);
    if (u->ngpus > 0) {
        struct gpu_reading *r = xcalloc(u->ngpus, sizeof *r);
        for (size_t i = 0; i < u->ngpus; i++)
            gpumon_read(a->mon, u->g[i].index, &r[i]);
        gpu_usage_add(u, now, r, a->conf->idle_gpu.threshold_pct);
        free(r);
        json_t *o = gpu_usage_json(u);
        char *text = json_dumps(o, JSON_COMPACT);
        if (text && spool_write(dir, SPOOL_GPU_USAGE, text, 0600) < 0)
            log_warn("job %lld: cannot save its GPU usage", (long long)j->id);
        free(text);
        json_decref(o);
    }
    free(dir);
}

json_t *gpumon_job_json(const struct ajob *j)
{
    return j->mon.gpu.samples > 0 ? gpu_usage_json(&j->mon.gpu) : NULL;
}

json_t *gpumon_live_json(const struct jobmon *mon)
{
    json_t *o = json_pack("{s:I, s:I}", "cpu_ms", (json_int_t)mon->cpu_ms, "max_rss_kb",
                          (json_int_t)mon->max_rss_kb);
    if (mon->gpu.samples > 0)
        json_object_set_new(o, "gpu", gpu_usage_json(&mon->gpu));
    return o;
}

static void report_done(int status, json_t *body, void *arg)
{
    (void)body;
    struct agent *a = arg;
    if (a->mon)
        a->mon->reporting = false;
    if (status != 200)
        log_debug("usage report not taken (status %d)", status);
}

void gpumon_tick(struct agent *a)
{
    struct gpumon *m = a->mon;
    if (!m)
        return;
    int64_t now = noded_now();
    json_t *jobs = NULL;
    for (struct ajob *j = a->jobs; j; j = j->next) {
        if (j->ended || j->starting || j->mon.freq_s <= 0 || now < j->mon.next_at)
            continue;
        sample(a, j, now);
        j->mon.next_at = now + j->mon.freq_s;
        if (!jobs)
            jobs = json_object();
        char key[24];
        snprintf(key, sizeof key, "%lld", (long long)j->id);
        json_object_set_new(jobs, key, gpumon_live_json(&j->mon));
    }
    gpumon_steps_tick(a, now, &jobs);
    /* a report still in flight: this round's figures go with the next */
    if (!jobs || m->reporting || a->stopping) {
        json_decref(jobs);
        return;
    }
    json_t *body = json_pack("{s:s, s:I, s:o}", "name", a->node->name, "time", (json_int_t)now,
                             "jobs", jobs);
    m->reporting = true;
    http_call(a->base, a->conf->munge_socket, a->conf->ctld_addr, a->conf->ctld_port, "POST",
              "/v1/node/usage", body, USAGE_TIMEOUT_S, report_done, a);
}

/* The job holding GPU idx here, batch or steps: its id and user. */
static bool holder(struct agent *a, int idx, int64_t *id, const char **user)
{
    for (const struct ajob *j = a->jobs; j; j = j->next)
        for (size_t i = 0; !j->ended && i < j->mon.gpu.ngpus; i++)
            if (j->mon.gpu.g[i].index == idx) {
                *id = j->id;
                *user = j->mon.user;
                return true;
            }
    return gpumon_steps_holder(a->mon, idx, id, user);
}

/* The families of the NVIDIA exporter that Princeton's jobstats reads
 * (nvidia_gpu_*), so that its dashboards and queries work on herdd. */
static const struct gfam {
    const char *name, *help;
} gfams[] = {
    { "nvidia_gpu_duty_cycle", "GPU utilization, percent (NVML)" },
    { "nvidia_gpu_memory_used_bytes", "GPU memory used (NVML)" },
    { "nvidia_gpu_memory_total_bytes", "GPU memory (NVML)" },
    { "nvidia_gpu_power_usage_milliwatts", "GPU power draw (NVML)" },
    { "nvidia_gpu_temperature_celsius", "GPU temperature (NVML)" },
};

static bool read_all(struct gpumon *m, unsigned i, double v[5])
{
    struct gpu_reading r;
    if (!gpumon_read(m, (int)i, &r))
        return false;
    unsigned int pw = 0, temp = 0;
    v[0] = r.util;
    v[1] = (double)r.mem_used_mb * 1048576.0;
    v[2] = (double)r.mem_total_mb * 1048576.0;
    v[3] = m->nvml.power && m->nvml.power(m->dev[i], &pw) == NVML_SUCCESS ? (double)pw : -1.0;
    v[4] = m->nvml.temperature && m->nvml.temperature(m->dev[i], NVML_TEMPERATURE_GPU, &temp)
                   == NVML_SUCCESS ? (double)temp : -1.0;
    return true;
}

void gpumon_metrics(struct agent *a, struct evbuffer *b)
{
    struct gpumon *m = a->mon;
    size_t n = m ? m->ndev : 0;
    double (*v)[5] = xcalloc(n + 1, sizeof *v);
    bool *ok = xcalloc(n + 1, sizeof *ok);
    for (size_t i = 0; i < n; i++)
        ok[i] = read_all(m, (unsigned)i, v[i]);
    for (size_t f = 0; f < sizeof gfams / sizeof gfams[0]; f++) {
        om_family(b, gfams[f].name, gfams[f].help, "gauge");
        for (size_t i = 0; i < n; i++) {
            if (!ok[i] || v[i][f] < 0)
                continue;
            int64_t id = 0;
            const char *user = "";
            bool held = holder(a, (int)i, &id, &user);
            char minor[24], jobid[24] = "";
            if (m->minor[i] >= 0)
                snprintf(minor, sizeof minor, "%d", m->minor[i]);
            else
                snprintf(minor, sizeof minor, "%zu", i);
            if (held)
                snprintf(jobid, sizeof jobid, "%lld", (long long)id);
            struct om_label l[] = { { "node", a->node->name }, { "minor_number", minor },
                                    { "jobid", jobid }, { "user", user } };
            om_sample(b, gfams[f].name, l, 4, v[i][f]);
        }
    }
    om_end(b);
    free(v);
    free(ok);
}
