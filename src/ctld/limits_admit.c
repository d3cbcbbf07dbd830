/*
 * limits_admit: a submission under AccountingStorageEnforce (limits.h).
 * With associations enforced the user must have one in the job's account;
 * with qos, the QOS must exist and be one the association may use; with
 * limits, a job without a time limit gets its QOS's (else association's)
 * MaxWall, the submit limits count the user's, account's and QOS's jobs
 * not yet finished, and a job that no limit would ever let run (over a
 * per-job limit, or alone over a per-user, per-account or group one) is
 * refused rather than left pending for ever.
 */
#include <stdio.h>
#include <string.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/slurm_errno.h"
#include "ctld/acctdb.h"
#include "ctld/ctld.h"
#include "ctld/limits_int.h"
#include "ctld/prio.h"

#define MSG_POLICY "Job violates accounting/QOS policy (job submit limit, user's size and/or " \
                   "time limits)"

struct admit {
    struct ctld *c;
    struct job *j;
    const char *why;       /* Slurm's reason name of a refusal */
    int64_t wall;          /* the first MaxWall of its limits; -1 none */
};

static bool qos_allowed(const json_t *assoc, const char *qos)
{
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(assoc, "QOS"), i, v)
        if (!strcmp(json_string_value(v), qos))
            return true;
    return false;
}

static void first_wall(const struct limit_src *src, void *arg)
{
    struct admit *a = arg;
    json_t *w = json_object_get(src->obj, "MaxWall");
    if (a->wall < 0 && json_is_integer(w) &&
        (src->kind == LK_QOS_JOB || src->kind == LK_ASSOC_USER))
        a->wall = json_integer_value(w);
}

/* A job without a time limit gets the first MaxWall of its limits, in its
 * spec too (what a restart rebuilds it from). */
static void default_wall(struct admit *a)
{
    limits_of_job(a->c, a->j, first_wall, a);
    if (a->j->time_limit >= 0 || a->wall < 0)
        return;
    json_t *spec = job_spec(a->c, a->j);
    json_object_set_new(spec, "time_limit", json_integer(a->wall));
    job_spec_set(a->j, spec);
    json_decref(spec);
    a->j->time_limit = a->j->req.time_limit_min = a->wall;
}

/* Would the job alone be over this limit? */
static void never_fits(const struct limit_src *src, void *arg)
{
    struct admit *a = arg;
    struct sched_limit l;
    int64_t v[SCHED_RES_N];
    for (int r = 0; r < SCHED_RES_N; r++)
        l.left[r] = l.per_job[r] = -1;
    limits_caps(src, &l);
    sched_job_amounts(&a->j->req, v);
    bool safe = a->c->conf->acct_enforce & ENFORCE_SAFE;
    for (int r = 0; r < SCHED_RES_N && !a->why; r++) {
        int64_t ask = r > SCHED_RES_WALL && !safe ? 1 : v[r];   /* spending: see limits_spent */
        bool over = (l.per_job[r] >= 0 && (v[r] > l.per_job[r] || v[r] < 0)) ||
                    (r != SCHED_RES_WALL && l.left[r] >= 0 && ask > l.left[r]);
        struct limit_info li = { .kind = src->kind };
        if (over)
            a->why = limits_reason_name(&li, (enum sched_res)r);
    }
}

/* MaxTRESPerNode of its QOS or (inherited) association: a job asking more
 * of one node can never run. */
static void too_wide(const struct limit_src *src, void *arg)
{
    static const struct { const char *tres, *qos, *assoc; enum sched_res r; } per[] = {
        { "cpu", "QOSMaxCpuPerNode", "AssocMaxCpuPerNode", SCHED_RES_CPU },
        { "mem", "QOSMaxMemoryPerNode", "AssocMaxMemPerNode", SCHED_RES_MEM },
        { "gres/gpu", "QOSMaxGRESPerNode", "AssocMaxGRESPerNode", SCHED_RES_GPU },
    };
    struct admit *a = arg;
    const json_t *cap = json_object_get(src->obj, "MaxTRESPerNode");
    int64_t v[SCHED_RES_N];
    if (!cap || (src->kind != LK_QOS_JOB && src->kind != LK_ASSOC_USER))
        return;
    sched_job_amounts(&a->j->req, v);
    int64_t nodes = v[SCHED_RES_NODE] > 0 ? v[SCHED_RES_NODE] : 1;
    for (size_t i = 0; i < sizeof per / sizeof *per && !a->why; i++) {
        json_t *m = json_object_get(cap, per[i].tres);
        int64_t on_one = (v[per[i].r] + nodes - 1) / nodes;
        if (json_is_integer(m) && on_one > json_integer_value(m))
            a->why = src->kind == LK_QOS_JOB ? per[i].qos : per[i].assoc;
    }
}

/* MinTRESPerJob of its QOS: a job asking for less can never run. */
static void too_small(const struct limit_src *src, void *arg)
{
    static const struct { const char *tres, *why; enum sched_res r; } mins[] = {
        { "cpu", "QOSMinCpuNotSatisfied", SCHED_RES_CPU },
        { "mem", "QOSMinMemory", SCHED_RES_MEM },
        { "node", "QOSMinNode", SCHED_RES_NODE },
        { "gres/gpu", "QOSMinGRES", SCHED_RES_GPU },
    };
    struct admit *a = arg;
    const json_t *min = json_object_get(src->obj, "MinTRESPerJob");
    int64_t v[SCHED_RES_N];
    sched_job_amounts(&a->j->req, v);
    for (size_t i = 0; i < sizeof mins / sizeof *mins && !a->why; i++) {
        json_t *m = json_object_get(min, mins[i].tres);
        if (json_is_integer(m) && v[mins[i].r] < json_integer_value(m))
            a->why = mins[i].why;
    }
}

static int refuse(int *status, int *code, char *err, size_t errlen, int c, const char *msg)
{
    *status = 400;
    *code = c;
    snprintf(err, errlen, "%s", msg);
    return -1;
}

int limits_admit(struct ctld *c, struct job *j, int *status, int *code, char *err,
                 size_t errlen)
{
    int enf = c->conf->acct_enforce;
    if (!enf)
        return 0;
    struct prio *p = prio_get(c);
    const char *acct = prio_job_account(c, j), *qos = prio_job_qos(c, j);
    const json_t *assoc = acctdb_assoc(p->db, acct, j->user_name);
    if (!assoc)
        return refuse(status, code, err, errlen, ESLURM_INVALID_ACCOUNT,
                      "Invalid account or account/partition combination specified");
    if ((enf & ENFORCE_QOS) && (!json_object_get(json_object_get(p->db, "qos"), qos) ||
                                !qos_allowed(assoc, qos)))
        return refuse(status, code, err, errlen, ESLURM_INVALID_QOS, "Invalid qos specification");
    if (!(enf & (ENFORCE_LIMITS | ENFORCE_SAFE)))
        return 0;
    struct admit a = { c, j, NULL, -1 };
    default_wall(&a);
    j->req.billing = usage_req_billing(c, j);
    limits_of_job(c, j, never_fits, &a);
    if (!a.why)
        limits_qos_objects(c, j, too_small, &a);
    if (!a.why)
        limits_of_job(c, j, too_wide, &a);
    if (!a.why)
        a.why = limits_submit_over(c, j);
    if (!a.why)
        return 0;
    log_info("submission by %s refused: %s", j->user_name, a.why);
    return refuse(status, code, err, errlen, ESLURM_ACCOUNTING_POLICY, MSG_POLICY);
}
