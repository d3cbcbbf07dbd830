/*
 * sched_glue: between the controller's state and the pure scheduling core.
 * A pass takes a snapshot (nodes, partitions, running allocations, pending
 * jobs in priority order: prio_glue.c), asks src/sched for decisions, and
 * applies them: reasons (and their plain words) for the waiting, allocations
 * and launches for the starting.
 * Passes are coalesced: any number of requests in one loop turn make one.
 */
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "ctld/array.h"
#include "ctld/ctld.h"
#include "ctld/depend.h"
#include "ctld/preempt.h"
#include "ctld/prio.h"
#include "ctld/sched_snap.h"
#include "ctld/store.h"

/* One SchedulerParameters option ("key=value"); unknown ones are Slurm's
 * tuning knobs we do not need, and are ignored. */
static int sched_param(struct ctld *c, const char *opt, char *err, size_t errlen)
{
    const char *eq = strchr(opt, '=');
    const char *v = eq ? eq + 1 : "";
    size_t klen = eq ? (size_t)(eq - opt) : strlen(opt);
    char *end;
    long n = strtol(v, &end, 10);
    bool num_ok = *v && *end == '\0' && n >= 0;
    if (klen == 11 && strncmp(opt, "herd_policy", klen) == 0) {
        if (sched_policy_parse(v, &c->policy))
            return 0;
    } else if (klen == 15 && strncmp(opt, "bf_max_job_test", klen) == 0) {
        if (num_ok) {
            c->bf_max_job_test = (size_t)n;
            return 0;
        }
    } else if (klen == 14 && strncmp(opt, "herd_age_bound", klen) == 0) {
        if (num_ok) {
            c->age_bound_s = (int64_t)n * 3600;   /* hours */
            return 0;
        }
    } else if (klen == 13 && strncmp(opt, "herd_age_resv", klen) == 0) {
        if (num_ok) {
            c->age_resv = (size_t)n;
            return 0;
        }
    } else if (klen == 9 && strncmp(opt, "bf_window", klen) == 0) {
        if (num_ok) {
            c->bf_window_s = (int64_t)n * 60;   /* minutes, as Slurm */
            return 0;
        }
    } else if (klen == 11 && strncmp(opt, "bf_interval", klen) == 0) {
        if (num_ok && n > 0) {
            c->bf_interval_s = (int)n;
            return 0;
        }
    } else if (klen == 13 && strncmp(opt, "bf_resolution", klen) == 0) {
        if (num_ok) {
            c->bf_resolution_s = (int)n;
            return 0;
        }
    } else {
        return 0;
    }
    snprintf(err, errlen, "%s: SchedulerParameters: invalid value in '%s'", c->conf->path, opt);
    return -1;
}

int ctld_sched_configure(struct ctld *c, char *err, size_t errlen)
{
    const char *type = c->conf->sched_type;
    if (strcmp(type, "sched/backfill") == 0) {
        c->policy = SCHED_POLICY_HERD;   /* our best: EASY, largest expansion factor first */
    } else if (strcmp(type, "sched/builtin") == 0) {
        c->policy = SCHED_POLICY_FIFO;
    } else {
        snprintf(err, errlen, "%s: SchedulerType=%s is not supported (sched/backfill, "
                 "sched/builtin)", c->conf->path, type);
        return -1;
    }
    c->bf_window_s = 1440 * 60;
    c->bf_resolution_s = 60;
    c->bf_interval_s = 30;
    c->age_bound_s = SCHED_AGE_BOUND_DEFAULT_S;
    c->age_resv = SCHED_AGE_RESV_DEFAULT;
    if (!c->pred)
        c->pred = sched_predict_new();   /* kept over a reconfigure */
    char *params = xstrdup(c->conf->sched_params ? c->conf->sched_params : "");
    char *save = NULL;
    int rc = 0;
    for (char *tok = strtok_r(params, ",", &save); tok && rc == 0;
         tok = strtok_r(NULL, ",", &save))
        rc = sched_param(c, tok, err, errlen);
    free(params);
    return rc;
}

/* At most one pass per SCHED_MIN_GAP_MS: under a stream of submissions or
 * cancels, each pass then covers many of them instead of one. A pass also
 * takes the event loop's time (the snapshot, applying the decisions), which
 * grows with the queue: the gap is at least SCHED_LOOP_SHARE times that,
 * so that passes over a queue of a million jobs never take more than a
 * third of the loop from the submissions that make it grow (without it,
 * bulk submission fell from 9,500 to 2,100 jobs/s between 0 and 200,000
 * pending). */
#define SCHED_MIN_GAP_MS 20
#define SCHED_LOOP_SHARE 2
#define SCHED_SLOW_MS 500

static int64_t gap_ms(const struct ctld *c)
{
    int64_t busy = SCHED_LOOP_SHARE * c->pass_loop_us / 1000;
    return busy > SCHED_MIN_GAP_MS ? busy : SCHED_MIN_GAP_MS;
}

/* A start came from a pass; every other change may let a job start. */
void ctld_sched_on_job(struct ctld *c, struct job *j, enum job_event ev)
{
    /* An ended run teaches the predictor (the job's class: its time limit). */
    if (ev == JOB_ENDED && c->pred && j->start_time > 0 && j->end_time >= j->start_time) {
        int64_t limit_s = j->req.time_limit_min > 0 ? j->req.time_limit_min * 60 : 0;
        sched_predict_learn(c->pred, (uint64_t)j->uid, limit_s, j->end_time - j->start_time,
                            limit_s);
    }
    if (ev != JOB_STARTED)
        ctld_sched_request(c);
}

