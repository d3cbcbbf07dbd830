/*
 * auth_async: MUNGE calls on worker threads, answered on the event loop.
 *
 * A job goes to a queue that AUTH_WORKERS threads take from; a worker only
 * calls libmunge and writes the job's result fields. A finished job goes on
 * its loop's done list and one byte on that loop's pipe wakes the loop,
 * which calls the job's callback. A timer on the loop answers a job that
 * munged has not finished in time; the worker then frees that job when its
 * call finally returns. Which side owns a job is decided under the pool's
 * lock by its state. Every libevent and caller object stays on the loop.
 */
#include "common/auth.h"

#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/xmalloc.h"

/* A few threads: each call is short when munged is well, and when it is
 * not, more threads would only wait on it too. */
#define AUTH_WORKERS   4
/* Jobs waiting for a thread beyond this are answered at once: a backlog
 * behind a stuck munged would only grow. */
#define AUTH_QUEUE_MAX 512
static int queue_max = AUTH_QUEUE_MAX;

enum job_state {
    JOB_QUEUED,      /* on the queue: the pool owns it */
    JOB_RUNNING,     /* a worker calls munged */
    JOB_DONE,        /* on its loop's done list, answer not given yet */
    JOB_ABANDONED,   /* answered by the timer: the worker frees it */
    JOB_REFUSED,     /* never queued: the timer answers and frees it */
};

struct notifier;

struct auth_job {
    bool decode;
    char *socket, *cred_in;        /* read by the worker */
    int rc;                        /* written by the worker before JOB_DONE */
    struct auth_id who;
    char *cred_out;
    char err[256];
    int timeout_ms;
    enum job_state state;          /* under pool.mu */
    struct auth_job *next;         /* queue or done list, under pool.mu */
    struct notifier *n;            /* loop side from here on */
    struct event *timer;
    auth_done done;
    void *arg;
};

/* One per event loop that uses the pool: the pipe that wakes it. */
struct notifier {
    struct event_base *base;
    int fds[2];
    struct event *ev;
    struct auth_job *done;         /* under pool.mu, newest first */
    struct notifier *next;
};

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct auth_job *head, *tail;
    size_t queued;
    bool started;
    struct notifier *notifiers;    /* loop threads only */
} pool = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };

static void job_free(struct auth_job *j)
{
    free(j->socket);
    free(j->cred_in);
    free(j->cred_out);
    free(j);
}

static void job_run(struct auth_job *j)
{
    if (j->decode) {
        j->rc = auth_munge_decode(j->socket, j->cred_in, &j->who, j->err, sizeof j->err);
        return;
    }
    j->cred_out = auth_munge_encode(j->socket, j->err, sizeof j->err);
    j->rc = j->cred_out ? 0 : -1;
}

/* Called with pool.mu held; returns with it held. */
static void job_finish_locked(struct auth_job *j)
{
    if (j->state == JOB_ABANDONED) {
        pthread_mutex_unlock(&pool.mu);
        job_free(j);
        pthread_mutex_lock(&pool.mu);
        return;
    }
    j->state = JOB_DONE;
    j->next = j->n->done;
    j->n->done = j;
    /* a full pipe already holds a wake-up: nothing is lost */
    ssize_t w = write(j->n->fds[1], "", 1);
    (void)w;
}

static void *worker(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&pool.mu);
    for (;;) {
        while (!pool.head)
            pthread_cond_wait(&pool.cv, &pool.mu);
        struct auth_job *j = pool.head;
        pool.head = j->next;
        if (!pool.head)
            pool.tail = NULL;
        pool.queued--;
        if (j->state == JOB_QUEUED) {
            j->state = JOB_RUNNING;
            pthread_mutex_unlock(&pool.mu);
            job_run(j);
            pthread_mutex_lock(&pool.mu);
        }
        job_finish_locked(j);
    }
    return NULL;
}

/* The workers start with the first job, after any daemon fork, and with
 * every signal blocked: the loop's thread handles signals. */
static void pool_start(void)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    for (int i = 0; i < AUTH_WORKERS; i++) {
        pthread_t t;
        int e = pthread_create(&t, &attr, worker, NULL);
        if (e)
            fatalx("cannot start a MUNGE worker thread: %s", strerror(e));
    }
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pool.started = true;
}

static void deliver(struct auth_job *j)
{
    struct auth_result res = { .rc = j->rc, .who = j->who, .cred = j->cred_out,
                               .err = j->rc < 0 ? j->err : NULL };
    if (j->timer)
        event_free(j->timer);
    j->timer = NULL;
    j->done(&res, j->arg);
    job_free(j);
}

