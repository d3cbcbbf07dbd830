/*
 * preempt: the core's choice of victims carried out (preempt.h). A victim
 * is marked at once (struct job_preempt), so that the next pass counts its
 * resources as free for its preemptor and chooses no second set; what ends
 * its run afterwards, the kill or the job itself, ends it as its mode says.
 */
#include <signal.h>
#include <stdlib.h>

#include "common/conf.h"
#include "common/jobsig.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "ctld/ctld.h"
#include "ctld/preempt.h"
#include "ctld/suspend.h"

static const char *mode_word(int mode)
{
    return mode == CONF_PM_REQUEUE ? "REQUEUE" : mode == CONF_PM_SUSPEND ? "SUSPEND" : "CANCEL";
}

/* What the victim's end becomes: REQUEUE only for a job that may be
 * requeued (else CANCEL, as Slurm's); a SUSPEND that could not be done
 * loses the least work requeued. */
static int end_mode(const struct ctld *c, const struct job *v, int mode)
{
    if ((mode & (CONF_PM_REQUEUE | CONF_PM_SUSPEND)) && preempt_may_requeue(c, v))
        return CONF_PM_REQUEUE;
    return CONF_PM_CANCEL;
}

/* The grace's first signal: its --signal one under send_user_signal. */
static int first_signal(const struct ctld *c, const struct job *v)
{
    if (!(c->conf->preempt_flags & CONF_PP_SEND_USER_SIGNAL))
        return SIGTERM;
    json_t *spec = job_spec(c, v);
    struct jobsig_warn w;
    int sig = jobsig_parse(json_string_value(json_object_get(spec, "signal")), &w) == 0 && w.sig
                  ? w.sig : SIGTERM;
    json_decref(spec);
    return sig;
}

/* The end of the grace (or no grace): the job is killed, and its agent's
 * report of the end does the rest; an allocation has no agent's report. */
static void kill_victim(struct ctld *c, struct job *v)
{
    v->preempt->killed = true;
    v->cancel_sent = true;
    job_save(c, v);
    if (v->alloc_only) {
        launch_signal(c, v, SIGKILL, false, SIG_STEPS);
        preempt_job_end(c, v, 0, SIGKILL, 0);
        return;
    }
    /* no grace: a cancel's SIGTERM, then SIGKILL after KillWait; after a
     * grace it has had its SIGTERM */
    int sig = v->preempt->grace_end > v->preempt->time ? SIGKILL : SIGTERM;
    launch_signal(c, v, sig, true, SIG_FULL);
}

static void preempt_one(struct ctld *c, struct job *v, struct job *by, int64_t now)
{
    int mode = preempt_job_mode(c, v);
    if ((mode & CONF_PM_SUSPEND) && preempt_suspend(c, v, by) == 0) {
        log_info("job %llu preempted by job %llu: SUSPEND", (unsigned long long)v->id,
                 (unsigned long long)by->id);
        return;
    }
    int grace = preempt_job_grace(c, v);
    v->preempt = xcalloc(1, sizeof *v->preempt);
    *v->preempt = (struct job_preempt){ .time = now, .grace_end = now + grace, .by = by->id,
                                        .mode = end_mode(c, v, mode) };
    log_info("job %llu preempted by job %llu: %s, GraceTime %d s", (unsigned long long)v->id,
             (unsigned long long)by->id, mode_word(v->preempt->mode), grace);
    job_save(c, v);
    if (grace <= 0) {
        kill_victim(c, v);
        return;
    }
    /* to the batch script and the steps. Slurm sends SIGCONT first; here
     * two signals in a row could reach the job's supervisor as one (it
     * takes them as a queued SIGUSR1, which does not queue twice), and no
     * running job is stopped but a suspended one, which is no victim. */
    launch_signal(c, v, first_signal(c, v), false, SIG_FULL);
}

void preempt_victims(struct ctld *c, struct job *preemptor, const uint64_t *ids, size_t n)
{
    int64_t now = ctld_now();
    for (size_t i = 0; i < n; i++) {
        struct job *v = job_find(c, ids[i]);
        /* gone since the pass planned, or already given way: nothing to do */
        if (!v || v->state != JOB_RUNNING || v->preempt || v->cancel_sent || v->requeue_pending)
            continue;
        preempt_one(c, v, preemptor, now);
    }
}

void preempt_job_end(struct ctld *c, struct job *j, int exit_code, int exit_signal, int64_t when)
{
    if (j->preempt->mode == CONF_PM_REQUEUE) {
        j->exit_code = exit_code;   /* the run's end, as sacct -D shows it */
        j->exit_signal = exit_signal;
        j->end_time = when ? when : ctld_now();
        job_requeue(c, j);          /* the run is kept as PREEMPTED: job_runs.c */
        free(j->preempt);
        j->preempt = NULL;          /* the next run is no victim */
        job_save(c, j);
        return;
    }
    job_end(c, j, JOB_PREEMPTED, exit_code, exit_signal, when);
}

void preempt_record(const struct job *j, json_t *rec)
{
    const struct job_preempt *p = j->preempt;
    if (p)
        json_object_set_new(rec, "preempt",
                            json_pack("{s:I, s:I, s:I, s:i, s:b}", "time", (json_int_t)p->time,
                                      "grace_end", (json_int_t)p->grace_end, "by",
                                      (json_int_t)p->by, "mode", p->mode, "killed", p->killed));
}

void preempt_from_record(struct job *j, const json_t *rec)
{
    json_t *p = json_object_get(rec, "preempt");
    if (!json_is_object(p))
        return;
    j->preempt = xcalloc(1, sizeof *j->preempt);
    *j->preempt = (struct job_preempt){
        .time = json_integer_value(json_object_get(p, "time")),
        .grace_end = json_integer_value(json_object_get(p, "grace_end")),
        .by = (uint64_t)json_integer_value(json_object_get(p, "by")),
        .mode = (int)json_integer_value(json_object_get(p, "mode")) == CONF_PM_REQUEUE
                    ? CONF_PM_REQUEUE : CONF_PM_CANCEL,
        .killed = json_is_true(json_object_get(p, "killed")) };
}

void preempt_tick(struct ctld *c, int64_t now)
{
    struct job *j;
    JOB_FOREACH_HOLDING(c, j)
        if (j->state == JOB_RUNNING && j->preempt && !j->preempt->killed &&
            now >= j->preempt->grace_end)
            kill_victim(c, j);
}
