/*
 * suspend: a running job suspended and resumed (suspend.h). The state
 * changes in job.c (job_suspended, job_resumed); this file decides when,
 * tells the node agents once the change is stored, and keeps what the
 * suspensions cost the job's time limit.
 */
#include "ctld/suspend.h"

#include <stdlib.h>

#include "common/conf.h"
#include "common/http.h"
#include "common/log.h"
#include "common/slurm_errno.h"
#include "common/xmalloc.h"
#include "ctld/preempt.h"
#include "ctld/store.h"

#define RPC_TIMEOUT_S 10

int suspend_job(struct ctld *c, struct job *j, bool stop, int *code, const char **msg)
{
    if (j->state == JOB_PENDING) {
        *code = ESLURM_JOB_PENDING;
        *msg = "Job is pending execution";
        return -1;
    }
    if (job_is_finished(j) || j->cancel_sent) {
        *code = ESLURM_ALREADY_DONE;
        *msg = "Job/step already completing or completed";
        return -1;
    }
    if (!stop && j->state != JOB_SUSPENDED) {
        *code = ESLURM_JOB_NOT_SUSPENDED;
        *msg = "Job is not suspended";
        return -1;
    }
    if (!stop) {
        job_resumed(c, j);
        return 0;
    }
    j->yielded_to = 0;   /* an admin's suspension: no preemptor's end resumes it */
    if (j->state == JOB_SUSPENDED)
        job_save(c, j);  /* as Slurm: suspending a suspended job is no error */
    else
        job_suspended(c, j);
    return 0;
}

int preempt_suspend(struct ctld *c, struct job *victim, struct job *preemptor)
{
    if (victim->state != JOB_RUNNING || victim->cancel_sent || victim->requeue_pending)
        return -1;
    victim->yielded_to = preemptor->id;
    job_suspended(c, victim);
    return 0;
}

bool preempt_suspends(const struct ctld *c, const struct job *j)
{
    return (preempt_job_mode(c, j) & CONF_PM_SUSPEND) != 0;
}

/* ---- the node agents ---- */

struct stop_call {
    struct ctld *c;
    uint64_t id;
    bool stop;
    bool batch;            /* the batch node's answer: the one the job's state needs */
};

static void stop_done(int status, json_t *body, void *arg)
{
    struct stop_call *x = arg;
    struct job *j = job_find(x->c, x->id);
    (void)body;
    if (status != 200 && status != 404)   /* 404: no process of it there (no step yet) */
        log_warnx("job %llu: the %s reached no agent (status %d)", (unsigned long long)x->id,
                  x->stop ? "suspend" : "resume", status);
    /* a 404 before the launch was answered: the next registration that
     * lists the job sends it again (suspend_reconcile) */
    bool done = status == 200 || (status == 404 && j && j->launch == LAUNCH_ACKED);
    if (done && j && x->batch && (j->state == JOB_SUSPENDED) == x->stop)
        j->suspend_acked = true;
    free(x);
}

/* After the commit: an agent never stops a job whose state a restart would
 * find running. Each node of the job: its steps' tasks there too. */
static void send_stop(void *arg)
{
    struct stop_call *x = arg;
    struct job *j = job_find(x->c, x->id);
    if (!j || !job_holds_alloc(j) || (j->state == JOB_SUSPENDED) != x->stop) {
        free(x);
        return;    /* resumed, suspended again or ended meanwhile: that one is sent */
    }
    int grace = x->stop && j->yielded_to ? x->c->conf->suspend_grace_s : 0;
    for (size_t k = 0; k < j->nallocs; k++) {
        const struct conf_node *cn = x->c->nodes[j->allocs[k].node].conf;
        struct stop_call *y = xmalloc(sizeof *y);
        *y = (struct stop_call){ x->c, x->id, x->stop, k == 0 };
        json_t *body = json_pack("{s:I, s:b, s:i}", "job_id", (json_int_t)j->id, "suspend",
                                 x->stop, "grace", grace);
        http_call(x->c->base, x->c->conf->munge_socket, cn->addr, cn->port, "POST",
                  "/v1/suspend", body, RPC_TIMEOUT_S, stop_done, y);
    }
    free(x);
}

static void tell_agents(struct ctld *c, struct job *j, bool stop)
{
    struct stop_call *x = xmalloc(sizeof *x);
    *x = (struct stop_call){ c, j->id, stop, true };
    j->suspend_acked = false;
    store_after_commit(c->store, send_stop, x);
}