static void notifier_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    struct notifier *n = arg;
    char buf[256];
    while (read(fd, buf, sizeof buf) > 0)
        ;
    pthread_mutex_lock(&pool.mu);
    struct auth_job *list = n->done;
    n->done = NULL;
    pthread_mutex_unlock(&pool.mu);
    struct auth_job *fifo = NULL;
    while (list) {             /* oldest first */
        struct auth_job *next = list->next;
        list->next = fifo;
        fifo = list;
        list = next;
    }
    while (fifo) {
        struct auth_job *next = fifo->next;
        deliver(fifo);
        fifo = next;
    }
}

static struct notifier *notifier_for(struct event_base *base)
{
    for (struct notifier *n = pool.notifiers; n; n = n->next)
        if (n->base == base)
            return n;
    struct notifier *n = xcalloc(1, sizeof *n);
    if (pipe2(n->fds, O_NONBLOCK | O_CLOEXEC) < 0)
        fatal("cannot create the MUNGE workers' pipe");
    n->base = base;
    n->ev = event_new(base, n->fds[0], EV_READ | EV_PERSIST, notifier_cb, n);
    event_add(n->ev, NULL);
    n->next = pool.notifiers;
    pool.notifiers = n;
    return n;
}

void auth_async_release(struct event_base *base)
{
    for (struct notifier **pp = &pool.notifiers; *pp; pp = &(*pp)->next) {
        struct notifier *n = *pp;
        if (n->base != base)
            continue;
        *pp = n->next;
        event_free(n->ev);
        close(n->fds[0]);
        close(n->fds[1]);
        free(n);
        return;
    }
}

/* The job's time is up: answer now unless a worker already did. Once the
 * job is marked abandoned a worker may free it at any moment, so what the
 * answer needs is copied out under the lock. */
static void job_timeout(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct auth_job *j = arg;
    char err[256];
    pthread_mutex_lock(&pool.mu);
    enum job_state st = j->state;
    struct event *timer = j->timer;
    auth_done done = j->done;
    void *done_arg = j->arg;
    if (st == JOB_REFUSED)
        snprintf(err, sizeof err, "%s", j->err);
    else
        snprintf(err, sizeof err, "MUNGE did not answer within %d ms", j->timeout_ms);
    if (st == JOB_QUEUED || st == JOB_RUNNING)
        j->state = JOB_ABANDONED;
    pthread_mutex_unlock(&pool.mu);
    if (st == JOB_DONE)
        return;                       /* the notifier answers it */
    event_free(timer);
    if (st == JOB_REFUSED)
        job_free(j);
    struct auth_result res = { .rc = -1, .busy = true, .refused = st == JOB_REFUSED, .err = err };
    done(&res, done_arg);
}

static void submit(struct event_base *base, struct auth_job *j, int timeout_ms)
{
    j->n = notifier_for(base);
    j->timeout_ms = timeout_ms;
    j->timer = evtimer_new(base, job_timeout, j);
    struct timeval tv = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };
    pthread_mutex_lock(&pool.mu);
    if (!pool.started)
        pool_start();
    if (pool.queued >= (size_t)queue_max) {
        j->state = JOB_REFUSED;
        snprintf(j->err, sizeof j->err, "too many MUNGE calls waiting");
        tv.tv_sec = tv.tv_usec = 0;
    } else {
        j->state = JOB_QUEUED;
        if (pool.tail)
            pool.tail->next = j;
        else
            pool.head = j;
        pool.tail = j;
        pool.queued++;
        pthread_cond_signal(&pool.cv);
    }
    pthread_mutex_unlock(&pool.mu);
    evtimer_add(j->timer, &tv);
}

static struct auth_job *job_new(const char *socket, auth_done done, void *arg)
{
    struct auth_job *j = xcalloc(1, sizeof *j);
    j->socket = xstrdup(socket);
    j->done = done;
    j->arg = arg;
    return j;
}

void auth_munge_decode_async(struct event_base *base, const char *socket, const char *cred,
                             int timeout_ms, auth_done done, void *arg)
{
    struct auth_job *j = job_new(socket, done, arg);
    j->decode = true;
    j->cred_in = xstrdup(cred);
    submit(base, j, timeout_ms);
}

void auth_munge_encode_async(struct event_base *base, const char *socket, int timeout_ms,
                             auth_done done, void *arg)
{
    submit(base, job_new(socket, done, arg), timeout_ms);
}

void auth_async_set_queue_max(int n)
{
    pthread_mutex_lock(&pool.mu);
    queue_max = n > 0 ? n : AUTH_QUEUE_MAX;
    pthread_mutex_unlock(&pool.mu);
}
