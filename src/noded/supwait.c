#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "noded/cgroup.h"
#include "noded/jobenv.h"
#include "noded/jobexec.h"
#include "noded/jobspec.h"
#include "noded/proctrack.h"
#include "noded/supervisor.h"
#include "noded/supervisor_int.h"
#include "noded/sysops.h"
#include "noded/clock.h"

void sup_deliver(struct sup *s, int sig, bool batch_only)
{
    if (batch_only)
        sys->kill(s->pid, sig);
    else if (!s->cg || jobcg_signal(s->cg, sig) == 0)
        proctrack_signal(sig, 0);     /* also where the job never joined its cgroup */
}

/* Slurm's note in the job's error file (22.05's log prefix names the node:
 * "slurmstepd-node1: error:"); written as the user, so the
 * supervisor never opens a user's path with root's rights. */
static void tell_user(const struct sup *s, const char *why)
{
    char ts[32];
    time_t now = (time_t)noded_now();
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
    pid_t pid = sys->fork();
    if (pid != 0) {
        if (pid > 0)
            sys->waitpid(pid, NULL, 0);
        return;
    }
    const struct job_spec *js = s->js;
    char *path = jobenv_path(js->std_err[0] ? js->std_err : js->std_out,
                             jobenv_default_out(js), js);
    int fd = jobexec_become_user(js) == 0
        ? open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC) : -1;
    if (fd >= 0)
        dprintf(fd, "slurmstepd-%s: error: *** JOB %lld ON %s CANCELLED AT %s%s ***\n",
                js->node_name, (long long)js->job_id, js->node_name, ts, why);
    _exit(0);
}

/* why: the note's end (" DUE TO TIME LIMIT"...), "" for a plain cancel */
static void end_job(struct sup *s, const char *reason, const char *why, int sig)
{
    if (s->reason) {
        if (sig == SIGKILL && !s->killed) {
            sup_deliver(s, SIGKILL, false);
            s->killed = true;
        }
        return;
    }
    sup_resume(s);   /* a suspended job must run to take its signals */
    s->reason = reason;
    log_info("job %lld: %s, sending signal %d", (long long)s->js->job_id,
             strcmp(reason, "TIMEOUT") == 0 ? "time limit reached" : "cancelled", sig);
    tell_user(s, why);
    sup_deliver(s, SIGCONT, false);
    sup_deliver(s, sig, false);
    s->killed = sig == SIGKILL;
    s->kill_at = noded_now() + s->kill_wait;
}

/* The timeout for the next wait: until the next deadline, at most 60 s. */
static struct timespec next_wait(const struct sup *s)
{
    int64_t now = noded_now(), at = 0;
    bool counting = !s->reason && !s->suspended_at;   /* its time limit runs */
    if (s->kill_at && !s->killed)
        at = s->kill_at;
    else if (counting && s->limit_at)
        at = s->limit_at;
    else if (s->stop_at)
        at = s->stop_at;
    if (counting && s->warn_at && (!at || s->warn_at < at))
        at = s->warn_at;
    int64_t d = at ? at - now : 60;
    struct timespec ts = { d < 0 ? 0 : d > 60 ? 60 : d, d <= 0 ? 10000000 : 0 };
    return ts;
}

/* sigqueue's value: the signal to send (SIGTERM: first signal of a cancel;
 * SIGUSR1: a plain signal for the job's processes, or with SUP_SIG_BATCH
 * for the batch shell alone). */
static void on_signal(struct sup *s, int got, const siginfo_t *si)
{
    int sig = got == SIGUSR1 ? 0 : SIGTERM;
    int v = si->si_code == SI_QUEUE ? si->si_value.sival_int : 0;
    bool batch = (v & SUP_SIG_BATCH) != 0;
    bool requeue = (v & SUP_SIG_REQUEUE) != 0, preempt = (v & SUP_SIG_PREEMPT) != 0;
    if (got == SIGUSR1 && (v & SUP_SIG_SUSPEND)) {
        sup_suspend(s, v & SUP_SIG_GRACE_MASK);
        return;
    }
    if (got == SIGUSR1 && (v & SUP_SIG_RESUME)) {
        sup_resume(s);
        return;
    }
    v &= ~(SUP_SIG_BATCH | SUP_SIG_REQUEUE | SUP_SIG_PREEMPT);
    if (v > 0 && v < NSIG)
        sig = v;
    if (got == SIGUSR1) {
        if (sig > 0 && !s->killed) {
            log_info("job %lld: signal %d to %s", (long long)s->js->job_id, sig,
                     batch ? "the batch shell" : "all its processes");
            sup_deliver(s, sig, batch);
        }
        return;
    }
    end_job(s, "CANCELLED", preempt ? " DUE TO PREEMPTION" : requeue ? " DUE TO JOB REQUEUE" : "",
            sig);
}

/* scontrol update TimeLimit= of the running job: minutes from its start
 * (-1, 0: none), and --signal's warning moves with it unless it was sent. */
static void on_new_limit(struct sup *s, const siginfo_t *si)
{
    if (si->si_code != SI_QUEUE)
        return;
    int minutes = si->si_value.sival_int;
    s->limit_at = minutes > 0 ? s->started + (int64_t)minutes * 60 + s->suspended_s : 0;
    if (s->warn.sig > 0 && s->warn_at) {
        int64_t at = s->limit_at - s->warn.before_s;
        s->warn_at = !s->limit_at ? 0 : at > s->started ? at : s->started;
    }
    log_info("job %lld: time limit now %d min", (long long)s->js->job_id, minutes);
}

static void check_deadlines(struct sup *s)
{
    int64_t now = noded_now();
    sup_stop_due(s);
    if (s->suspended_at && !s->reason)
        return;   /* suspended time does not count against the limit */
    if (!s->reason && s->warn_at && now >= s->warn_at) {
        log_info("job %lld: --signal %d, %d s before the time limit%s", (long long)s->js->job_id,
                 s->warn.sig, s->warn.before_s, s->warn.batch_only ? ", batch shell" : "");
        sup_deliver(s, s->warn.sig, s->warn.batch_only);
        s->warn_at = 0;
    }
    if (!s->reason && s->limit_at && now >= s->limit_at)
        end_job(s, "TIMEOUT", " DUE TO TIME LIMIT", SIGTERM);
    if (s->reason && !s->killed && now >= s->kill_at) {
        sup_deliver(s, SIGKILL, false);
        s->killed = true;
    }
}

/* Reaps every child (orphans of the job come to us, the subreaper); true
 * with *status once the job's own process is among them. */
static bool reap(struct sup *s, int *status)
{
    bool done = false;
    int st;
    pid_t p;
    while ((p = sys->waitpid(-1, &st, WNOHANG)) > 0) {
        if (p == s->pid) {
            *status = st;
            done = true;
        }
    }
    return done;
}

int sup_wait(struct sup *s)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGUSR1);
    sigaddset(&set, SIGUSR2);
    int status = 0;
    for (;;) {
        struct timespec ts = next_wait(s);
        siginfo_t si;
        int got = sigtimedwait(&set, &si, &ts);
        if (reap(s, &status))
            return status;
        if (got == SIGTERM || got == SIGINT || got == SIGUSR1)
            on_signal(s, got, &si);
        else if (got == SIGUSR2)
            on_new_limit(s, &si);
        check_deadlines(s);
    }
}
