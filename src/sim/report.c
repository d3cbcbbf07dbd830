/* `herd sim`'s report: plain text, or one JSON object a line. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"

#include "sim/sim.h"

const char *sim_preempt_name(enum sim_preempt p)
{
    switch (p) {
    case SIM_PREEMPT_REQUEUE: return "requeue";
    case SIM_PREEMPT_CANCEL: return "cancel";
    default: return "off";
    }
}

static bool has_scav(const struct sim_opts *o)
{
    return o->scav.users_pct > 0 || o->scav.stream > 0;
}

static void json_extra(json_t *j, const struct sim_opts *o, const struct sim_result *r)
{
    const struct sim_scav_result *s = &r->scav;

    json_object_set_new(j, "busy", json_real(r->busy));
    json_object_set_new(j, "owners", json_integer((json_int_t)r->owners));
    if (has_scav(o))
        json_object_set_new(j, "scavengers", json_pack(
            "{s:f, s:i, s:b, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:f, s:f}",
            "users_pct", o->scav.users_pct, "stream", o->scav.stream,
            "owners_only", o->scav.owners_only, "preempt", sim_preempt_name(o->scav.preempt),
            "grace_s", (json_int_t)o->scav.grace_s, "seed", (json_int_t)o->scav.seed,
            "jobs", (json_int_t)s->jobs, "completed", (json_int_t)s->completed,
            "cancelled", (json_int_t)s->cancelled, "preemptions", (json_int_t)s->preemptions,
            "instant_preemptions", (json_int_t)s->instant,
            "done_proc_h", s->done_ps / 3600, "lost_proc_h", s->lost_ps / 3600,
            "avg_wait_s", s->avg_wait_s));
    if (o->maint.duration > 0)
        json_object_set_new(j, "maint", json_pack(
            "{s:I, s:I, s:I, s:I, s:I, s:I}", "start_s", (json_int_t)o->maint.start,
            "duration_s", (json_int_t)o->maint.duration, "period_s", (json_int_t)o->maint.period,
            "windows", (json_int_t)r->maint_windows, "refused", (json_int_t)r->maint_refused,
            "overlaps", (json_int_t)r->maint_overlaps));
}

/* herd's guard and predictor as the run used them (defaults resolved). */
static const char *const predict_names[] = { "class", "user", "easy++", "estimate" };

static int64_t herd_age_bound(const struct sim_opts *o)
{
    return o->age_bound_s < 0 ? 0 : o->age_bound_s ? o->age_bound_s : SCHED_AGE_BOUND_DEFAULT_S;
}

static int64_t herd_age_resv(const struct sim_opts *o)
{
    return o->age_resv < 0 ? 0 : o->age_resv ? o->age_resv : SCHED_AGE_RESV_DEFAULT;
}

static void sim_print_json(const struct sim_opts *o, const struct sim_result *r)
{
    json_t *j = json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:f, s:f, s:I, s:f, s:b, s:f,"
                          " s:I, s:I, s:I}",
                          "trace", o->path, "policy", sched_policy_name(o->policy),
                          "procs", (json_int_t)r->procs, "nodes", (json_int_t)r->nodes,
                          "jobs", (json_int_t)r->jobs, "averaged", (json_int_t)r->averaged,
                          "makespan_s", (json_int_t)r->makespan_s,
                          "utilization", r->utilization, "avg_wait_s", r->avg_wait_s,
                          "max_wait_s", (json_int_t)r->max_wait_s, "avg_bsld", r->avg_bsld,
                          "truncate", o->truncate, "warmup", o->warmup,
                          "max_procs_per_user", (json_int_t)o->limits.procs_per_user,
                          "max_jobs_per_user", (json_int_t)o->limits.jobs_per_user,
                          "refused", (json_int_t)r->refused);
    json_extra(j, o, r);
    if (o->policy == SCHED_POLICY_HERD) {
        json_object_set_new(j, "predict", json_string(predict_names[o->predict]));
        json_object_set_new(j, "age_bound_s", json_integer(herd_age_bound(o)));
        json_object_set_new(j, "age_resv", json_integer(herd_age_resv(o)));
    }
    char *s = json_dumps(j, JSON_COMPACT);
    printf("%s\n", s);
    free(s);
    json_decref(j);
}

