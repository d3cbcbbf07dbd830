/*
 * sched_worker: runs sched_plan on a snapshot in a thread, so that a pass of
 * a second over 100,000 pending jobs never stalls squeue or a submission.
 * The thread touches only the snapshot; it says it is done by writing a byte
 * to a pipe the event loop watches, and the loop applies the decisions.
 */
#include <event2/event.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "ctld/ctld.h"
#include "ctld/sched_snap.h"

struct sched_worker {
    pthread_t thread;
    int pipe[2];               /* worker -> loop: "done" */
    struct event *done_ev;
    struct sched_snap *snap;   /* in flight; NULL when idle */
    bool threaded;             /* snap is planned by `thread` (else it was, inline) */
    void (*done)(struct ctld *, struct sched_snap *);
};

/* The plain words of every waiting job's decision, while still on the
 * worker's time: a string each, or NULL. */
static void explain_all(struct sched_snap *s)
{
    char buf[512];
    s->words = xcalloc(s->out.n ? s->out.n : 1, sizeof *s->words);
    for (size_t i = 0; i < s->out.n && i < s->in.npending; i++) {
        const struct sched_decision *d = &s->out.d[i];
        if (d->reason == SCHED_NONE)
            continue;
        sched_explain_decision(&s->in, &s->in.pending[i], d, s->now, buf, sizeof buf);
        s->words[i] = xstrdup(buf);
    }
}

static void *worker_main(void *arg)
{
    struct sched_worker *w = arg;
    sched_plan(&w->snap->in, w->snap->now, &w->snap->out);
    explain_all(w->snap);
    char b = 1;
    ssize_t n = write(w->pipe[1], &b, 1);
    (void)n;   /* a full pipe already holds a wake-up */
    return NULL;
}

static void on_done(evutil_socket_t fd, short what, void *arg)
{
    struct ctld *c = arg;
    struct sched_worker *w = c->worker;
    char buf[16];
    (void)what;
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0 || !w->snap)
        return;
    if (w->threaded)
        pthread_join(w->thread, NULL);
    struct sched_snap *s = w->snap;
    w->snap = NULL;
    w->done(c, s);
}

static struct sched_worker *worker_get(struct ctld *c)
{
    if (c->worker)
        return c->worker;
    struct sched_worker *w = xcalloc(1, sizeof *w);
    if (pipe2(w->pipe, O_CLOEXEC | O_NONBLOCK) < 0)
        fatal("pipe");
    w->done_ev = event_new(c->base, w->pipe[0], EV_READ | EV_PERSIST, on_done, c);
    event_add(w->done_ev, NULL);
    return c->worker = w;
}

int ctld_sched_worker_run(struct ctld *c, struct sched_snap *s,
                     void (*done)(struct ctld *, struct sched_snap *))
{
    struct sched_worker *w = worker_get(c);
    if (w->snap)
        return -1;
    w->snap = s;
    w->done = done;
    int rc = pthread_create(&w->thread, NULL, worker_main, w);
    w->threaded = rc == 0;
    if (rc != 0) {
        /* no thread to be had: plan here rather than not at all */
        log_warnx("scheduling thread: %s; planning in the event loop", strerror(rc));
        worker_main(w);
    }
    return 0;
}

bool ctld_sched_worker_busy(const struct ctld *c)
{
    return c->worker && c->worker->snap;
}

void ctld_sched_worker_stop(struct ctld *c)
{
    struct sched_worker *w = c->worker;
    if (!w)
        return;
    if (w->snap) {
        if (w->threaded)
            pthread_join(w->thread, NULL);
        ctld_sched_snap_free(w->snap);
    }
    event_free(w->done_ev);
    close(w->pipe[0]);
    close(w->pipe[1]);
    free(w);
    c->worker = NULL;
}
