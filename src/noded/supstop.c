/*
 * supstop: a job suspended and resumed by its supervisor (scontrol
 * suspend/resume, a preemption that suspends). The freezer stops every
 * process of the job at once, a fork included, so it is used where the job
 * has a cgroup; SIGSTOP to each process is the fallback.
 */
#include <signal.h>

#include "common/log.h"
#include "noded/cgroup.h"
#include "noded/clock.h"
#include "noded/jobspec.h"
#include "noded/supervisor_int.h"

static void stop_now(struct sup *s)
{
    s->stop_at = 0;
    s->frozen = s->cg && jobcg_freeze(s->cg, true) == 0;
    if (!s->frozen)
        sup_deliver(s, SIGSTOP, false);
    log_info("job %lld: suspended (%s)", (long long)s->js->job_id,
             s->frozen ? "cgroup frozen" : "SIGSTOP");
}

void sup_suspend(struct sup *s, int grace)
{
    /* a job already ending is let end */
    if (s->suspended_at || s->reason)
        return;
    s->suspended_at = noded_now();
    if (grace <= 0) {
        stop_now(s);
        return;
    }
    /* Slurm's preemption: SIGTSTP lets the job prepare, then it stops */
    sup_deliver(s, SIGTSTP, false);
    s->stop_at = s->suspended_at + grace;
}

void sup_stop_due(struct sup *s)
{
    if (s->suspended_at && s->stop_at && noded_now() >= s->stop_at)
        stop_now(s);
}

void sup_resume(struct sup *s)
{
    if (!s->suspended_at)
        return;
    if (s->frozen && jobcg_freeze(s->cg, false) < 0)
        log_warnx("job %lld: cannot thaw its cgroup", (long long)s->js->job_id);
    /* SIGCONT also after a freeze: a SIGTSTP in its grace stopped some */
    sup_deliver(s, SIGCONT, false);
    int64_t away = noded_now() - s->suspended_at;
    if (s->limit_at)
        s->limit_at += away;
    if (s->warn_at)
        s->warn_at += away;
    s->suspended_s += away;
    log_info("job %lld: resumed after %lld s suspended", (long long)s->js->job_id,
             (long long)away);
    s->suspended_at = s->stop_at = 0;
    s->frozen = false;
}
