/*
 * explain: a pending reason in plain words, for people rather than tools
 * (squeue prints Slurm's reason names; the job's "reason_text" says what
 * the name means for this job). Judged on the input's current state.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/xmalloc.h"
#include "sched/sched_int.h"

struct most {
    int64_t gpus, cpus;
    uint64_t mem_mb;
    size_t up, fit, idle;          /* usable nodes; those the slot fits; those empty */
};

static bool node_usable(const struct sched_input *in, const struct sched_free *f, size_t n,
                        const struct sched_job *j)
{
    const struct sched_node *nd = &in->nodes[n];

    if (!f[n].avail)
        return false;
    if (j->gpu_type && *j->gpu_type && (!nd->gpu_type || strcasecmp(nd->gpu_type, j->gpu_type)))
        return false;
    return sched_features_match(nd->features, j->constraint);
}

static void scan_part(const struct sched_input *in, const struct sched_free *f,
                      const struct sched_job *j, const struct sched_shape *sh, struct most *m)
{
    const struct sched_part *p = &in->parts[j->part];

    memset(m, 0, sizeof(*m));
    for (size_t i = 0; i < p->nnodes; i++) {
        size_t n = p->nodes[i];
        if (n >= in->nnodes || !node_usable(in, f, n, j))
            continue;
        m->up++;
        m->idle += !f[n].used;
        if (f[n].excl)
            continue;
        int64_t g = __builtin_popcountll(f[n].gpus);
        if (g > m->gpus)
            m->gpus = g;
        if (f[n].cpus > m->cpus)
            m->cpus = f[n].cpus;
        if (f[n].mem_mb > m->mem_mb)
            m->mem_mb = f[n].mem_mb;
        m->fit += sched_free_fits(&f[n], &in->nodes[n], sh, &sh->runs[0].slot);
    }
}

static size_t need_text(char *buf, size_t len, const struct sched_job *j,
                        const struct sched_shape *sh, const char *part)
{
    const struct sched_slot *s = &sh->runs[0].slot;
    size_t o = (size_t)snprintf(buf, len, "needs ");

    if (sh->exclusive)
        o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "a whole node");
    else {
        if (s->gpus > 0)
            o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%" PRId64 " GPU%s%s%s, ",
                                  s->gpus, s->gpus > 1 ? "s" : "", j->gpu_type && *j->gpu_type
                                  ? " of type " : "", j->gpu_type ? j->gpu_type : "");
        o += (size_t)snprintf(buf + o, o < len ? len - o : 0, "%" PRId64 " CPU%s", s->cpus,
                              s->cpus > 1 ? "s" : "");
        if (s->mem_mb > 0)
            o += (size_t)snprintf(buf + o, o < len ? len - o : 0, ", %" PRIu64 " MB", s->mem_mb);
    }
    if (sh->nnodes > 1)
        o += (size_t)snprintf(buf + o, o < len ? len - o : 0, " on each of %zu nodes",
                              sh->nnodes);
    else
        o += (size_t)snprintf(buf + o, o < len ? len - o : 0, " on one node");
    o += (size_t)snprintf(buf + o, o < len ? len - o : 0, " of partition %s", part);
    if (j->constraint && *j->constraint)
        o += (size_t)snprintf(buf + o, o < len ? len - o : 0, " with features %s",
                              j->constraint);
    return o < len ? o : len;
}

static void explain_resources(const struct sched_input *in, const struct sched_job *j,
                              char *buf, size_t len)
{
    struct sched_shape sh;
    struct most m;
    struct sched_free *f = xcalloc(in->nnodes ? in->nnodes : 1, sizeof(*f));
    const struct sched_slot *s;
    size_t o;

    sched_shape_init(&sh, j, j->nreq_nodes);
    s = &sh.runs[0].slot;
    sched_free_current(in, f);
    scan_part(in, f, j, &sh, &m);
    o = need_text(buf, len, j, &sh, in->parts[j->part].name);
    buf += o;
    len -= o;
    if (m.up < sh.nnodes)
        snprintf(buf, len, "; only %zu such node%s %s up", m.up, m.up == 1 ? "" : "s",
                 m.up == 1 ? "is" : "are");
    else if (sh.exclusive)
        snprintf(buf, len, "; %zu node%s idle", m.idle, m.idle == 1 ? " is" : "s are");
    else if (m.gpus < s->gpus)
        snprintf(buf, len, "; the most free on any node is %" PRId64 " GPU%s", m.gpus,
                 m.gpus == 1 ? "" : "s");
    else if (m.cpus < s->cpus)
        snprintf(buf, len, "; the most free on any node is %" PRId64 " CPU%s", m.cpus,
                 m.cpus == 1 ? "" : "s");
    else if (m.mem_mb < s->mem_mb)
        snprintf(buf, len, "; the most free on any node is %" PRIu64 " MB", m.mem_mb);
    else if (m.fit < sh.nnodes)
        snprintf(buf, len, "; only %zu node%s that free", m.fit, m.fit == 1 ? " has" : "s have");
    else
        snprintf(buf, len, "; the free nodes are held for jobs planned before it");
    xfree(f);
}

