#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client/jobstate.h"
#include "cmd/squeue/squeue.h"
#include "common/hostlist.h"
#include "common/xmalloc.h"
#include "client/clock.h"

void squeue_opts_clear(struct squeue_opts *o)
{
    strlist_clear(&o->states);
    strlist_clear(&o->jobs);
    strlist_clear(&o->parts);
    strlist_clear(&o->accounts);
    strlist_clear(&o->qos);
    strlist_clear(&o->names);
    strlist_clear(&o->step_list);
    free(o->uids);
    o->uids = NULL;
    o->nuids = 0;
    hostlist_destroy(o->nodes);
    o->nodes = NULL;
}

static bool squeue_job_on_nodes(const struct sq_row *job, const struct hostlist *want)
{
    struct hostlist *hl = hostlist_create(sq_str(job, SQ_NODE_LIST, ""));
    bool hit = false;
    for (size_t i = 0; hl && !hit && i < hostlist_count(hl); i++)
        hit = hostlist_find(want, hostlist_nth(hl, i)) >= 0;
    hostlist_destroy(hl);
    return hit;
}

static bool squeue_job_of_users(const struct sq_row *job, const struct squeue_opts *o)
{
    uid_t uid = (uid_t)sq_int(job, SQ_USER_ID, -1);
    for (size_t i = 0; i < o->nuids; i++)
        if (o->uids[i] == uid)
            return true;
    return false;
}

/* -j: an array's id names all its tasks, "123_4" one task (a started one,
 * or one that squeue_jobs took out of the pending record), as in Slurm. */
static bool squeue_job_named(const struct sq_row *job, const struct squeue_opts *o)
{
    int64_t id = sq_int(job, SQ_JOB_ID, 0), array_id = sq_int(job, SQ_ARRAY_JOB_ID, 0);
    int64_t task = sq_int(job, SQ_ARRAY_TASK_ID, -1);
    bool folded = *sq_str(job, SQ_ARRAY_TASK_STR, "") != '\0';
    for (size_t i = 0; i < o->jobs.n; i++) {
        uint32_t a, t;
        if (cmd_parse_task_id(o->jobs.items[i], &a, &t)) {
            if (!folded && array_id == a && task == t)
                return true;
        } else {
            int64_t want = cmd_parse_job_id(o->jobs.items[i]);
            if (id == want || array_id == want)
                return true;
        }
    }
    return false;
}

bool squeue_job_matches(const struct sq_row *job, const struct squeue_opts *o)
{
    const char *state = sq_str(job, SQ_STATE, "");
    if (o->jobs.n && !squeue_job_named(job, o))
        return false;
    if (o->states.n && !o->all_states && !strlist_has(&o->states, state, true))
        return false;
    if (!o->states.n && !o->all_states && !jobstate_is_active(state))
        return false;
    if (o->nodes && !squeue_job_on_nodes(job, o->nodes))
        return false;
    if (o->users_given && !squeue_job_of_users(job, o))
        return false;
    if (o->parts.n && !strlist_has(&o->parts, sq_str(job, SQ_PARTITION, ""), false))
        return false;
    if (o->names.n && !strlist_has(&o->names, sq_str(job, SQ_NAME, ""), true))
        return false;
    if (o->resv && strcmp(o->resv, sq_str(job, SQ_RESERVATION, "")))
        return false;
    if (o->accounts.n && !strlist_has(&o->accounts, sq_str(job, SQ_ACCOUNT, ""), true))
        return false;
    if (o->qos.n && !strlist_has(&o->qos, sq_str(job, SQ_QOS, ""), true))
        return false;
    return true;
}

/* A job and what it sorts by, read once: a comparison must not look the
 * fields up again (10,000 jobs take ~140,000 comparisons). Partitions and
 * states sort by name, as ranks found once (sort_ranks), so that a
 * comparison is integers only. */
struct sort_item {
    const struct sq_row *job;
    int rank[2];   /* [0] the partition's, [1] the state's; -1: compare the names */
    int64_t priority, id, task, start;
};   /* 48 B: 100,000 of them are 1,200 pages to fault in */

static struct sort_item sort_item(const struct sq_row *j)
{
    int64_t t = sq_int(j, SQ_START_ESTIMATE, -1);
    return (struct sort_item){ .job = j, .rank = { -1, -1 },
                               .priority = sq_int(j, SQ_PRIORITY, 0),
                               .id = sq_int(j, SQ_JOB_ID, 0),
                               .task = sq_int(j, SQ_ARRAY_TASK_ID, 0),
                               .start = t > 0 ? t : INT64_MAX };
}

/* The distinct names of one sort key; a queue has a few partitions and
 * states, and with more than SORT_NAMES the names are compared instead. */
