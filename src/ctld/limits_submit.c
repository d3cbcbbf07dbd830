/*
 * limits_submit: the submit limits (MaxSubmitJobsPerUser and per account,
 * GrpSubmitJobs of a QOS or an association, an association's inherited
 * MaxSubmitJobs). Each counts the jobs not yet finished, an array's
 * pending tasks one each, and a submission over one is refused.
 */
#include <string.h>

#include "ctld/acctdb.h"
#include "ctld/ctld.h"
#include "ctld/limits_int.h"
#include "ctld/prio.h"

static int64_t limit_of(const json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? json_integer_value(v) : -1;
}

/* Is association x the job's, or above it? */
static bool under(struct assocs *as, size_t a, size_t x)
{
    for (size_t i = a; i != SCHED_ASSOC_NONE; i = as->a[i].parent)
        if (i == x)
            return true;
    return false;
}

struct submit_check {
    const char *why;
    int64_t limit, count;
};

static void check(struct submit_check *s, const char *why, int64_t limit, int64_t count)
{
    if (!s->why && limit >= 0 && count > limit)
        s->why = why;
}

/* The live jobs that count for each kind of limit, j's own included. */
static void count_qos(const struct ctld *c, const struct job *j, const json_t *q,
                      struct submit_check *s)
{
    const char *qos = prio_job_qos(c, j), *acct = prio_job_account(c, j);
    int64_t user = job_count_of(j), account = user, group = user;
    const struct job *o;
    JOB_FOREACH(c, o) {
        if (job_is_finished(o) || strcmp(prio_job_qos(c, o), qos))
            continue;
        int64_t n = job_count_of(o);
        group += n;
        user += strcmp(o->user_name, j->user_name) ? 0 : n;
        account += strcmp(prio_job_account(c, o), acct) ? 0 : n;
    }
    check(s, "QOSMaxSubmitJobPerUserLimit", limit_of(q, "MaxSubmitJobsPerUser"), user);
    check(s, "MaxSubmitJobsPerAccount", limit_of(q, "MaxSubmitJobsPerAccount"), account);
    check(s, "QOSGrpSubmitJobsLimit", limit_of(q, "GrpSubmitJobs"), group);
}

static int64_t live_under(const struct ctld *c, struct assocs *as, size_t x, const struct job *j)
{
    int64_t n = job_count_of(j);
    const struct job *o;
    JOB_FOREACH(c, o)
        if (!job_is_finished(o) &&
            under(as, assocs_user(as, o->user_name, prio_job_account(c, o)), x))
            n += job_count_of(o);
    return n;
}

static void count_assocs(const struct ctld *c, const struct job *j, struct submit_check *s)
{
    struct prio *p = prio_get(c);
    size_t a = assocs_user(&p->as, j->user_name, prio_job_account(c, j));
    int64_t max_submit = -1;
    for (size_t i = a; i != SCHED_ASSOC_NONE && !s->why; i = p->as.a[i].parent) {
        const json_t *o = acctdb_assoc(p->db, p->as.a[i].account, p->as.a[i].user);
        if (max_submit < 0)
            max_submit = limit_of(o, "MaxSubmitJobs");
        if (limit_of(o, "GrpSubmitJobs") >= 0)
            check(s, "AssocGrpSubmitJobsLimit", limit_of(o, "GrpSubmitJobs"),
                  live_under(c, &p->as, i, j));
    }
    if (max_submit >= 0)
        check(s, "AssocMaxSubmitJobLimit", max_submit, live_under(c, &p->as, a, j));
}

const char *limits_submit_over(const struct ctld *c, const struct job *j)
{
    struct prio *p = prio_get(c);
    const json_t *q = json_object_get(json_object_get(p->db, "qos"), prio_job_qos(c, j));
    struct submit_check s = { NULL, 0, 0 };
    if (limit_of(q, "MaxSubmitJobsPerUser") >= 0 || limit_of(q, "MaxSubmitJobsPerAccount") >= 0 ||
        limit_of(q, "GrpSubmitJobs") >= 0)
        count_qos(c, j, q, &s);
    count_assocs(c, j, &s);
    return s.why;
}
