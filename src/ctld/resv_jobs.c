/*
 * resv_jobs: jobs and reservations. A job names its reservation at
 * submission (--reservation, the spec's "reservation"); it is checked then
 * (it exists, the user may use it) and the job keeps its id, so that a
 * reservation deleted later still names it (ReservationDeleted). Each pass
 * is told the reservations that matter now and which one each job asks for.
 */
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/resv_flags.h"
#include "common/slurm_errno.h"
#include "common/xmalloc.h"
#include "ctld/ctld.h"
#include "ctld/resv.h"
#include "ctld/sched_snap.h"

int resv_job_parse(const struct ctld *c, struct job *j, json_t *spec, bool submit, int *code,
                   char *err, size_t errlen)
{
    const char *name = json_string_value(json_object_get(spec, "reservation"));
    j->resv_id = 0;
    if (!name || !*name)
        return 0;
    const struct resv *r = resv_find(c, name, !submit);
    if (!r && submit) {
        *code = ESLURM_RESERVATION_INVALID;
        snprintf(err, errlen, "Requested reservation is invalid");
        return -1;
    }
    j->resv_id = r ? r->id : 0;
    return 0;
}

/* Is name in the comma-separated list? */
static bool listed(const char *list, const char *name)
{
    size_t n = name ? strlen(name) : 0;
    for (const char *p = list; n && p && *p;) {
        size_t len = strcspn(p, ",");
        if (len == n && strncmp(p, name, n) == 0)
            return true;
        p += len + (p[len] == ',');
    }
    return false;
}

/* A list that may be "-a,b" (everyone but a and b). */
static bool list_allows(const char *list, const char *name)
{
    if (!list)
        return true;
    if (*list == '-')
        return !listed(list + 1, name);
    return listed(list, name);
}

static bool in_groups(const char *groups, const struct job *j)
{
    if (!groups)
        return true;
    struct group *g = getgrgid(j->gid);
    if (g && list_allows(groups, g->gr_name))
        return true;
    char *copy = xstrdup(groups + (*groups == '-')), *save = NULL;
    bool found = false;
    for (char *n = strtok_r(copy, ",", &save); n && !found; n = strtok_r(NULL, ",", &save)) {
        struct group *gr = getgrnam(n);
        for (char **m = gr ? gr->gr_mem : NULL; m && *m && !found; m++)
            found = j->user_name && strcmp(*m, j->user_name) == 0;
    }
    free(copy);
    return *groups == '-' ? !found : found;
}

int resv_job_access(const struct ctld *c, const struct job *j, const char *user, int *code,
                    char *err, size_t errlen)
{
    const struct resv *r = j->resv_id ? resv_by_id(c, j->resv_id) : NULL;
    if (!r)
        return 0;
    /* as Slurm: every list the reservation has must let the job in */
    bool ok = list_allows(r->users, user) && list_allows(r->accounts, j->account) &&
              in_groups(r->groups, j);
    if (ok)
        return 0;
    *code = ESLURM_RESERVATION_ACCESS;
    snprintf(err, errlen, "Access denied to requested reservation");
    return -1;
}

/* Is r one the pass is told of: live, not over, begun or beginning within
 * the backfill window? */
static bool resv_in_window(const struct ctld *c, const struct resv *r, int64_t now)
{
    if (!resv_live(r, now) || r->end <= now)
        return false;
    return c->bf_window_s <= 0 || r->start <= now + c->bf_window_s;
}

enum sched_reason resv_job_wait(const struct ctld *c, const struct job *j, int64_t now)
{
    if (!j->resv_id)
        return SCHED_NONE;
    const struct resv *r = resv_by_id(c, j->resv_id);
    if (!r || !resv_live(r, now))
        return SCHED_RESV_DELETED;
    return resv_in_window(c, r, now) || (r->flags & RESV_FLEX) ? SCHED_NONE : SCHED_RESERVATION;
}

void resv_job_json(const struct ctld *c, const struct job *j, json_t *o)
{
    const struct resv *r = j->resv_id ? resv_by_id(c, j->resv_id) : NULL;
    if (!r) {
        json_object_del(o, "reservation");   /* the spec's "" after an update cleared it */
        return;
    }
    json_object_set_new(o, "reservation", json_string(r->name));
    json_object_set_new(o, "reservation_id", json_integer(r->id));
}

static void snap_resvs(const struct ctld *c, struct sched_snap *s, uint32_t *ids)
{
    size_t n = 0, nholds = 0;
    for (size_t i = 0; i < c->resvs->n; i++)
        if (resv_in_window(c, c->resvs->v[i], s->now))
            nholds += c->resvs->v[i]->nholds;
    s->resvs = xcalloc(c->resvs->n ? c->resvs->n : 1, sizeof *s->resvs);
    s->resv_holds = xcalloc(nholds ? nholds : 1, sizeof *s->resv_holds);
    nholds = 0;
    for (size_t i = 0; i < c->resvs->n; i++) {
        const struct resv *r = c->resvs->v[i];
        if (!resv_in_window(c, r, s->now))
            continue;
        memcpy(s->resv_holds + nholds, r->holds, r->nholds * sizeof *r->holds);
        s->resvs[n] = (struct sched_resv){
            .start = r->start, .end = r->end, .holds = s->resv_holds + nholds,
            .nholds = r->nholds, .maint = r->flags & RESV_MAINT, .flex = r->flags & RESV_FLEX };
        ids[n++] = r->id;
        nholds += r->nholds;
    }
    s->in.resvs = s->resvs;
    s->in.nresvs = n;
}

void resv_snap(const struct ctld *c, struct sched_snap *s)
{
    uint32_t *ids = xcalloc(c->resvs->n ? c->resvs->n : 1, sizeof *ids);
    snap_resvs(c, s, ids);
    struct sched_job *pend = (struct sched_job *)s->in.pending;
    for (size_t k = 0; k < s->in.npending; k++) {
        uint64_t id = s->metas[k] ? s->metas[k] : pend[k].job_id;
        const struct job *j = job_find((struct ctld *)c, id);
        pend[k].resv = 0;
        for (size_t i = 0; j && j->resv_id && i < s->in.nresvs; i++)
            if (ids[i] == j->resv_id)
                pend[k].resv = i + 1;
    }
    free(ids);
}

int resv_job_update_check(const struct ctld *c, const struct job *j, json_t *body, int *code,
                          char *err, size_t errlen)
{
    const char *name = json_string_value(json_object_get(body, "reservation"));
    if (!name || !*name)
        return 0;
    const struct resv *r = resv_find(c, name, false);
    if (!r) {
        *code = ESLURM_RESERVATION_INVALID;
        snprintf(err, errlen, "Requested reservation is invalid");
        return -1;
    }
    struct job as_if = *j;   /* the job as it would be: only read */
    as_if.resv_id = r->id;
    return resv_job_access(c, &as_if, j->user_name, code, err, errlen);
}
