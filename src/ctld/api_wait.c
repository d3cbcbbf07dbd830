/*
 * api_wait: GET /v1/jobs/{id}/wait?until=end|running&timeout=S answers when
 * the job has ended (or has left PENDING), the moment it happens: what
 * `sbatch --wait` and the commands that wait for an allocation block on,
 * instead of asking again and again. The answer is the job, as GET
 * /v1/jobs/{id} gives it; after `timeout` seconds (default 50, at most 300)
 * it comes anyway with the job as it is, and the caller asks again, so that
 * a request whose caller died is held for a bounded time.
 */
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>

#include "common/http.h"
#include "common/xmalloc.h"
#include "ctld/api.h"
#include "ctld/ctld.h"

struct waiter {
    struct ctld *c;
    struct http_req *r;
    uint64_t job_id;
    bool until_running;
    long secs;
    struct event *ev;
    struct waiter *next;
};

static bool waited_for(const struct waiter *w, const struct job *j)
{
    return !j || job_is_finished(j) || (w->until_running && j->state != JOB_PENDING);
}

static void answer(struct ctld *c, struct http_req *r, const struct job *j)
{
    json_t *jobs = json_array();
    if (j)
        json_array_append_new(jobs, job_to_json(c, j));
    http_reply(r, 200, json_pack("{s:o, s:I}", "jobs", jobs, "now", (json_int_t)ctld_now()));
}

static void waiter_free(struct waiter *w)
{
    struct waiter **p = &w->c->waiters;
    while (*p && *p != w)
        p = &(*p)->next;
    if (*p)
        *p = w->next;
    event_free(w->ev);
    free(w);
}

/* Woken by api_wait_on_job (the job started or ended) or by the timeout. */
static void waiter_fire(evutil_socket_t fd, short what, void *arg)
{
    struct waiter *w = arg;
    struct job *j = job_find(w->c, w->job_id);
    (void)fd;
    if (!(what & EV_TIMEOUT) && !waited_for(w, j)) {
        /* e.g. requeued at its end: still waiting (activation removed the timeout) */
        struct timeval tv = { w->secs, 0 };
        event_add(w->ev, &tv);
        return;
    }
    answer(w->c, w->r, j);
    waiter_free(w);
}

void api_job_wait(struct http_req *r)
{
    struct ctld *c = r->ctx;
    struct job *j = api_path_visible_job(r);   /* PrivateData: as GET /v1/jobs/{id} */
    if (!j)
        return;
    char *until = http_query_get(r, "until"), *tmo = http_query_get(r, "timeout");
    long secs = tmo ? strtol(tmo, NULL, 10) : 50;
    struct waiter *w = xcalloc(1, sizeof *w);
    *w = (struct waiter){ c, r, j->id, until && strcmp(until, "running") == 0,
                          secs > 0 && secs <= 300 ? secs : 50, NULL, c->waiters };
    free(until);
    free(tmo);
    if (waited_for(w, j)) {
        free(w);
        answer(c, r, j);
        return;
    }
    struct timeval tv = { w->secs, 0 };
    w->ev = event_new(c->base, -1, 0, waiter_fire, w);
    event_add(w->ev, &tv);
    c->waiters = w;
}

/* Waiters wait for a start or an end; back in the queue (requeue) is neither. */
void api_wait_on_job(struct ctld *c, struct job *j, enum job_event ev)
{
    if (ev != JOB_STARTED && ev != JOB_ENDED)
        return;
    for (struct waiter *w = c->waiters; w; w = w->next)
        if (w->job_id == j->id)
            event_active(w->ev, EV_READ, 0);   /* after the change is complete */
}

/* At shutdown: each waiter gets the job as it is, and asks again later. */
void api_wait_free_all(struct ctld *c)
{
    while (c->waiters) {
        answer(c, c->waiters->r, job_find(c, c->waiters->job_id));
        waiter_free(c->waiters);
    }
}
