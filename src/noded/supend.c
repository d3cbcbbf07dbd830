#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

#include "common/log.h"
#include "noded/cgroup.h"
#include "noded/jobctl.h"
#include "noded/jobspec.h"
#include "noded/proctrack.h"
#include "noded/spool.h"
#include "noded/supervisor_int.h"
#include "noded/sysops.h"
#include "noded/clock.h"

/* Slurm's exit code of a job the OOM killer hit: "0:125". */
#define OOM_EXIT_SIGNAL 125

static int64_t tv_ms(struct timeval tv)
{
    return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

/* After every process is gone and reaped, so that the children's rusage
 * holds them all. */
static void collect_usage(const struct sup *s, struct job_result *res)
{
    struct job_usage *u = &res->usage;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    getrusage(RUSAGE_CHILDREN, &ru);
    u->known = true;
    u->elapsed_s = res->end_time > s->started ? res->end_time - s->started : 0;
    u->user_cpu_ms = tv_ms(ru.ru_utime);
    u->system_cpu_ms = tv_ms(ru.ru_stime);
    u->total_cpu_ms = u->user_cpu_ms + u->system_cpu_ms;
    u->max_rss_kb = ru.ru_maxrss;
    snprintf(u->source, sizeof u->source, "rusage");
    if (s->cg) {
        struct jobcg_usage cu;
        jobcg_usage(s->cg, &cu);
        if (cu.cpu_ms >= 0)
            u->total_cpu_ms = cu.cpu_ms;
        if (cu.max_rss_kb >= 0)
            u->max_rss_kb = cu.max_rss_kb;
        if (cu.cpu_ms >= 0 || cu.max_rss_kb >= 0)
            snprintf(u->source, sizeof u->source, "cgroup");
    }
    u->gpus = (int64_t)s->js->ngpus;
    u->gpu_seconds = u->gpus * u->elapsed_s;
}

static const char *end_state(const struct sup *s, int status, bool oom)
{
    if (s->prolog_failed)
        return "FAILED";
    if (s->reason)
        return s->reason;
    if (oom)
        return "OUT_OF_MEMORY";
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "COMPLETED" : "FAILED";
}

static void end_everything(struct sup *s)
{
    sys->kill(-s->pid, SIGKILL);
    bool cg_empty = s->cg && jobcg_kill_all(s->cg) == 0;
    if (s->cg && !cg_empty)
        log_warnx("job %lld: processes left in its cgroup", (long long)s->js->job_id);
    /* Every process of the job is in its cgroup, so an empty one leaves only
     * children to reap; the sweep of /proc (every process of the node, per
     * job) is for jobs without one. */
    if (cg_empty && proctrack_reap_all() == 0)
        return;
    if (proctrack_kill_all() < 0)
        log_warnx("job %lld: processes left after the sweep", (long long)s->js->job_id);
}

void sup_finish(struct sup *s, int status)
{
    /* what the script left behind, in its session or not, goes with it */
    end_everything(s);
    bool oom = s->cg && jobcg_oom(s->cg);
    struct job_result res = { .end_time = noded_now() };
    snprintf(res.state, sizeof res.state, "%s", end_state(s, status, oom));
    res.prolog_failed = s->prolog_failed;
    if (strcmp(res.state, "OUT_OF_MEMORY") == 0) {
        res.exit_code = 0;
        res.exit_signal = OOM_EXIT_SIGNAL;
        log_info("job %lld: the OOM killer ended a process of the job",
                 (long long)s->js->job_id);
    } else {
        res.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
        res.exit_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    }
    collect_usage(s, &res);
    if (s->nc.epilog && jobctl_script(s->nc.epilog, "epilog_slurmd", s->js, s->conf_path) != 0)
        log_warnx("job %lld: epilog failed (in Slurm the node would drain)",
                  (long long)s->js->job_id);
    jobcg_destroy(s->cg);
    s->cg = NULL;
    if (spool_result_write(s->dir, &res) < 0)
        log_warn("job %lld: cannot write %s/%s", (long long)s->js->job_id, s->dir, SPOOL_RESULT);
    else
        spool_notify(s->dir);
    log_info("job %lld: %s exit_code=%d signal=%d elapsed=%llds cpu=%lldms maxrss=%lldkB",
             (long long)s->js->job_id, res.state, res.exit_code, res.exit_signal,
             (long long)res.usage.elapsed_s, (long long)res.usage.total_cpu_ms,
             (long long)res.usage.max_rss_kb);
}