static void print_scav(const struct sim_opts *o, const struct sim_result *r)
{
    const struct sim_scav_result *s = &r->scav;

    printf("scavengers:");
    if (o->scav.users_pct > 0)
        printf(" the jobs of %g %% of the users", o->scav.users_pct);
    if (o->scav.stream > 0)
        printf("%s a stream of %d queued 1-node jobs", o->scav.users_pct > 0 ? " and" : "",
               o->scav.stream);
    printf(" (seed %llu)%s; preemption %s, grace %lld s\n", (unsigned long long)o->scav.seed,
           o->scav.owners_only ? ", left out (owners only)" : "",
           sim_preempt_name(o->scav.preempt), (long long)o->scav.grace_s);
    if (o->scav.owners_only)
        return;
    printf("scavenger jobs: %zu, %zu completed, %zu cancelled, %zu preemptions (%zu in the "
           "second the run began); work done %.1f, lost %.1f processor-hours; average wait "
           "%.1f s\n", s->jobs, s->completed, s->cancelled, s->preemptions, s->instant,
           s->done_ps / 3600,
           s->lost_ps / 3600, s->avg_wait_s);
}

void sim_print(const struct sim_opts *o, const struct sim_result *r, bool json)
{
    if (json) {
        sim_print_json(o, r);
        return;
    }
    printf("trace: %s\npolicy: %s, %lld processors on %lld nodes%s\n", o->path,
           sched_policy_name(o->policy), (long long)r->procs, (long long)r->nodes,
           o->truncate ? ", runs cut at the estimate" : "");
    printf("jobs: %zu (%zu averaged)\n", r->jobs, r->averaged);
    if (o->policy == SCHED_POLICY_HERD)
        printf("herd: predictions %s; starvation guard: age bound %lld s (0: none), %lld "
               "reservation(s) per partition\n", predict_names[o->predict],
               (long long)herd_age_bound(o), (long long)herd_age_resv(o));
    if (o->limits.procs_per_user || o->limits.jobs_per_user)
        printf("per-user limits: %lld processors, %lld jobs (0: none); %zu jobs refused\n",
               (long long)o->limits.procs_per_user, (long long)o->limits.jobs_per_user,
               r->refused);
    if (has_scav(o))
        print_scav(o, r);
    if (o->maint.duration > 0)
        printf("maintenance: %lld s from %lld s, every %lld s (0: once); %zu windows, "
               "%zu jobs refused (longer than the time between two), %zu runs overlapped one\n",
               (long long)o->maint.duration, (long long)o->maint.start,
               (long long)o->maint.period, r->maint_windows, r->maint_refused,
               r->maint_overlaps);
    printf("makespan: %lld s\nutilization: %.4f\n", (long long)r->makespan_s, r->utilization);
    if (r->busy > r->utilization)
        printf("busy (with the work preemption lost): %.4f\n", r->busy);
    printf("average wait%s: %.1f s (max %lld s)\n", has_scav(o) ? " (owners)" : "",
           r->avg_wait_s, (long long)r->max_wait_s);
    printf("average bounded slowdown%s (tau = %d s): %.2f\n", has_scav(o) ? " (owners)" : "",
           SIM_TAU_S, r->avg_bsld);
}

int sim_write_jobs(const char *path, const struct sim_job *jobs, size_t n, char **err)
{
    FILE *f = fopen(path, "w");

    if (!f) {
        *err = xasprintf("--jobs-out %s: %s", path, strerror(errno));
        return -1;
    }
    fprintf(f, "id\tkind\tsubmit\tstart\tend\tprocs\tstate\tpreemptions\tlost\n");
    for (size_t i = 0; i < n; i++) {
        const struct sim_job *j = &jobs[i];
        fprintf(f, "%llu\t%s\t%lld\t%lld\t%lld\t%lld\t%s\t%u\t%lld\n",
                (unsigned long long)j->id, j->scav ? "scavenger" : "owner", (long long)j->submit,
                (long long)j->start, (long long)j->end, (long long)j->procs,
                j->cancelled ? "cancelled" : j->start >= 0 ? "completed" : "never",
                j->preemptions, (long long)j->lost);
    }
    if (fclose(f) != 0) {
        *err = xasprintf("--jobs-out %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}
