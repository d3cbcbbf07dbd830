/* A multi-node job's GPUs on its other nodes. herdd runs such a job's batch
 * script on its first node only; here it runs the job's srun steps, so the
 * job is sampled here while a step of it runs (the GPUs its steps were
 * given, as the step layout names them), reported with the node's other
 * jobs, and forgotten when no step is left: the controller keeps each
 * node's last report and merges them at the job's end. */
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "noded/agent.h"
#include "noded/gpumon_int.h"
#include "noded/step.h"

static struct rjob *find(struct gpumon *m, int64_t id)
{
    for (struct rjob *r = m->remote; r; r = r->next)
        if (r->id == id)
            return r;
    return NULL;
}

static bool has_gpu(const struct gpu_usage *u, int idx)
{
    for (size_t i = 0; i < u->ngpus; i++)
        if (u->g[i].index == idx)
            return true;
    return false;
}

/* The step's GPUs join what the job is sampled on here (steps may differ). */
static void add_gpus(struct gpu_usage *u, const json_t *gpus)
{
    size_t k;
    const json_t *g;
    json_array_foreach(gpus, k, g) {
        int idx = (int)json_integer_value(g);
        if (!json_is_integer(g) || has_gpu(u, idx))
            continue;
        u->g = xrealloc(u->g, (u->ngpus + 2) * sizeof *u->g);
        memset(&u->g[u->ngpus], 0, sizeof u->g[0]);
        u->g[u->ngpus++].index = idx;
    }
}

void gpumon_step_started(struct agent *a, int64_t job_id, uid_t uid, const json_t *node)
{
    struct gpumon *m = a->mon;
    if (!m || agent_job_find(a, job_id) || a->conf->acctg_freq <= 0)
        return;   /* its batch node's own accumulator covers it */
    struct rjob *r = find(m, job_id);
    if (!r) {
        r = xcalloc(1, sizeof *r);
        r->id = job_id;
        gpu_usage_init(&r->mon.gpu, NULL, 0);
        r->mon.freq_s = a->conf->acctg_freq;
        r->mon.next_at = 0;
        r->mon.cpu_ms = r->mon.max_rss_kb = -1;
        struct passwd *pw = getpwuid(uid);
        snprintf(r->mon.user, sizeof r->mon.user, "%s", pw ? pw->pw_name : "");
        r->next = m->remote;
        m->remote = r;
    }
    add_gpus(&r->mon.gpu, json_object_get(node, "gpus"));
}

static void sample(struct gpumon *m, struct rjob *r, int64_t now, int idle_pct)
{
    struct gpu_usage *u = &r->mon.gpu;
    struct gpu_reading *rd = xcalloc(u->ngpus + 1, sizeof *rd);
    for (size_t i = 0; i < u->ngpus; i++)
        gpumon_read(m, u->g[i].index, &rd[i]);
    gpu_usage_add(u, now, rd, idle_pct);
    free(rd);
}

void gpumon_steps_tick(struct agent *a, int64_t now, json_t **jobs)
{
    struct gpumon *m = a->mon;
    for (struct rjob **pp = &m->remote; *pp;) {
        struct rjob *r = *pp;
        if (!step_runs_job(a, r->id)) {
            *pp = r->next;
            gpu_usage_free(&r->mon.gpu);
            free(r);
            continue;
        }
        pp = &r->next;
        if (r->mon.gpu.ngpus == 0 || now < r->mon.next_at)
            continue;
        sample(m, r, now, a->conf->idle_gpu.threshold_pct);
        r->mon.next_at = now + r->mon.freq_s;
        if (!*jobs)
            *jobs = json_object();
        char key[24];
        snprintf(key, sizeof key, "%lld", (long long)r->id);
        json_object_set_new(*jobs, key, gpumon_live_json(&r->mon));
    }
}

bool gpumon_steps_holder(struct gpumon *m, int idx, int64_t *id, const char **user)
{
    for (struct rjob *r = m->remote; r; r = r->next)
        if (has_gpu(&r->mon.gpu, idx)) {
            *id = r->id;
            *user = r->mon.user;
            return true;
        }
    return false;
}

void gpumon_steps_free(struct gpumon *m)
{
    while (m->remote) {
        struct rjob *r = m->remote;
        m->remote = r->next;
        gpu_usage_free(&r->mon.gpu);
        free(r);
    }
}
