/*
 * metrics_sched: GET /metrics/scheduler, Slurm 25.11's scheduler families
 * from what sdiag shows (cycle times in microseconds, as Slurm's), and
 * Herd's RPC and commit latency. Herd plans backfill in the same pass as its
 * main scheduler, so the slurm_bf_cycle_* families repeat that pass's
 * figures; families Herd has nothing behind (agent threads and queues, the
 * DBD queue, exit reasons, backfill table sizes, backfilled job counts) are
 * left out rather than shown as 0 (docs/metrics.md).
 */
#include <event2/buffer.h>

#include "common/openmetrics.h"
#include "ctld/metrics.h"
#include "ctld/sched_snap.h"

static uint64_t mean(uint64_t sum, uint64_t n)
{
    return n ? sum / n : 0;
}

static void cycles(const struct ctld_stats *st, struct evbuffer *b)
{
    uint64_t sum = (uint64_t)st->cycle_sum_us, n = st->cycles;
    om_gauge(b, "slurm_schedule_cycle_cnt", "Scheduling cycle count", n);
    om_gauge(b, "slurm_schedule_cycle_depth", "Processed jobs depth total", st->depth_sum);
    om_gauge(b, "slurm_schedule_cycle_last", "Last scheduling cycle time",
             (uint64_t)st->cycle_last_us);
    om_gauge(b, "slurm_schedule_cycle_max", "Max scheduling cycle time",
             (uint64_t)st->cycle_max_us);
    om_gauge(b, "slurm_schedule_cycle_tot", "Sum of scheduling cycle times", sum);
    om_gauge(b, "slurm_schedule_queue_len", "Jobs pending queue length", st->queue_len);
    om_gauge(b, "slurm_sched_mean_cycle", "Mean scheduling cycle time", mean(sum, n));
    om_gauge(b, "slurm_sched_mean_depth_cycle", "Mean depth of scheduling cycles",
             mean(st->depth_sum, n));
    om_gauge(b, "slurm_bf_cycle_cnt", "Backfill cycle count", n);
    om_gauge(b, "slurm_bf_cycle_last", "Last backfill cycle time", (uint64_t)st->cycle_last_us);
    om_gauge(b, "slurm_bf_cycle_max", "Max backfill cycle time", (uint64_t)st->cycle_max_us);
    om_gauge(b, "slurm_bf_cycle_tot", "Sum of backfill cycle times", sum);
    om_gauge(b, "slurm_bf_mean_cycle", "Mean backfill cycle time", mean(sum, n));
    om_gauge(b, "slurm_bf_depth_tot", "Sum of backfill job depths", st->depth_sum);
    om_gauge(b, "slurm_bf_depth_mean", "Mean backfill cycle depth", mean(st->depth_sum, n));
    om_gauge(b, "slurm_bf_queue_len", "Backfill queue length", st->queue_len);
}

void metrics_sched(const struct ctld *c, struct evbuffer *b)
{
    const struct ctld_stats *st = &c->stats;
    uint64_t pending = 0, running = 0;
    const struct job *j;
    JOB_FOREACH(c, j) {
        pending += j->state == JOB_PENDING;
        running += j->state == JOB_RUNNING;
    }
    int64_t now = ctld_now();
    cycles(st, b);
    om_gauge(b, "slurm_bf_active", "Backfill scheduler active jobs",
             ctld_sched_worker_busy(c) ? 1 : 0);
    om_gauge(b, "slurm_sdiag_jobs_canceled", "Jobs canceled since reset", st->canceled);
    om_gauge(b, "slurm_sdiag_jobs_completed", "Jobs completed since reset", st->completed);
    om_gauge(b, "slurm_sdiag_jobs_failed", "Jobs failed since reset", st->failed);
    om_gauge(b, "slurm_sdiag_jobs_pending", "Jobs pending at timestamp", pending);
    om_gauge(b, "slurm_sdiag_jobs_running", "Jobs running at timestamp", running);
    om_gauge(b, "slurm_sdiag_jobs_started", "Jobs started since reset", st->started);
    om_gauge(b, "slurm_sdiag_jobs_submitted", "Jobs submitted since reset", st->submitted);
    om_gauge(b, "slurm_sdiag_job_states_ts", "Job states timestamp", (uint64_t)now);
    om_gauge(b, "slurm_last_proc_req_start", "Timestamp of last process request start",
             (uint64_t)st->since);
    om_gauge(b, "slurm_sched_stats_timestamp", "Statistics snapshot timestamp", (uint64_t)now);
    metrics_write_rpc(c->metrics, b);
}
