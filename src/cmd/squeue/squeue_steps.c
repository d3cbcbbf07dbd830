/*
 * squeue -s: the running jobs' steps, one line each, in Slurm 22.05's
 * step layout ("%.15i %.8j %.9P %.8u %.9M %N") and order (partition, job,
 * srun's steps, batch, extern): the steps as client/jobsteps.h lists them.
 * -s may name steps ("12.0,13.batch"); -j, -p and -u filter the jobs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "client/clock.h"
#include "client/format.h"
#include "client/jobsteps.h"
#include "client/paths.h"
#include "cmd/squeue/squeue.h"
#include "common/timefmt.h"
#include "common/xmalloc.h"

#define STEP_FORMAT "%.15i %.8j %.9P %.8u %.9M %N"

struct step_ctx {
    int64_t now;
};

static char *v_id(const void *r, const void *c, bool *cut)
{
    (void)c; (void)cut;
    return xstrdup(((const struct jobstep *)r)->id);
}

static char *v_name(const void *r, const void *c, bool *cut)
{
    (void)c; (void)cut;
    return xstrdup(((const struct jobstep *)r)->name);
}

static char *v_part(const void *r, const void *c, bool *cut)
{
    (void)c; (void)cut;
    return xstrdup(jget_str(((const struct jobstep *)r)->job, "partition", ""));
}

static char *v_user(const void *r, const void *c, bool *cut)
{
    (void)c; (void)cut;
    return xstrdup(jget_str(((const struct jobstep *)r)->job, "user_name", ""));
}

static char *v_time(const void *r, const void *c, bool *cut)
{
    (void)cut;
    char buf[32];
    int64_t secs = ((const struct step_ctx *)c)->now - ((const struct jobstep *)r)->start;
    timefmt_elapsed(secs > 0 ? secs : 0, buf, sizeof buf);
    return xstrdup(buf);
}

static char *v_nodes(const void *r, const void *c, bool *cut)
{
    (void)c; (void)cut;
    return xstrdup(((const struct jobstep *)r)->node_list);
}

static char *v_tasks(const void *r, const void *c, bool *cut)
{
    (void)c; (void)cut;
    return xasprintf("%d", ((const struct jobstep *)r)->ntasks);
}

static char *v_start(const void *r, const void *c, bool *cut)
{
    (void)c; (void)cut;
    char buf[64];
    timefmt_iso(((const struct jobstep *)r)->start, buf, sizeof buf);
    return xstrdup(buf);
}

static const struct fmt_code step_codes[] = {
    { 'i', "STEPID", 0, v_id, NULL },      { 'j', "NAME", 0, v_name, NULL },
    { 'P', "PARTITION", 0, v_part, NULL }, { 'u', "USER", 0, v_user, NULL },
    { 'M', "TIME", 0, v_time, NULL },      { 'N', "NODELIST", 0, v_nodes, NULL },
    { 'A', "TASKS", 0, v_tasks, NULL },    { 'S', "START_TIME", 0, v_start, NULL },
    { 0, NULL, 0, NULL, NULL },
};

static bool job_wanted(const json_t *job, const struct squeue_opts *o)
{
    if (o->parts.n && !strlist_has(&o->parts, jget_str(job, "partition", ""), false))
        return false;
    bool user = !o->users_given;
    for (size_t i = 0; i < o->nuids; i++)
        user |= o->uids[i] == (uid_t)jget_int(job, "user_id", -1);
    if (!user)
        return false;
    if (!o->jobs.n)
        return true;
    char id[32], array[32];   /* -j takes a job's own id or its array's */
    snprintf(id, sizeof id, "%lld", (long long)jget_int(job, "job_id", 0));
    snprintf(array, sizeof array, "%lld", (long long)jget_int(job, "array_job_id", 0));
    return strlist_has(&o->jobs, id, false) || strlist_has(&o->jobs, array, false);
}

static bool step_wanted(const struct jobstep *st, const struct squeue_opts *o)
{
    return !o->step_list.n || strlist_has(&o->step_list, st->id, false);
}

static void print_steps(const json_t *resp, const struct squeue_opts *o, const char *prog)
{
    struct jobsteps steps = { 0 };
    size_t i;
    const json_t *j;
    json_array_foreach(json_object_get(resp, "jobs"), i, j)
        if (job_wanted(j, o))
            jobsteps_add(&steps, j);
    jobsteps_sort(&steps);
    struct fmt *f = fmt_parse(o->format ? o->format : STEP_FORMAT, step_codes, prog, "step");
    struct step_ctx ctx = { jget_int(resp, "now", client_now()) };
    if (!o->noheader)
        fmt_print_row(stdout, f, NULL, &ctx);
    for (i = 0; i < steps.n; i++)
        if (step_wanted(&steps.v[i], o))
            fmt_print_row(stdout, f, &steps.v[i], &ctx);
    fmt_destroy(f);
    jobsteps_free(&steps);
}

int squeue_steps(const struct squeue_opts *o, const char *prog)
{
    json_t *resp = NULL;
    char err[256];
    int st = client_call(prog, "GET", PATH_JOBS, NULL, &resp, err, sizeof err);
    if (st != 200) {
        fprintf(stderr, "slurm_get_job_steps error: %s\n",
                st < 0 ? err : client_error_text(resp, st));
        json_decref(resp);
        return 1;
    }
    cmd_json_clean(resp);
    print_steps(resp, o, prog);
    json_decref(resp);
    return 0;
}
