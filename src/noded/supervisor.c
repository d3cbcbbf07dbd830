#include "noded/supervisor.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "noded/jobenv.h"
#include "noded/jobexec.h"
#include "noded/jobspec.h"
#include "noded/spool.h"

struct sup {
    struct job_spec *js;
    const char *dir;
    const char *conf_path;
    int kill_wait;
    pid_t pid;             /* the job's process, leader of its process group */
    int64_t limit_at;      /* when the time limit is reached; 0: none */
    int64_t kill_at;       /* when SIGKILL follows; 0: not ending the job */
    const char *reason;    /* TIMEOUT or CANCELLED once we end the job */
    bool killed;
};

static void ready_say(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ready_say(int fd, const char *fmt, ...)
{
    if (fd < 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vdprintf(fd, fmt, ap);
    va_end(ap);
    close(fd);
}

static struct job_spec *load_job(const char *dir, char *err, size_t errlen)
{
    char *path = xasprintf("%s/%s", dir, SPOOL_JOB_JSON);
    json_error_t jerr;
    json_t *o = json_load_file(path, 0, &jerr);
    free(path);
    if (!o) {
        snprintf(err, errlen, "%s/%s: %s", dir, SPOOL_JOB_JSON, jerr.text);
        return NULL;
    }
    struct job_spec *js = job_spec_from_json(o, err, errlen);
    json_decref(o);
    return js;
}

/* Slurm's note in the job's error file; written as the user, so the
 * supervisor never opens a user's path with root's rights. */
static void tell_user(const struct sup *s, const char *why)
{
    char ts[32];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
    pid_t pid = fork();
    if (pid != 0) {
        if (pid > 0)
            waitpid(pid, NULL, 0);
        return;
    }
    const struct job_spec *js = s->js;
    char *path = jobenv_path(js->std_err[0] ? js->std_err : js->std_out, "slurm-%j.out", js);
    int fd = jobexec_become_user(js) == 0
        ? open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC) : -1;
    if (fd >= 0)
        dprintf(fd, "slurmstepd: error: *** JOB %lld ON %s CANCELLED AT %s%s ***\n",
                (long long)js->job_id, js->node_name, ts, why);
    _exit(0);
}

static void end_job(struct sup *s, const char *reason, int sig)
{
    if (s->reason) {
        if (sig == SIGKILL && !s->killed) {
            kill(-s->pid, SIGKILL);
            s->killed = true;
        }
        return;
    }
    s->reason = reason;
    log_info("job %lld: %s, sending signal %d", (long long)s->js->job_id,
             strcmp(reason, "TIMEOUT") == 0 ? "time limit reached" : "cancelled", sig);
    tell_user(s, strcmp(reason, "TIMEOUT") == 0 ? " DUE TO TIME LIMIT" : "");
    kill(-s->pid, SIGCONT);
    kill(-s->pid, sig);
    s->killed = sig == SIGKILL;
    s->kill_at = time(NULL) + s->kill_wait;
}

/* The timeout for the next wait: until the next deadline, at most 60 s. */
static struct timespec next_wait(const struct sup *s)
{
    int64_t now = time(NULL), at = 0;
    if (s->kill_at && !s->killed)
        at = s->kill_at;
    else if (!s->reason && s->limit_at)
        at = s->limit_at;
    int64_t d = at ? at - now : 60;
    struct timespec ts = { d < 0 ? 0 : d > 60 ? 60 : d, d <= 0 ? 10000000 : 0 };
    return ts;
}

static void on_signal(struct sup *s, const siginfo_t *si)
{
    int sig = SIGTERM;
    if (si->si_code == SI_QUEUE && si->si_value.sival_int > 0 && si->si_value.sival_int < NSIG)
        sig = si->si_value.sival_int;
    end_job(s, "CANCELLED", sig);
}

static int wait_job(struct sup *s)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGCHLD);
    for (;;) {
        struct timespec ts = next_wait(s);
        siginfo_t si;
        int got = sigtimedwait(&set, &si, &ts);
        int status;
        if (waitpid(s->pid, &status, WNOHANG) == s->pid)
            return status;
        if (got == SIGTERM || got == SIGINT)
            on_signal(s, &si);
        int64_t now = time(NULL);
        if (!s->reason && s->limit_at && now >= s->limit_at)
            end_job(s, "TIMEOUT", SIGTERM);
        if (s->reason && !s->killed && now >= s->kill_at) {
            kill(-s->pid, SIGKILL);
            s->killed = true;
        }
    }
}

