/* jobsteps: a running job's steps as Slurm lists them (jobsteps.h). */
#include "client/jobsteps.h"

#include <stdlib.h>
#include <string.h>

#include "client/cmdutil.h"
#include "common/hostlist.h"
#include "common/xmalloc.h"

/* "12", or an array's task "10_3", as Slurm names its steps. */
static char *job_name_of(const json_t *job)
{
    const json_t *task = json_object_get(job, "array_task_id");
    if (jget_int(job, "array_job_id", 0) > 0 && json_is_integer(task))
        return xasprintf("%lld_%lld", (long long)jget_int(job, "array_job_id", 0),
                         (long long)json_integer_value(task));
    return xasprintf("%lld", (long long)jget_int(job, "job_id", 0));
}

static struct jobstep *add(struct jobsteps *s, const json_t *job, enum jobstep_kind kind,
                           const char *suffix)
{
    s->v = xrealloc(s->v, (s->n + 1) * sizeof *s->v);
    struct jobstep *st = &s->v[s->n++];
    char *jid = job_name_of(job);
    *st = (struct jobstep){ .id = xasprintf("%s.%s", jid, suffix), .kind = kind, .num = -1,
                            .job = job, .start = jget_int(job, "start_time", 0), .ntasks = 1 };
    free(jid);
    return st;
}

/* The batch step runs on the job's first node. */
static char *first_node(const char *list)
{
    struct hostlist *hl = *list ? hostlist_create(list) : NULL;
    char *n = xstrdup(hl && hostlist_count(hl) ? hostlist_nth(hl, 0) : "");
    hostlist_destroy(hl);
    return n;
}

static void add_srun(struct jobsteps *s, const json_t *job, const json_t *rec)
{
    char num[24];
    snprintf(num, sizeof num, "%lld", (long long)jget_int(rec, "id", 0));
    struct jobstep *st = add(s, job, JOBSTEP_SRUN, num);
    st->num = jget_int(rec, "id", 0);
    st->name = jget_str(rec, "name", "");
    st->node_list = xstrdup(jget_str(rec, "node_list", ""));
    st->start = jget_int(rec, "start_time", st->start);
    st->ntasks = (int)jget_int(rec, "ntasks", 1);
    size_t i;
    const json_t *a;
    json_array_foreach(json_object_get(rec, "allocs"), i, a) {
        st->cpus += (int)jget_int(a, "cpus", 0);
        st->nnodes++;
    }
}

void jobsteps_add(struct jobsteps *s, const json_t *job)
{
    if (strcmp(jget_str(job, "state", ""), "RUNNING"))
        return;
    const char *nodes = jget_str(job, "node_list", "");
    if (jget_bool(job, "extern_step", false)) {
        struct jobstep *st = add(s, job, JOBSTEP_EXTERN, "extern");
        st->name = "extern";
        st->node_list = xstrdup(nodes);
        st->nnodes = st->ntasks = (int)jget_int(job, "num_nodes", 1);
    }
    if (!jget_bool(job, "allocation", false)) {
        struct jobstep *st = add(s, job, JOBSTEP_BATCH, "batch");
        st->name = "batch";
        st->node_list = first_node(nodes);
        st->nnodes = 1;
    }
    size_t i;
    const json_t *rec;
    json_array_foreach(json_object_get(job, "steps"), i, rec)
        if (!strcmp(jget_str(rec, "state", ""), "RUNNING"))
            add_srun(s, job, rec);
}

/* srun's steps by number, then batch, then extern: Slurm's step ids for
 * those are the largest. */
static int64_t step_rank(const struct jobstep *st)
{
    return st->kind == JOBSTEP_SRUN ? st->num : st->kind == JOBSTEP_BATCH ? INT64_MAX - 1
                                                                         : INT64_MAX;
}

static int cmp(const void *a, const void *b)
{
    const struct jobstep *x = a, *y = b;
    int c = strcmp(jget_str(x->job, "partition", ""), jget_str(y->job, "partition", ""));
    if (c)
        return c;
    int64_t jx = jget_int(x->job, "job_id", 0), jy = jget_int(y->job, "job_id", 0);
    if (jx != jy)
        return jx < jy ? -1 : 1;
    int64_t rx = step_rank(x), ry = step_rank(y);
    return rx < ry ? -1 : rx > ry;
}

void jobsteps_sort(struct jobsteps *s)
{
    if (s->n > 1)
        qsort(s->v, s->n, sizeof *s->v, cmp);
}

void jobsteps_free(struct jobsteps *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->v[i].id);
        free(s->v[i].node_list);
    }
    free(s->v);
    s->v = NULL;
    s->n = 0;
}
