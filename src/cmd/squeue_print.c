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
    char id[24];
    snprintf(id, sizeof id, "%lld", (long long)jget_int(job, "job_id", 0));
    if (o->jobs.n && !strlist_has(&o->jobs, id, false))
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

void squeue_print(FILE *out, const json_t *answer, const struct squeue_opts *o,
                  const char *prog)
{
    const char *spec = o->format      ? o->format
                       : o->start     ? SQUEUE_FORMAT_START
                       : o->long_list ? SQUEUE_FORMAT_LONG
                                      : SQUEUE_FORMAT;
    struct fmt *f = fmt_parse(spec, squeue_codes, prog, "job");
    const json_t *jobs = json_object_get(answer, "jobs");
    int64_t now = jget_int(answer, "now", (int64_t)time(NULL));
    size_t n = 0, i;
    json_t *job;
    const json_t **list = xcalloc(json_array_size(jobs) + 1, sizeof *list);

    json_array_foreach(jobs, i, job)
        if (squeue_job_matches(job, o))
            list[n++] = job;
    qsort(list, n, sizeof *list, o->start ? squeue_cmp_start : squeue_cmp);
    if (o->long_list && !o->noheader)
        squeue_print_date(out, now);
    if (!o->noheader)
        fmt_print_row(out, f, NULL, &now);
    for (i = 0; i < n; i++)
        fmt_print_row(out, f, list[i], &now);
    free(list);
    fmt_destroy(f);
}