static void record(const struct sup *s, int status)
{
    struct job_result res = { .end_time = time(NULL) };
    const char *state = s->reason ? s->reason
                      : WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "COMPLETED" : "FAILED";
    snprintf(res.state, sizeof res.state, "%s", state);
    res.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
    res.exit_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    if (spool_result_write(s->dir, &res) < 0)
        log_warn("job %lld: cannot write %s/%s", (long long)s->js->job_id, s->dir, SPOOL_RESULT);
    log_info("job %lld: %s exit_code=%d signal=%d", (long long)s->js->job_id, res.state,
             res.exit_code, res.exit_signal);
}

static int start_job(struct sup *s, int ready_fd)
{
    char *script = xasprintf("%s/%s", s->dir, SPOOL_SCRIPT);
    int gate[2];
    if (pipe2(gate, O_CLOEXEC) < 0) {
        ready_say(ready_fd, "ER cannot start the job: %s\n", strerror(errno));
        free(script);
        return -1;
    }
    if ((s->pid = fork()) < 0) {
        ready_say(ready_fd, "ER cannot start the job: %s\n", strerror(errno));
        close(gate[0]);
        close(gate[1]);
        free(script);
        return -1;
    }
    if (s->pid == 0) {
        if (ready_fd >= 0)
            close(ready_fd);
        close(gate[0]);
        jobexec_run(s->js, script, s->conf_path, gate[1]);
    }
    free(script);
    /* the job's process group must exist before anyone is told to signal it */
    close(gate[1]);
    char c;
    while (read(gate[0], &c, 1) < 0 && errno == EINTR)
        ;
    close(gate[0]);
    if (spool_write_pid(s->dir, SPOOL_PGID, s->pid) < 0
        || spool_write_pid(s->dir, SPOOL_SUP_PID, getpid()) < 0)
        log_warn("job %lld: cannot write its pid files", (long long)s->js->job_id);
    ready_say(ready_fd, "OK %ld %ld\n", (long)getpid(), (long)s->pid);
    return 0;
}

static int supervise(struct sup *s, int ready_fd)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGCHLD);
    sigprocmask(SIG_BLOCK, &set, NULL);
    signal(SIGHUP, SIG_IGN);
    signal(SIGPIPE, SIG_DFL);
    int64_t start = s->js->start_time > 0 ? s->js->start_time : time(NULL);
    if (s->js->time_limit > 0)
        s->limit_at = start + s->js->time_limit * 60;
    if (start_job(s, ready_fd) < 0)
        return 1;
    int status = wait_job(s);
    /* what the script left behind in its session goes with it */
    kill(-s->pid, SIGKILL);
    record(s, status);
    return 0;
}

int supervisor_main(int argc, char **argv)
{
    if (argc != 8) {
        fprintf(stderr, "herdd: %s is for herdd's own use\n", SUPERVISOR_FLAG);
        return 2;
    }
    /* exec'd through /proc/self/exe, it would be called "exe" */
    prctl(PR_SET_NAME, "herdd", 0, 0, 0);
    int ready_fd = atoi(argv[7]);
    close_range(3, ready_fd > 3 ? (unsigned)ready_fd - 1 : 2, 0);
    close_range((unsigned)ready_fd + 1, ~0U, 0);
    log_init("herdd", atoi(argv[6]), strcmp(argv[5], "-") ? argv[5] : NULL);
    struct sup s = { .dir = argv[2], .conf_path = argv[3], .kill_wait = atoi(argv[4]) };
    char err[512];
    s.js = load_job(s.dir, err, sizeof err);
    if (!s.js) {
        log_warnx("supervisor: %s", err);
        ready_say(ready_fd, "ER %s\n", err);
        return 1;
    }
    int rc = supervise(&s, ready_fd);
    job_spec_destroy(s.js);
    return rc;
}
