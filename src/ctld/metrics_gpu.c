/*
 * metrics_gpu: the per-GPU families of /metrics/jobs: what each running
 * job's GPUs did at their node agent's last sampling round, and which jobs
 * the idle-GPU policy has flagged. Only jobs that hold an allocation have
 * series, so their number is bounded by the cluster's GPUs.
 *
 * The figures are read straight off the live map the agents' reports fill
 * (gpu_live.h: {node: {"gpu": gpu_usage_json's}}), not through
 * gpu_live_summary, which builds a merged copy per job: a scrape then
 * allocates nothing per job. Each family's samples go into a buffer of
 * their own during metrics_jobs' one walk of the job table, and are moved
 * after the family's HELP and TYPE once the walk is done (the format wants
 * every sample of a family together).
 */
#include <event2/buffer.h>
#include <inttypes.h>
#include <stdio.h>

#include "common/openmetrics.h"
#include "ctld/gpu_live.h"
#include "ctld/metrics.h"

static const struct {
    const char *name, *help;
} fams[JOB_GPU_FAMS] = {
    { "herd_job_gpu_utilization",
      "GPU utilization at the node agent's last sampling round, percent" },
    { "herd_job_gpu_utilization_mean",
      "GPU utilization averaged over this run's sampling rounds, percent" },
    { "herd_job_gpu_memory_used_bytes",
      "GPU memory used at the node agent's last sampling round" },
    { "herd_job_gpu_idle_flagged", "1 for a running job the idle-GPU policy has flagged" },
};

void metrics_job_gpus_begin(struct job_gpu_rows *r)
{
    for (size_t f = 0; f < JOB_GPU_FAMS; f++)
        r->buf[f] = evbuffer_new();
    r->flagged = 0;
}

/* One GPU of one node's report: {"index", "samples", "util_last", ...}. */
static void add_gpu(struct job_gpu_rows *r, const char *job, const char *user,
                    const char *node, const json_t *g)
{
    if (json_integer_value(json_object_get(g, "samples")) <= 0)
        return;    /* NVML never read it: no figure rather than a false 0 */
    char idx[24];
    snprintf(idx, sizeof idx, "%" JSON_INTEGER_FORMAT,
             json_integer_value(json_object_get(g, "index")));
    struct om_label l[] = { { "job", job }, { "user", user }, { "node", node },
                            { "gpu", idx } };
    size_t nl = sizeof l / sizeof *l;
    om_sample(r->buf[0], fams[0].name, l, nl,
              (double)json_integer_value(json_object_get(g, "util_last")));
    om_sample(r->buf[1], fams[1].name, l, nl, json_number_value(json_object_get(g, "util_ave")));
    om_sample(r->buf[2], fams[2].name, l, nl,
              (double)json_integer_value(json_object_get(g, "mem_last_mb")) * 1048576.0);
}

void metrics_job_gpus_add(struct job_gpu_rows *r, const struct job *j)
{
    if (!j->gpu || !job_holds_alloc(j))
        return;
    char job[24];
    snprintf(job, sizeof job, "%" PRIu64, j->id);
    const char *user = j->user_name ? j->user_name : "";
    if (j->gpu->flagged_at) {
        struct om_label l[] = { { "job", job }, { "user", user } };
        om_sample(r->buf[3], fams[3].name, l, 2, 1);
        r->flagged++;
    }
    const char *node;
    json_t *v;
    json_object_foreach(j->gpu->live, node, v) {
        size_t k;
        json_t *g;
        json_array_foreach(json_object_get(json_object_get(v, "gpu"), "gpus"), k, g)
            add_gpu(r, job, user, node, g);
    }
}

void metrics_job_gpus_end(struct job_gpu_rows *r, struct evbuffer *b)
{
    for (size_t f = 0; f < JOB_GPU_FAMS; f++) {
        om_family(b, fams[f].name, fams[f].help, "gauge");
        evbuffer_add_buffer(b, r->buf[f]);
        evbuffer_free(r->buf[f]);
        r->buf[f] = NULL;
    }
    om_gauge(b, "herd_jobs_gpu_idle_flagged",
             "Running jobs the idle-GPU policy has flagged (IdleGPUPolicy)", r->flagged);
}
