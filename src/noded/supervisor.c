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
#include "noded/cgroup.h"
#include "noded/jobctl.h"
#include "noded/jobexec.h"
#include "noded/jobspec.h"
#include "noded/proctrack.h"
#include "noded/spool.h"
#include "noded/supervisor_int.h"
#include "noded/sysops.h"
#include "noded/clock.h"

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

/* What the supervisor itself says on stderr (a sanitizer's report, say)
 * belongs in the node's log, not in herdd's /dev/null. */
static void stderr_to_log(const char *log_file)
{
    /* root opens it: never through a link, as herdd opens the same file */
    int fd = log_file ? open(log_file, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
                             0600) : -1;
    if (fd >= 0) {
        dup2(fd, 2);
        close(fd);
    }
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

/* The job's process: forked, in its session and cgroup, waiting at the go
 * pipe. Then herdd hears "OK <our pid> <its pid>". */
static int start_job(struct sup *s, int ready_fd, int *go_w)
{
    char *script = xasprintf("%s/%s", s->dir, SPOOL_SCRIPT);
    int gate[2] = { -1, -1 }, go[2] = { -1, -1 };
    if (pipe2(gate, O_CLOEXEC) < 0 || pipe2(go, O_CLOEXEC) < 0
        || (s->pid = sys->fork()) < 0) {
        ready_say(ready_fd, "ER cannot start the job: %s\n", strerror(errno));
        for (int i = 0; i < 2; i++) {
            if (gate[i] >= 0)
                close(gate[i]);
            if (go[i] >= 0)
                close(go[i]);
        }
        free(script);
        return -1;
    }
    if (s->pid == 0) {
        if (ready_fd >= 0)
            close(ready_fd);
        close(gate[0]);
        close(go[1]);
        jobexec_run(s->js, script, s->conf_path, gate[1], go[0], s->cg);
    }
    free(script);
    close(go[0]);
    *go_w = go[1];
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

/* The prolog runs before the job's process may go on; a failing one ends
 * the job FAILED before it ran (Slurm would also drain the node and requeue
 * the job: that is the controller's part). */
static bool prolog_passes(struct sup *s, int go_w)
{
    bool ok = !s->nc.prolog
        || jobctl_script(s->nc.prolog, "prolog_slurmd", s->js, s->conf_path) == 0;
    if (ok && write(go_w, "1", 1) != 1)
        ok = false;
    close(go_w);
    if (!ok) {
        log_warnx("job %lld: prolog %s failed: job not run, ended FAILED",
                  (long long)s->js->job_id, s->nc.prolog ? s->nc.prolog : "");
        s->prolog_failed = true;
        sys->kill(s->pid, SIGKILL);
    }
    return ok;
}

static void set_deadlines(struct sup *s)
{
    int64_t start = s->js->start_time > 0 ? s->js->start_time : noded_now();
    s->started = start;
    if (s->js->time_limit > 0)
        s->limit_at = start + s->js->time_limit * 60;
    if (jobsig_parse(s->js->signal, &s->warn) < 0)
        log_warnx("job %lld: ignoring bad --signal '%s'", (long long)s->js->job_id,
                  s->js->signal);
    if (s->warn.sig > 0 && s->limit_at) {
        int64_t at = s->limit_at - s->warn.before_s;
        s->warn_at = at > start ? at : start;
    }
}

static int supervise(struct sup *s, int ready_fd)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGUSR1);
    sigaddset(&set, SIGUSR2);   /* a new time limit: sup_wait takes it */
    sigprocmask(SIG_BLOCK, &set, NULL);
    signal(SIGHUP, SIG_IGN);
    signal(SIGPIPE, SIG_DFL);
    if (proctrack_init() < 0)
        log_warn("job %lld: cannot become a subreaper", (long long)s->js->job_id);
    if (nodeconf_load(&s->nc, s->conf_path) < 0)
        log_warn("job %lld: cannot read %s", (long long)s->js->job_id, s->conf_path);
    s->cg = jobctl_cgroup(s->js, &s->nc, s->dir);
    set_deadlines(s);
    int go_w;
    if (start_job(s, ready_fd, &go_w) < 0) {
        jobcg_destroy(s->cg);
        return 1;
    }
    int status = 1 << 8;       /* exit status 1 */
    if (prolog_passes(s, go_w))
        status = sup_wait(s);
    else
        sys->waitpid(s->pid, NULL, 0);
    sup_finish(s, status);
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
    stderr_to_log(strcmp(argv[5], "-") ? argv[5] : NULL);
    struct sup s = { .dir = argv[2], .conf_path = argv[3], .kill_wait = atoi(argv[4]) };
    char err[512];
    s.js = load_job(s.dir, err, sizeof err);
    if (!s.js) {
        log_warnx("supervisor: %s", err);
        ready_say(ready_fd, "ER %s\n", err);
        return 1;
    }
    int rc = supervise(&s, ready_fd);
    nodeconf_clear(&s.nc);
    job_spec_destroy(s.js);
    return rc;
}