void sched_explain(const struct sched_input *in, const struct sched_job *j, enum sched_reason r,
                   char *buf, size_t len)
{
    const char *part = j->part < in->nparts ? in->parts[j->part].name : "?";

    if (len == 0)
        return;
    buf[0] = '\0';
    switch (r) {
    case SCHED_NONE:
        break;
    case SCHED_RESOURCES:
        if (j->part < in->nparts)
            explain_resources(in, j, buf, len);
        break;
    case SCHED_PRIORITY:
        snprintf(buf, len, "jobs of higher priority wait first in partition %s", part);
        break;
    case SCHED_HELD_USER:
        snprintf(buf, len, "held by its user (scontrol release lets it run)");
        break;
    case SCHED_HELD_ADMIN:
        snprintf(buf, len, "held by an administrator");
        break;
    case SCHED_PART_DOWN:
        snprintf(buf, len, "partition %s is down", part);
        break;
    case SCHED_PART_TIME_LIMIT:
        snprintf(buf, len, "its time limit of %" PRId64 " minutes is over partition %s's "
                 "MaxTime of %" PRId64, j->time_limit_min, part,
                 j->part < in->nparts ? in->parts[j->part].max_time_min : 0);
        break;
    case SCHED_REQ_NODE_NOT_AVAIL:
        snprintf(buf, len, "a node it asks for (-w) is down, drained or not responding");
        break;
    case SCHED_LIMIT:
        snprintf(buf, len, "over a limit of its QOS or account");   /* the caller says which */
        break;
    case SCHED_BAD_CONSTRAINTS:
        snprintf(buf, len, "no node of partition %s could ever run it%s%s%s", part,
                 j->constraint && *j->constraint ? " (features " : "",
                 j->constraint && *j->constraint ? j->constraint : "",
                 j->constraint && *j->constraint ? ")" : "");
        break;
    case SCHED_BEGIN_TIME:
        snprintf(buf, len, "not eligible before its --begin time");
        break;
    case SCHED_DEPENDENCY:
        snprintf(buf, len, "waits for the jobs it depends on (--dependency)");
        break;
    case SCHED_DEP_NEVER:
        snprintf(buf, len, "its dependency can never be satisfied; scancel it or change it");
        break;
    case SCHED_RESERVATION:
        snprintf(buf, len, "its reservation has not begun or has nothing free for it now");
        break;
    case SCHED_RESV_MAINT:
        snprintf(buf, len, "its time limit runs into a maintenance reservation; it starts "
                 "after the maintenance or sooner with a shorter --time");
        break;
    case SCHED_RESV_OTHER:
        snprintf(buf, len, "its time limit runs into a reservation it may not use; it starts "
                 "after the reservation or sooner with a shorter --time");
        break;
    case SCHED_RESV_DELETED:
        snprintf(buf, len, "the reservation it asks for was deleted; scontrol update it");
        break;
    }
}

uint64_t sched_explain_waits_for(const struct sched_input *in, const struct sched_job *j,
                                 int64_t start)
{
    uint64_t best = 0;
    int64_t best_end = INT64_MIN;
    bool *inpart;

    if (j->part >= in->nparts || start < 0)
        return 0;
    inpart = xcalloc(in->nnodes ? in->nnodes : 1, sizeof(*inpart));
    for (size_t i = 0; i < in->parts[j->part].nnodes; i++)
        if (in->parts[j->part].nodes[i] < in->nnodes)
            inpart[in->parts[j->part].nodes[i]] = true;
    for (size_t r = 0; r < in->nrunning; r++) {
        const struct sched_running *run = &in->running[r];
        bool touches = false;
        if (run->end_time < 0 || run->end_time > start || run->end_time < best_end)
            continue;
        for (size_t k = 0; k < run->nallocs && !touches; k++)
            touches = run->allocs[k].node < in->nnodes && inpart[run->allocs[k].node];
        if (touches && (run->end_time > best_end || run->job_id < best)) {
            best = run->job_id;
            best_end = run->end_time;
        }
    }
    xfree(inpart);
    return best;
}

/* "14:20" today, else "2026-05-01T14:20": local time by the offset the
 * caller gives, as UTC shifted by it, so that the text never depends on
 * the process's TZ. */
static void when_text(int64_t t, int64_t now, int32_t off, char *buf, size_t len)
{
    time_t tt = (time_t)(t + off), nn = (time_t)(now + off);
    struct tm a, b;
    gmtime_r(&tt, &a);
    gmtime_r(&nn, &b);
    strftime(buf, len, a.tm_yday == b.tm_yday && a.tm_year == b.tm_year ? "%H:%M"
                                                                         : "%Y-%m-%dT%H:%M", &a);
}

void sched_explain_decision(const struct sched_input *in, const struct sched_job *j,
                            const struct sched_decision *d, int64_t now, char *buf, size_t len)
{
    char when[32];
    sched_explain(in, j, d->reason, buf, len);
    size_t o = strlen(buf);
    if (d->npreempt > 0 && o + 1 < len) {
        snprintf(buf + o, len - o, "; preempting %zu job%s (%llu%s) to start when %s", d->npreempt,
                 d->npreempt == 1 ? "" : "s", (unsigned long long)d->preempt[0],
                 d->npreempt > 1 ? ", ..." : "", d->npreempt == 1 ? "it ends" : "they end");
        return;
    }
    if ((d->reason == SCHED_RESV_MAINT || d->reason == SCHED_RESV_OTHER) &&
        d->start_estimate > now &&
        d->start_estimate < INT64_MAX / 8 && o + 1 < len) {
        when_text(d->start_estimate, now, in->utc_offset_s, when, sizeof when);
        snprintf(buf + o, len - o, "; expected start %s", when);
        return;
    }
    if ((d->reason != SCHED_RESOURCES && d->reason != SCHED_PRIORITY) || d->start_estimate <= now ||
        d->start_estimate >= INT64_MAX / 8 || o + 1 >= len)
        return;
    uint64_t after = sched_explain_waits_for(in, j, d->start_estimate);
    when_text(d->start_estimate, now, in->utc_offset_s, when, sizeof when);
    if (after)
        snprintf(buf + o, len - o, "; expected start %s when job %llu ends", when,
                 (unsigned long long)after);
    else
        snprintf(buf + o, len - o, "; expected start %s", when);
}