void ctld_sched_request(struct ctld *c)
{
    if (!c->sched_ev || event_pending(c->sched_ev, EV_TIMEOUT, NULL))
        return;
    int64_t wait = c->last_pass_ms + gap_ms(c) - ctld_mono_ms();
    if (c->last_pass_ms == 0 || wait <= 0) {
        event_active(c->sched_ev, EV_TIMEOUT, 0);
        return;
    }
    struct timeval tv = { 0, (suseconds_t)(wait * 1000) };
    event_add(c->sched_ev, &tv);
}

/* Submissions, ends, cancels and node changes ask for a pass themselves;
 * time alone changes priorities (age), forecasts and --begin, so a pass
 * follows every bf_interval, and the second a --begin time comes. */
void ctld_sched_tick(struct ctld *c, int64_t now)
{
    bool due = now - c->last_periodic_s >= c->bf_interval_s, pending = false;
    const struct job *j;
    JOB_FOREACH(c, j) {
        if (j->state != JOB_PENDING)
            continue;
        pending = true;
        if (j->begin_time > c->last_tick_s && j->begin_time <= now)
            due = true;
    }
    due |= depend_due(c, c->last_tick_s, now);
    c->last_tick_s = now;
    if (due && pending) {
        c->last_periodic_s = now;
        ctld_sched_request(c);
    }
}

/* Still true now, after the pass planned on a copy: the job is pending,
 * eligible and as it was specified then, and every node it would get is up. */
static bool still_valid(struct ctld *c, const struct sched_snap *s, size_t i, struct job *j)
{
    if (!j || j->state != JOB_PENDING || j->spec_gen != s->gens[i] ||
        job_wait_reason(c, j, ctld_now()) != SCHED_NONE)
        return false;
    const struct sched_decision *d = &s->out.d[i];
    for (size_t k = 0; d->reason == SCHED_NONE && k < d->nallocs; k++)
        if (!node_avail(&c->nodes[d->allocs[k].node]))
            return false;
    return true;
}

/* A job over a limit: Slurm's name for it, the words, and a start no
 * sooner than the first end of a job holding the limit. */
static void limit_held(const struct limit_table *t, const struct sched_decision *d,
                       struct job *j)
{
    const struct limit_info *li = &t->info[d->limit];
    j->limit_reason = limits_reason_name(li, d->limit_res);
    free(j->reason_text);
    j->reason_text = limits_reason_text(t, d->limit, d->limit_res, j);
    if (li->next_job && (j->start_estimate < 0 || j->start_estimate < li->next_end))
        j->start_estimate = li->next_end;
}

static void apply(struct ctld *c, struct sched_snap *s)
{
    for (size_t i = 0; i < s->out.n && i < s->in.npending; i++) {
        const struct sched_decision *d = &s->out.d[i];
        struct job *j = job_find(c, s->metas[i] ? s->metas[i] : d->job_id);
        if (!still_valid(c, s, i, j)) {
            c->sched_again |= j && j->state == JOB_PENDING;
            continue;
        }
        if (d->reason == SCHED_NONE && d->nallocs > 0) {
            struct job *t = s->metas[i] ? array_split(c, j) : j;   /* an array's next task */
            if (t)
                job_start(c, t, d->allocs, d->nallocs);
            continue;
        }
        if (d->npreempt)
            preempt_victims(c, j, d->preempt, d->npreempt);
        j->reason = d->reason;
        j->start_estimate = d->start_estimate;
        if (d->reason == SCHED_LIMIT && d->limit < s->limits.n) {
            limit_held(&s->limits, d, j);
            continue;
        }
        if (!j->reason_text || !s->words[i] || strcmp(j->reason_text, s->words[i]) != 0) {
            free(j->reason_text);
            j->reason_text = s->words[i];   /* taken from the snapshot */
            s->words[i] = NULL;
        }
    }
}

static void pass_stats(struct ctld *c, const struct sched_snap *s, int64_t us)
{
    struct ctld_stats *st = &c->stats;
    st->cycles++;
    st->cycle_last_us = us;
    st->cycle_sum_us += us;
    if (us > st->cycle_max_us)
        st->cycle_max_us = us;
    st->queue_len = s->in.npending;
    st->depth_sum += s->in.npending;
}

static void pass_done(struct ctld *c, struct sched_snap *s)
{
    int64_t t0 = ctld_mono_us();
    apply(c, s);
    int64_t planned = t0 - c->pass_start_us, applied = ctld_mono_us() - t0;
    c->pass_loop_us += applied;
    pass_stats(c, s, planned + applied);
    /* a slow pass is worth an operator's notice; the others are routine */
    if (planned + applied >= SCHED_SLOW_MS * 1000)
        log_info("pass: %zu pending planned in %lld ms, applied in %lld ms", s->in.npending,
                 (long long)planned / 1000, (long long)applied / 1000);
    ctld_sched_snap_free(s);
    if (c->sched_again) {
        c->sched_again = false;
        ctld_sched_request(c);
    }
}

/* Takes the snapshot here, plans on the worker thread, applies in
 * pass_done; a pass asked for while one plans runs after it. */
void ctld_sched_pass(struct ctld *c)
{
    if (ctld_sched_worker_busy(c)) {
        c->sched_again = true;
        return;
    }
    c->pass_start_us = ctld_mono_us();
    c->last_pass_ms = c->pass_start_us / 1000;
    struct sched_snap *s = ctld_sched_snap_take(c, ctld_now());
    c->pass_loop_us = ctld_mono_us() - c->pass_start_us;
    if (ctld_sched_worker_run(c, s, pass_done) < 0) {
        ctld_sched_snap_free(s);
        c->sched_again = true;
    }
}