#define SORT_NAMES 64

struct sort_names {
    const char *name[SORT_NAMES];
    size_t n;
};

/* The index of s among names, added if new; -1 when they are full. */
static int sort_name_index(struct sort_names *names, const char *s)
{
    for (size_t i = 0; i < names->n; i++)
        if (!strcmp(names->name[i], s))
            return (int)i;
    if (names->n == SORT_NAMES)
        return -1;
    names->name[names->n] = s;
    return (int)names->n++;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The key ranked: the partition or the state. */
static const char *key_name(const struct sort_item *it, bool state)
{
    return sq_str(it->job, state ? SQ_STATE : SQ_PARTITION, "");
}


/* Each item's partition (or state) as its rank among the items' names. */
static void sort_ranks(struct sort_item *list, size_t n, bool state)
{
    struct sort_names names = { .n = 0 };
    const char *last = NULL;
    for (size_t i = 0; i < n; i++) {
        const char *s = key_name(&list[i], state);
        if (last && !strcmp(s, last))
            continue;   /* runs of one name: the common case */
        if (sort_name_index(&names, s) < 0)
            return;     /* too many: every rank stays -1 */
        last = s;
    }
    qsort(names.name, names.n, sizeof *names.name, cmp_name);
    int rank = -1;
    last = NULL;
    for (size_t i = 0; i < n; i++) {
        const char *s = key_name(&list[i], state);
        if (!last || strcmp(s, last))
            rank = sort_name_index(&names, s);
        last = s;
        list[i].rank[state] = rank;
    }
}

static int cmp_rank_or_name(const struct sort_item *x, const struct sort_item *y, bool state)
{
    int xr = x->rank[state], yr = y->rank[state];
    if (xr >= 0 && yr >= 0)
        return (xr > yr) - (xr < yr);
    return strcmp(key_name(x, state), key_name(y, state));
}

/* Slurm's default sort "P,t,-p"; the job id keeps equal jobs in a stable
 * order. */
static int squeue_cmp(const void *a, const void *b)
{
    const struct sort_item *x = a, *y = b;
    int c = cmp_rank_or_name(x, y, false);
    if (c)
        return c;
    /* as Slurm 22.05: by the state's name */
    if ((c = cmp_rank_or_name(x, y, true)))
        return c;
    if (x->priority != y->priority)
        return x->priority > y->priority ? -1 : 1;
    if (x->id != y->id)
        return (x->id > y->id) - (x->id < y->id);
    return (x->task > y->task) - (x->task < y->task);
}

/* --start: by expected start (unknown ones last), then as above. */
static int squeue_cmp_start(const void *a, const void *b)
{
    const struct sort_item *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return squeue_cmp(a, b);
}

static int squeue_cmp_given(const void *a, const void *b, void *o)
{
    return squeue_sort_cmp(((const struct sort_item *)a)->job, ((const struct sort_item *)b)->job,
                           o);
}

/* Slurm 22.05's print_date: "Wed Dec 02 18:40:01 2026" (the day with its
 * zero, unlike ctime). */
static void squeue_print_date(struct fmt_out *out, int64_t now)
{
    char buf[64];
    time_t t = (time_t)now;
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(buf, sizeof buf, "%a %b %d %H:%M:%S %Y\n", &tm);
    fmt_out_text(out, buf);
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

int squeue_print(FILE *out, struct sq_rows *jobs, const struct squeue_opts *o,
                 const char *prog)
{
    struct fmt *f = squeue_format(o, prog);
    if (!f)
        return -1;
    squeue_jobs(jobs, o);
    struct squeue_ctx ctx = {jobs->now ? jobs->now : client_now(), o->noconvert};
    size_t n = 0, i;
    struct sort_item *list = xcalloc(jobs->n + 1, sizeof *list);

    for (i = 0; i < jobs->n; i++)
        if (squeue_job_matches(&jobs->rows[i], o))
            list[n++] = sort_item(&jobs->rows[i]);
    sort_ranks(list, n, false);
    sort_ranks(list, n, true);
    if (o->nsort)
        qsort_r(list, n, sizeof *list, squeue_cmp_given, (void *)o);
    else
        qsort(list, n, sizeof *list, o->start ? squeue_cmp_start : squeue_cmp);
    struct fmt_out fo;
    fmt_out_init(&fo, out);
    if (o->long_list && !o->noheader)
        squeue_print_date(&fo, ctx.now);
    if (!o->noheader)
        fmt_out_row(&fo, f, NULL, &ctx);
    for (i = 0; i < n; i++)
        fmt_out_row(&fo, f, list[i].job, &ctx);
    fmt_out_end(&fo);
    free(list);
    fmt_destroy(f);
    return 0;
}
