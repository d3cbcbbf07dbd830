/*
 * limits_src: which limits a job counts against. Its partition's QOS's
 * (slurm.conf QOS=) and its own QOS's per-user, per-account, group and
 * per-job limits; the group limits of every
 * association from its own up to root; and its own association's MaxJobs,
 * MaxTRES and MaxWall, each taken from the nearest association that sets it,
 * as Slurm inherits them.
 */
#include <string.h>

#include "common/conf.h"

#include "ctld/acctdb.h"
#include "ctld/ctld.h"
#include "ctld/limits_int.h"
#include "ctld/prio.h"

static bool has(const json_t *o, const char *a, const char *b)
{
    return json_object_get(o, a) || (b && json_object_get(o, b));
}

static void tres_into(const json_t *tres, int64_t out[SCHED_RES_N])
{
    static const struct { const char *name; enum sched_res r; } map[] = {
        { "cpu", SCHED_RES_CPU }, { "mem", SCHED_RES_MEM }, { "node", SCHED_RES_NODE },
        { "gres/gpu", SCHED_RES_GPU }, { "billing", SCHED_RES_BILLING },
    };
    for (size_t i = 0; i < sizeof map / sizeof *map; i++) {
        json_t *v = json_object_get(tres, map[i].name);
        if (json_is_integer(v))
            out[map[i].r] = json_integer_value(v);
    }
}

static void run_mins_into(const json_t *tres, int64_t out[SCHED_RES_N])
{
    json_t *cpu = json_object_get(tres, "cpu"), *gpu = json_object_get(tres, "gres/gpu");
    if (json_is_integer(cpu))
        out[SCHED_RES_CPU_MIN] = json_integer_value(cpu);
    if (json_is_integer(gpu))
        out[SCHED_RES_GPU_MIN] = json_integer_value(gpu);
}

/* GrpTRESMins and GrpWall, in minutes, into the *_SPENT slots (limits.c
 * turns them into whether the group may still spend). */
static void spent_into(const json_t *o, int64_t out[SCHED_RES_N])
{
    const json_t *t = json_object_get(o, "GrpTRESMins"), *w = json_object_get(o, "GrpWall");
    const struct { const char *name; enum sched_res r; } map[] = {
        { "cpu", SCHED_RES_CPU_SPENT }, { "gres/gpu", SCHED_RES_GPU_SPENT },
        { "billing", SCHED_RES_BILLING_SPENT },
    };
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (json_is_integer(json_object_get(t, map[i].name)))
            out[map[i].r] = json_integer_value(json_object_get(t, map[i].name));
    if (json_is_integer(w))
        out[SCHED_RES_WALL_SPENT] = json_integer_value(w);
}

static void count_into(const json_t *v, int64_t *out)
{
    if (json_is_integer(v))
        *out = json_integer_value(v);
}

void limits_caps(const struct limit_src *src, struct sched_limit *l)
{
    const json_t *o = src->obj;
    switch (src->kind) {
    case LK_QOS_USER:
        tres_into(json_object_get(o, "MaxTRESPerUser"), l->left);
        run_mins_into(json_object_get(o, "MaxTRESRunMinsPerUser"), l->left);
        count_into(json_object_get(o, "MaxJobsPerUser"), &l->left[SCHED_RES_JOBS]);
        break;
    case LK_QOS_ACCOUNT:
        tres_into(json_object_get(o, "MaxTRESPerAccount"), l->left);
        run_mins_into(json_object_get(o, "MaxTRESRunMinsPerAccount"), l->left);
        count_into(json_object_get(o, "MaxJobsPerAccount"), &l->left[SCHED_RES_JOBS]);
        break;
    case LK_QOS_GROUP:
    case LK_ASSOC_GROUP:
        tres_into(json_object_get(o, "GrpTRES"), l->left);
        count_into(json_object_get(o, "GrpJobs"), &l->left[SCHED_RES_JOBS]);
        run_mins_into(json_object_get(o, "GrpTRESRunMins"), l->left);
        spent_into(o, l->left);
        break;
    case LK_QOS_JOB:
        tres_into(json_object_get(o, "MaxTRESPerJob"), l->per_job);
        run_mins_into(json_object_get(o, "MaxTRESMins"), l->per_job);
        count_into(json_object_get(o, "MaxWall"), &l->per_job[SCHED_RES_WALL]);
        break;
    case LK_ASSOC_USER:
        count_into(json_object_get(o, "MaxJobs"), &l->left[SCHED_RES_JOBS]);
        tres_into(json_object_get(o, "MaxTRES"), l->per_job);
        run_mins_into(json_object_get(o, "MaxTRESMins"), l->per_job);
        count_into(json_object_get(o, "MaxWall"), &l->per_job[SCHED_RES_WALL]);
        break;
    }
}

/* The typed GPU limits of obj for type, as untyped ones ({"GrpTRES":
 * {"gres/gpu": N}, ...}); NULL when it sets none. */
