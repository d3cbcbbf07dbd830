/*
 * metrics: the figures kept between scrapes. RPCs are counted per route
 * pattern (the route table's, so the series are as many as the routes, not
 * the paths), and timed from the moment the caller is known to the answer
 * (a submission's answer waits for its commit, so its latency includes it).
 * GPU-seconds are charged per user as value = base + gpus * now: a start
 * subtracts gpus * start from base and adds the GPUs, an end adds
 * gpus * end back, so a scrape reads every user's total in one step and the
 * counter never goes back.
 */
#include "ctld/metrics.h"

#include <event2/buffer.h>
#include <stdlib.h>
#include <string.h>

#include "common/http.h"
#include "common/openmetrics.h"
#include "common/xmalloc.h"

struct charge {
    uint64_t job;
    size_t user;
    int64_t gpus;
};

struct guser {
    char *name;
    double base;           /* GPU-seconds, less the running GPUs' gpus * start */
    int64_t gpus;          /* GPUs its running jobs hold */
};

static const char *const methods[] = { "GET", "POST", "DELETE", "PUT", "HEAD", "OTHER" };
#define NMETHODS (sizeof methods / sizeof *methods)

struct metrics {
    const struct http_route *routes;
    size_t nroutes;
    uint64_t *requests;    /* per route */
    struct om_hist *latency;
    uint64_t unmatched[NMETHODS];
    struct om_hist commit;
    struct guser *users;
    size_t nusers, capusers;
    struct charge *charges;    /* the running jobs that hold GPUs */
    size_t ncharges, capcharges;
    double idle_s;             /* idle GPU-seconds up to the last tick */
    uint64_t idle_now;         /* idle GPUs at the last tick */
    int64_t idle_at_ms;        /* the last tick (monotonic); 0 none yet */
};

static size_t user_index(struct metrics *m, const char *name)
{
    for (size_t i = 0; i < m->nusers; i++)
        if (strcmp(m->users[i].name, name) == 0)
            return i;
    if (m->nusers == m->capusers) {
        m->capusers = m->capusers ? m->capusers * 2 : 8;
        m->users = xrealloc(m->users, m->capusers * sizeof *m->users);
    }
    m->users[m->nusers] = (struct guser){ .name = xstrdup(name) };
    return m->nusers++;
}

static int64_t job_gpus(const struct job *j)
{
    int64_t g = 0;
    for (size_t k = 0; k < j->nallocs; k++)
        g += __builtin_popcountll(j->allocs[k].gpu_mask);
    return g;
}

static void charge_start(struct metrics *m, const struct job *j, int64_t now)
{
    int64_t g = job_gpus(j);
    if (g == 0)
        return;
    for (size_t i = 0; i < m->ncharges; i++)
        if (m->charges[i].job == j->id)
            return;
    size_t u = user_index(m, j->user_name ? j->user_name : "");
    m->users[u].base -= (double)g * (double)now;
    m->users[u].gpus += g;
    if (m->ncharges == m->capcharges) {
        m->capcharges = m->capcharges ? m->capcharges * 2 : 16;
        m->charges = xrealloc(m->charges, m->capcharges * sizeof *m->charges);
    }
    m->charges[m->ncharges++] = (struct charge){ j->id, u, g };
}

static void charge_end(struct metrics *m, uint64_t job, int64_t now)
{
    for (size_t i = 0; i < m->ncharges; i++) {
        struct charge *ch = &m->charges[i];
        if (ch->job != job)
            continue;
        m->users[ch->user].base += (double)ch->gpus * (double)now;
        m->users[ch->user].gpus -= ch->gpus;
        *ch = m->charges[--m->ncharges];
        return;
    }
}

struct metrics *metrics_create(const struct ctld *c, const struct http_route *routes,
                               size_t nroutes)
{
    struct metrics *m = xcalloc(1, sizeof *m);
    m->routes = routes;
    m->nroutes = nroutes;
    m->requests = xcalloc(nroutes ? nroutes : 1, sizeof *m->requests);
    m->latency = xcalloc(nroutes ? nroutes : 1, sizeof *m->latency);
    int64_t now = ctld_now();
    const struct job *j;
    JOB_FOREACH_HOLDING(c, j)
        charge_start(m, j, now);
    return m;
}

