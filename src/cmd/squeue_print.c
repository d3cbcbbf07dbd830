#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/jobstate.h"
#include "cmd/squeue.h"
#include "common/hostlist.h"
#include "common/xmalloc.h"

void squeue_opts_clear(struct squeue_opts *o)
{
    strlist_clear(&o->states);
    strlist_clear(&o->jobs);
    strlist_clear(&o->parts);
    strlist_clear(&o->names);
    free(o->uids);
    o->uids = NULL;
    o->nuids = 0;
    hostlist_destroy(o->nodes);
    o->nodes = NULL;
}

static bool squeue_job_on_nodes(const json_t *job, const struct hostlist *want)
{
    struct hostlist *hl = hostlist_create(jget_str(job, "node_list", ""));
    bool hit = false;
    for (size_t i = 0; hl && !hit && i < hostlist_count(hl); i++)
        hit = hostlist_find(want, hostlist_nth(hl, i)) >= 0;
    hostlist_destroy(hl);
    return hit;
}

static bool squeue_job_of_users(const json_t *job, const struct squeue_opts *o)
{
    uid_t uid = (uid_t)jget_int(job, "user_id", -1);
    for (size_t i = 0; i < o->nuids; i++)
        if (o->uids[i] == uid)
            return true;
    return false;
}

bool squeue_job_matches(const json_t *job, const struct squeue_opts *o)
{
    const char *state = jget_str(job, "state", "");
    char id[24], array_id[24];
    snprintf(id, sizeof id, "%lld", (long long)jget_int(job, "job_id", 0));
    snprintf(array_id, sizeof array_id, "%lld", (long long)jget_int(job, "array_job_id", 0));
    /* an array's id names all its tasks, as in Slurm */
    if (o->jobs.n && !strlist_has(&o->jobs, id, false) && !strlist_has(&o->jobs, array_id, false))
        return false;
    if (o->states.n && !o->all_states && !strlist_has(&o->states, state, true))
        return false;
    if (!o->states.n && !o->all_states && !jobstate_is_active(state))
        return false;
    if (o->nodes && !squeue_job_on_nodes(job, o->nodes))
        return false;
    if (o->users_given && !squeue_job_of_users(job, o))
        return false;
    if (o->parts.n && !strlist_has(&o->parts, jget_str(job, "partition", ""), false))
        return false;
    if (o->names.n && !strlist_has(&o->names, jget_str(job, "name", ""), true))
        return false;
    return true;
}

/* Slurm's default sort "P,t,-p"; the job id keeps equal jobs in a stable
 * order. */
static int squeue_cmp(const void *a, const void *b)
{
    const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    int c = strcmp(jget_str(x, "partition", ""), jget_str(y, "partition", ""));
    if (c)
        return c;
    c = jobstate_order(jget_str(x, "state", "")) - jobstate_order(jget_str(y, "state", ""));
    if (c)
        return c;
    int64_t px = jget_int(x, "priority", 0), py = jget_int(y, "priority", 0);
    if (px != py)
        return px > py ? -1 : 1;
    int64_t ix = jget_int(x, "job_id", 0), iy = jget_int(y, "job_id", 0);
    if (ix != iy)
        return (ix > iy) - (ix < iy);
    ix = jget_int(x, "array_task_id", 0);
    iy = jget_int(y, "array_task_id", 0);
    return (ix > iy) - (ix < iy);
}

/* --start: by expected start (unknown ones last), then as above. */
static int64_t start_key(const json_t *j)
{
    int64_t t = jget_int(j, "start_estimate", -1);
    return t > 0 ? t : INT64_MAX;
}

static int squeue_cmp_start(const void *a, const void *b)
{
    const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    int64_t sx = start_key(x), sy = start_key(y);
    if (sx != sy)
        return sx < sy ? -1 : 1;
    return squeue_cmp(a, b);
}

/* Slurm's print_date: ctime's form, "Wed Dec  2 18:40:01 2026". */
static void squeue_print_date(FILE *out, int64_t now)
{
    char buf[64];
    time_t t = (time_t)now;
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(buf, sizeof buf, "%a %b %e %H:%M:%S %Y", &tm);
    fprintf(out, "%s\n", buf);
}

struct fmt *squeue_format(const struct squeue_opts *o, const char *prog)
{
    if (o->long_format)
        return fmt_parse_long(o->long_format, squeue_codes, squeue_names, prog, "job");
    const char *spec = o->format      ? o->format
                       : o->start     ? SQUEUE_FORMAT_START
                       : o->long_list ? SQUEUE_FORMAT_LONG
                                      : SQUEUE_FORMAT;
    return fmt_parse(spec, squeue_codes, prog, "job");
}

int squeue_print(FILE *out, const json_t *answer, const struct squeue_opts *o,
                 const char *prog)
{
    struct fmt *f = squeue_format(o, prog);
    if (!f)
        return -1;
    json_t *jobs = o->array ? squeue_expand_arrays(json_object_get(answer, "jobs"))
                            : json_incref(json_object_get(answer, "jobs"));
    struct squeue_ctx ctx = {jget_int(answer, "now", (int64_t)time(NULL)), o->noconvert};
    size_t n = 0, i;
    json_t *job;
    const json_t **list = xcalloc(json_array_size(jobs) + 1, sizeof *list);

    json_array_foreach(jobs, i, job)
        if (squeue_job_matches(job, o))
            list[n++] = job;
    qsort(list, n, sizeof *list, o->start ? squeue_cmp_start : squeue_cmp);
    if (o->long_list && !o->noheader)
        squeue_print_date(out, ctx.now);
    if (!o->noheader)
        fmt_print_row(out, f, NULL, &ctx);
    for (i = 0; i < n; i++)
        fmt_print_row(out, f, list[i], &ctx);
    free(list);
    json_decref(jobs);
    fmt_destroy(f);
    return 0;
}