static json_t *typed_view(const json_t *obj, const char *type)
{
    char key[128];
    snprintf(key, sizeof key, "gres/gpu:%s", type);
    json_t *view = json_object();
    const char *name;
    json_t *v;
    json_object_foreach((json_t *)obj, name, v) {
        json_t *n = json_is_object(v) ? json_object_get(v, key) : NULL;
        if (n)
            json_object_set_new(view, name, json_pack("{s:O}", "gres/gpu", n));
    }
    if (json_object_size(view))
        return view;
    json_decref(view);
    return NULL;
}

/* Calls fn for the limit, and for its typed GPU limits when the job asks
 * for that type (Slurm, too, does not count an untyped request against
 * them). */
static void emit(const struct job *j, void (*fn)(const struct limit_src *, void *), void *arg,
                 const struct limit_src *src)
{
    fn(src, arg);
    const char *type = j->req.gpu_type;
    json_t *view = type && *type ? typed_view(src->obj, type) : NULL;
    if (!view)
        return;
    struct limit_src typed = *src;
    typed.obj = view;
    typed.gpu_type = type;
    fn(&typed, arg);
    json_decref(view);
}

static void qos_limits(const char *qos, const json_t *q, const struct job *j, const char *acct,
                       void (*fn)(const struct limit_src *, void *), void *arg)
{
    if (has(q, "MaxTRESPerUser", "MaxJobsPerUser") || has(q, "MaxTRESRunMinsPerUser", NULL))
        emit(j, fn, arg, &(struct limit_src){ LK_QOS_USER, qos, j->user_name, q, NULL });
    if (has(q, "MaxTRESPerAccount", "MaxJobsPerAccount") ||
        has(q, "MaxTRESRunMinsPerAccount", NULL))
        emit(j, fn, arg, &(struct limit_src){ LK_QOS_ACCOUNT, qos, acct, q, NULL });
    if (has(q, "GrpTRES", "GrpJobs") || has(q, "GrpTRESRunMins", "GrpTRESMins") ||
        has(q, "GrpWall", NULL))
        emit(j, fn, arg, &(struct limit_src){ LK_QOS_GROUP, qos, NULL, q, NULL });
    if (has(q, "MaxTRESPerJob", "MaxWall") || has(q, "MaxTRESMins", "MaxTRESPerNode"))
        emit(j, fn, arg, &(struct limit_src){ LK_QOS_JOB, qos, NULL, q, NULL });
}

/* The association chain: group limits of each, and the user's own
 * (inherited) per-user ones. */
static void assoc_limits(struct assocs *as, const json_t *db, size_t a, const struct job *j,
                         void (*fn)(const struct limit_src *, void *), void *arg)
{
    static const char *const inherited[] = { "MaxJobs", "MaxTRES", "MaxWall", "MaxTRESMins",
                                             "MaxTRESPerNode" };
    json_t *mine = json_object();
    for (size_t i = a; i != SCHED_ASSOC_NONE; i = as->a[i].parent) {
        const json_t *o = acctdb_assoc(db, as->a[i].account, as->a[i].user);
        for (size_t k = 0; k < sizeof inherited / sizeof *inherited; k++)
            if (!json_object_get(mine, inherited[k]) && json_object_get(o, inherited[k]))
                json_object_set(mine, inherited[k], json_object_get(o, inherited[k]));
        if (has(o, "GrpTRES", "GrpJobs") || has(o, "GrpTRESRunMins", "GrpTRESMins") ||
            has(o, "GrpWall", NULL))
            emit(j, fn, arg, &(struct limit_src){ LK_ASSOC_GROUP, as->a[i].account,
                                                  as->a[i].user, o, NULL });
    }
    if (json_object_size(mine))
        emit(j, fn, arg,
             &(struct limit_src){ LK_ASSOC_USER, as->a[a].account, j->user_name, mine, NULL });
    json_decref(mine);
}

void limits_of_job(const struct ctld *c, const struct job *j,
                   void (*fn)(const struct limit_src *src, void *arg), void *arg)
{
    struct prio *p = prio_get(c);
    const char *qos = prio_job_qos(c, j), *acct = prio_job_account(c, j);
    const char *part_qos = c->conf->parts[j->part].qos;
    const json_t *all = json_object_get(p->db, "qos"), *q = json_object_get(all, qos);
    if (part_qos && strcmp(part_qos, qos) && json_object_get(all, part_qos))
        qos_limits(part_qos, json_object_get(all, part_qos), j, acct, fn, arg);
    if (q)
        qos_limits(qos, q, j, acct, fn, arg);
    assoc_limits(&p->as, p->db, assocs_user(&p->as, j->user_name, acct), j, fn, arg);
}

void limits_qos_objects(const struct ctld *c, const struct job *j,
                        void (*fn)(const struct limit_src *src, void *arg), void *arg)
{
    const json_t *all = json_object_get(prio_get(c)->db, "qos");
    const char *qos = prio_job_qos(c, j), *part_qos = c->conf->parts[j->part].qos;
    if (part_qos && strcmp(part_qos, qos) && json_object_get(all, part_qos))
        fn(&(struct limit_src){ LK_QOS_JOB, part_qos, NULL, json_object_get(all, part_qos),
                                NULL },
           arg);
    if (json_object_get(all, qos))
        fn(&(struct limit_src){ LK_QOS_JOB, qos, NULL, json_object_get(all, qos), NULL }, arg);
}