void suspend_reconcile(struct ctld *c, struct job *j)
{
    if (!j->suspend_acked && j->suspend_time && !j->alloc_only)
        tell_agents(c, j, j->state == JOB_SUSPENDED);
}

/* ---- preemptors that end ---- */

/* Its CPUs are free again on each of its nodes (u: what others hold). */
static bool cpus_free(const struct ctld *c, const struct job *j, const struct node_usage *u)
{
    for (size_t k = 0; k < j->nallocs; k++) {
        const struct sched_alloc *a = &j->allocs[k];
        if (u[a->node].cpus + a->cpus > c->nodes[a->node].conf->cpus)
            return false;
    }
    return true;
}

/* Jobs that yielded to one that ended (or was requeued: ended is that
 * job) resume, those whose CPUs are free; the others wait for the next end.
 * Only the jobs that hold an allocation are walked: a walk of every job at
 * each end made a scancel of 1,000,000 pending jobs take hours. */
static void resume_yielded(struct ctld *c, const struct job *ended)
{
    struct node_usage *u = NULL;
    struct job *j;
    JOB_FOREACH_HOLDING(c, j) {
        if (j->state != JOB_SUSPENDED || !j->yielded_to)
            continue;
        const struct job *p = j->yielded_to == SUSPEND_YIELD_DONE ? NULL
                            : job_find(c, j->yielded_to);
        if (p && p != ended && !job_is_finished(p))
            continue;
        if (!u)
            u = node_usage_get(c);
        if (!cpus_free(c, j, u)) {
            j->yielded_to = SUSPEND_YIELD_DONE;
            job_save(c, j);
            continue;
        }
        for (size_t k = 0; k < j->nallocs; k++)
            u[j->allocs[k].node].cpus += j->allocs[k].cpus;
        job_resumed(c, j);
    }
    free(u);
}

void suspend_on_job(struct ctld *c, struct job *j, enum job_event ev)
{
    /* an allocation alone (salloc) has no supervisor: its steps' tasks stop */
    if (ev == JOB_STOPPED || ev == JOB_RESUMED)
        tell_agents(c, j, ev == JOB_STOPPED);
    else if (ev == JOB_ENDED || ev == JOB_REQUEUED)
        resume_yielded(c, j);
}

/* ---- time ---- */

int64_t suspend_end_time(const struct job *j, int64_t now)
{
    if (j->time_limit < 0)
        return -1;
    int64_t away = j->suspended_s;
    if (j->state == JOB_SUSPENDED && now > j->suspend_time)
        away += now - j->suspend_time;
    return j->start_time + j->time_limit * 60 + away;
}

void suspend_snap_mark(const struct ctld *c, const struct job *j, struct sched_running *r)
{
    r->suspended = j->state == JOB_SUSPENDED;
    r->suspend = preempt_suspends(c, j);
}

/* ---- records ---- */

void suspend_clear(struct job *j)
{
    j->suspend_time = j->pre_suspend_s = j->suspended_s = 0;
    j->yielded_to = 0;
    j->suspend_acked = false;
}

void suspend_record_add(const struct job *j, json_t *rec)
{
    if (!j->suspend_time)
        return;
    json_object_set_new(rec, "suspend_time", json_integer(j->suspend_time));
    json_object_set_new(rec, "pre_suspend_s", json_integer(j->pre_suspend_s));
    json_object_set_new(rec, "suspended_s", json_integer(j->suspended_s));
    if (j->yielded_to)
        json_object_set_new(rec, "yielded_to", json_integer((json_int_t)j->yielded_to));
}

void suspend_record_read(struct job *j, const json_t *rec)
{
    j->suspend_time = json_integer_value(json_object_get(rec, "suspend_time"));
    j->pre_suspend_s = json_integer_value(json_object_get(rec, "pre_suspend_s"));
    j->suspended_s = json_integer_value(json_object_get(rec, "suspended_s"));
    j->yielded_to = (uint64_t)json_integer_value(json_object_get(rec, "yielded_to"));
}

void suspend_json_add(const struct job *j, json_t *o)
{
    json_object_set_new(o, "suspend_time", json_integer(j->suspend_time));
    json_object_set_new(o, "pre_suspend_s", json_integer(j->pre_suspend_s));
    json_object_set_new(o, "suspended_s", json_integer(j->suspended_s));
}
