/*
 * launch_ready: a job between its launch and its supervisor's "OK <pid>
 * <pgid>". herdd does not block on it: the answer comes on the ready pipe,
 * in the event loop, and the launch request is answered then, so that the
 * supervisors of many launches come up at once (waiting for each in turn
 * bounded a node to one start at a time). What comes for the job in the
 * meantime (a repeated launch, signals, a new time limit) is kept and
 * answered or passed on once the supervisor is up.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/http.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "noded/agent.h"
#include "noded/sysops.h"
#include "common/slurm_errno.h"

#define READY_TIMEOUT_S 10

struct waiter {
    struct http_req *r;
    struct waiter *next;
};

struct launching {
    struct ajob *j;
    struct event *ev;
    int fd;                /* the ready pipe's read end */
    char *dir;             /* the job's spool directory, removed on failure */
    char buf[512];
    size_t len;
    struct waiter *waiters;
    int sig;               /* deferred signal (0: none), batch shell only? */
    bool sig_batch;
    int cancel_sig;        /* deferred cancel's first signal (0: none) */
    int limit_min;         /* deferred time limit; INT_MIN: none */
};

static void answer_all(struct launching *l, bool ok, const char *err)
{
    while (l->waiters) {
        struct waiter *w = l->waiters;
        l->waiters = w->next;
        if (ok)
            http_reply(w->r, 200, NULL);
        else
            http_reply_error(w->r, 500, SLURM_ERROR, "%s", err);
        free(w);
    }
}

static void release(struct launching *l)
{
    if (l->ev)
        event_free(l->ev);
    if (l->fd >= 0)
        close(l->fd);
    free(l->dir);
    free(l);
}

static int parse_ready(const char *buf, struct ajob *j, char *err, size_t errlen)
{
    long sup, pgid;
    if (sscanf(buf, "OK %ld %ld", &sup, &pgid) == 2 && sup > 1 && pgid > 1) {
        j->sup_pid = (pid_t)sup;
        j->pgid = (pid_t)pgid;
        return 0;
    }
    snprintf(err, errlen, "supervisor failed: %s",
             strncmp(buf, "ER ", 3) == 0 ? buf + 3 : "no answer");
    return -1;
}

/* What came while the supervisor started, in the order it would have had. */
static void pass_deferred(const struct launching *l, struct ajob *j)
{
    if (l->limit_min != INT_MIN
        && sys->sigqueue(j->sup_pid, SIGUSR2, (union sigval){ .sival_int = l->limit_min }) < 0)
        log_warn("job %lld: cannot pass on its new time limit", (long long)j->id);
    if (l->sig)
        agent_job_signal(j, l->sig, false, l->sig_batch);
    if (l->cancel_sig)
        agent_job_signal(j, l->cancel_sig, true, false);
    else if (j->agent->stopping)
        agent_job_signal(j, SIGKILL, true, false);
}

static void finish(struct launching *l)
{
    struct ajob *j = l->j;
    char err[600];
    l->buf[l->len] = '\0';
    l->buf[strcspn(l->buf, "\n")] = '\0';
    bool ok = parse_ready(l->buf, j, err, sizeof err) == 0;
    j->starting = NULL;
    if (ok) {
        log_info("job %lld: started, supervisor %ld", (long long)j->id, (long)j->sup_pid);
        pass_deferred(l, j);
    } else {
        log_warnx("launch refused: %s", err);
        spool_rmtree(l->dir);
        agent_job_forget(j->agent, j);
    }
    answer_all(l, ok, err);
    release(l);
}

static void on_ready(evutil_socket_t fd, short what, void *arg)
{
    struct launching *l = arg;
    if (what & EV_TIMEOUT) {
        finish(l);
        return;
    }
    ssize_t n = read(fd, l->buf + l->len, sizeof l->buf - 1 - l->len);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n > 0)
        l->len += (size_t)n;
    if (n <= 0 || memchr(l->buf, '\n', l->len) || l->len == sizeof l->buf - 1)
        finish(l);
}

void launch_wait(struct ajob *j, int fd, char *dir, struct http_req *r)
{
    struct launching *l = xcalloc(1, sizeof *l);
    l->j = j;
    l->fd = fd;
    l->dir = dir;
    l->limit_min = INT_MIN;
    j->starting = l;
    launch_wait_join(j, r);
    struct timeval tv = { READY_TIMEOUT_S, 0 };
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    l->ev = event_new(j->agent->base, fd, EV_READ | EV_PERSIST, on_ready, l);
    if (!l->ev || event_add(l->ev, &tv) < 0)
        finish(l);
}

void launch_wait_join(struct ajob *j, struct http_req *r)
{
    struct waiter *w = xmalloc(sizeof *w);
    *w = (struct waiter){ r, j->starting->waiters };
    j->starting->waiters = w;
}

void launch_defer_signal(struct ajob *j, int sig, bool cancel, bool batch)
{
    struct launching *l = j->starting;
    if (cancel && !l->cancel_sig)
        l->cancel_sig = sig;
    else if (!cancel) {
        l->sig = sig;
        l->sig_batch = batch;
    }
}

void launch_defer_limit(struct ajob *j, int minutes)
{
    j->starting->limit_min = minutes;
}

void launch_wait_free(struct ajob *j)
{
    if (!j->starting)
        return;
    struct launching *l = j->starting;
    j->starting = NULL;
    /* herdd is going away with its server: nobody is left to answer */
    while (l->waiters) {
        struct waiter *w = l->waiters;
        l->waiters = w->next;
        free(w);
    }
    release(l);
}
