/*
 * api_diag: GET /v1/diag, what sdiag prints: job counters since start-up,
 * the jobs pending and running now, and the scheduling passes' times. One
 * pass does what Slurm splits into its main and backfill schedulers, so
 * there is one set of cycle figures.
 */
#include "common/http.h"
#include "common/slurm_errno.h"
#include "ctld/api.h"
#include "ctld/ctld.h"
#include "ctld/sched_snap.h"

json_t *api_diag_json(const struct ctld *c)
{
    const struct ctld_stats *st = &c->stats;
    size_t pending = 0, running = 0;
    const struct job *j;
    JOB_FOREACH(c, j) {
        pending += j->state == JOB_PENDING;
        running += j->state == JOB_RUNNING;
    }
    json_t *o = json_pack(
        "{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I,"
        " s:b}",
        "req_time", (json_int_t)ctld_now(), "req_time_start", (json_int_t)st->since,
        "jobs_submitted", (json_int_t)st->submitted, "jobs_started", (json_int_t)st->started,
        "jobs_completed", (json_int_t)st->completed, "jobs_canceled", (json_int_t)st->canceled,
        "jobs_failed", (json_int_t)st->failed, "jobs_pending", (json_int_t)pending,
        "jobs_running", (json_int_t)running, "schedule_cycle_last",
        (json_int_t)st->cycle_last_us, "schedule_cycle_max", (json_int_t)st->cycle_max_us,
        "schedule_cycle_sum", (json_int_t)st->cycle_sum_us, "schedule_cycle_total",
        (json_int_t)st->cycles, "schedule_queue_length", (json_int_t)st->queue_len,
        "schedule_cycle_mean",
        (json_int_t)(st->cycles ? st->cycle_sum_us / (int64_t)st->cycles : 0),
        "schedule_cycle_depth_mean", (json_int_t)(st->cycles ? st->depth_sum / st->cycles : 0),
        /* answered while a pass plans: what keeps squeue quick */
        "schedule_in_flight", ctld_sched_worker_busy(c));
    return o;
}

void api_diag(struct http_req *r)
{
    http_reply(r, 200, api_diag_json(r->ctx));
}

/* sdiag --reset: root only, as Slurm (the operators' counters) */
void api_diag_reset(struct http_req *r)
{
    struct ctld *c = r->ctx;
    if (r->who.uid != 0) {
        http_reply_error(r, 403, ESLURM_ACCESS_DENIED, API_MSG_DENIED);
        return;
    }
    c->stats = (struct ctld_stats){ .since = ctld_now() };
    http_reply(r, 200, NULL);
}