void metrics_destroy(struct metrics *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->nusers; i++)
        free(m->users[i].name);
    free(m->users);
    free(m->charges);
    free(m->requests);
    free(m->latency);
    free(m);
}

void metrics_on_job(struct ctld *c, struct job *j, enum job_event ev)
{
    if (!c->metrics)
        return;
    if (ev == JOB_STARTED)
        charge_start(c->metrics, j, ctld_now());
    else if (ev == JOB_ENDED || ev == JOB_REQUEUED)
        charge_end(c->metrics, j->id, ctld_now());
}

static double idle_until(const struct metrics *m, int64_t now_ms)
{
    if (!m->idle_at_ms)
        return m->idle_s;
    return m->idle_s + (double)m->idle_now * (double)(now_ms - m->idle_at_ms) / 1000.0;
}

void metrics_tick(struct ctld *c)
{
    struct metrics *m = c->metrics;
    if (!m)
        return;
    int64_t now = ctld_mono_ms();
    struct node_usage *u = node_usage_get(c);
    m->idle_s = idle_until(m, now);
    m->idle_now = metrics_gpus_idle(c, u);
    m->idle_at_ms = now;
    free(u);
}

void metrics_write_idle(const struct ctld *c, struct evbuffer *b)
{
    om_family(b, "herd_gpus_idle_seconds_total",
              "GPU-seconds idle GPUs (as herd_gpus_idle) stood unused since the controller "
              "started, sampled every second", "counter");
    om_sample(b, "herd_gpus_idle_seconds_total", NULL, 0,
              c->metrics ? idle_until(c->metrics, ctld_mono_ms()) : 0);
}

int64_t metrics_rpc_start(void *arg)
{
    (void)arg;
    return ctld_mono_us();
}

void metrics_rpc_end(void *arg, int route, const char *method, int status, int64_t token)
{
    struct metrics *m = arg;
    (void)status;
    if (route < 0 || (size_t)route >= m->nroutes) {
        size_t i = 0;
        while (i < NMETHODS - 1 && strcmp(methods[i], method) != 0)
            i++;
        m->unmatched[i]++;
        return;
    }
    m->requests[route]++;
    if (token)
        om_hist_observe(&m->latency[route], ctld_mono_us() - token);
}

void metrics_commit_seen(void *arg, int64_t us)
{
    struct metrics *m = arg;
    om_hist_observe(&m->commit, us);
}

void metrics_write_rpc(const struct metrics *m, struct evbuffer *b)
{
    om_family(b, "herd_rpc_requests_total",
              "Requests answered, by route pattern (route \"unmatched\": no route)", "counter");
    for (size_t i = 0; i < m->nroutes; i++) {
        struct om_label l[2] = { { "method", m->routes[i].method },
                                 { "route", m->routes[i].pattern } };
        om_sample(b, "herd_rpc_requests_total", l, 2, (double)m->requests[i]);
    }
    for (size_t i = 0; i < NMETHODS; i++) {
        struct om_label l[2] = { { "method", methods[i] }, { "route", "unmatched" } };
        if (m->unmatched[i])
            om_sample(b, "herd_rpc_requests_total", l, 2, (double)m->unmatched[i]);
    }
    om_family(b, "herd_rpc_latency_seconds",
              "Time from the caller known to the answer sent, by route pattern", "histogram");
    for (size_t i = 0; i < m->nroutes; i++) {
        struct om_label l[2] = { { "method", m->routes[i].method },
                                 { "route", m->routes[i].pattern } };
        if (m->latency[i].count)
            om_hist_write(b, "herd_rpc_latency_seconds", l, 2, &m->latency[i]);
    }
    om_family(b, "herd_db_commit_seconds", "Time the state database takes to commit",
              "histogram");
    om_hist_write(b, "herd_db_commit_seconds", NULL, 0, &m->commit);
}

void metrics_write_gpu_seconds(const struct metrics *m, struct evbuffer *b, int64_t now)
{
    om_family(b, "herd_user_gpu_seconds_total",
              "GPU-seconds allocated to the user's jobs since the controller started",
              "counter");
    for (size_t i = 0; m && i < m->nusers; i++) {
        struct om_label l = { "username", m->users[i].name };
        double v = m->users[i].base + (double)m->users[i].gpus * (double)now;
        om_sample(b, "herd_user_gpu_seconds_total", &l, 1, v < 0 ? 0 : v);
    }
}
