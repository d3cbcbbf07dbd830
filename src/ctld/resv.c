/*
 * resv: the table of advance reservations and their life: added, updated,
 * deleted (kept, marked), ended, recurring (moved to their next period when
 * they end), purged (PURGE_COMP: deleted once their jobs are done).
 */
#include "ctld/resv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "common/resv_flags.h"
#include "common/xmalloc.h"
#include "ctld/ctld.h"
#include "ctld/store.h"

#define PURGE_DEFAULT_S 300   /* Slurm's PURGE_COMP without a time */

void resv_free(struct resv *r)
{
    if (!r)
        return;
    free(r->name);
    free(r->users);
    free(r->accounts);
    free(r->groups);
    free(r->features);
    free(r->partition);
    free(r->comment);
    free(r->node_expr);
    free(r->gpu_type);
    free(r->holds);
    free(r);
}

static void table_append(struct resv_table *t, struct resv *r)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 8;
        t->v = xrealloc(t->v, t->cap * sizeof *t->v);
    }
    t->v[t->n++] = r;
    if (r->id >= t->next_id)
        t->next_id = r->id + 1;
}

static void load_one(uint64_t id, json_t *rec, void *arg)
{
    struct ctld *c = arg;
    struct resv *r = rec ? resv_from_record(c, rec) : NULL;
    if (!r) {
        log_warnx("reservation %llu: unreadable record, skipped", (unsigned long long)id);
        if (id >= c->resvs->next_id)   /* its id is still never given again */
            c->resvs->next_id = (uint32_t)id + 1;
        return;
    }
    r->id = (uint32_t)id;
    table_append(c->resvs, r);
}

void resv_load_all(struct ctld *c)
{
    c->resvs = xcalloc(1, sizeof *c->resvs);
    c->resvs->next_id = 1;
    store_resv_load(c->store, load_one, c);
}

void resv_destroy_all(struct ctld *c)
{
    if (!c->resvs)
        return;
    for (size_t i = 0; i < c->resvs->n; i++)
        resv_free(c->resvs->v[i]);
    free(c->resvs->v);
    free(c->resvs);
    c->resvs = NULL;
}

bool resv_live(const struct resv *r, int64_t now)
{
    return !r->deleted && (r->end > now || (r->flags & RESV_RECURRING));
}

bool resv_active(const struct resv *r, int64_t now)
{
    return resv_live(r, now) && r->start <= now && now < r->end;
}

bool resv_whole(const struct resv *r)
{
    return r->core_cnt == 0 && r->gpus == 0;
}

struct resv *resv_find(const struct ctld *c, const char *name, bool any)
{
    int64_t now = ctld_now();
    for (size_t i = c->resvs->n; name && i-- > 0;) {
        struct resv *r = c->resvs->v[i];
        if (strcmp(r->name, name) == 0 && (any || resv_live(r, now)))
            return r;
    }
    return NULL;
}

struct resv *resv_by_id(const struct ctld *c, uint32_t id)
{
    for (size_t i = 0; i < c->resvs->n; i++)
        if (c->resvs->v[i]->id == id)
            return c->resvs->v[i];
    return NULL;
}

void resv_save(struct ctld *c, const struct resv *r)
{
    json_t *rec = resv_record(c, r);
    store_resv_save(c->store, r->id, rec);
    json_decref(rec);
}

/* Slurm's name for an unnamed one: its first account, user or group, or
 * "resv", then its id. */
static char *default_name(const struct resv *r)
{
    const char *src = r->accounts ? r->accounts : r->users ? r->users : r->groups;
    if (src && *src == '-')
        src++;
    size_t n = src ? strcspn(src, ",") : 0;
    return n ? xasprintf("%.*s_%u", (int)n, src, r->id) : xasprintf("resv_%u", r->id);
}

void resv_add(struct ctld *c, struct resv *r, const char *who)
{
    r->id = c->resvs->next_id;
    if (!r->name)
        r->name = default_name(r);
    table_append(c->resvs, r);
    resv_save(c, r);
    char *nodes = resv_nodes_str(c, r);
    log_info("reservation %s (id %u) created by %s on %s", r->name, r->id, who, nodes);
    free(nodes);
    ctld_sched_request(c);
}

void resv_delete(struct ctld *c, struct resv *r, int64_t now, const char *who)
{
    r->deleted = true;
    r->deleted_time = now;
    resv_save(c, r);
    log_info("reservation %s (id %u) deleted by %s", r->name, r->id, who);
    ctld_sched_request(c);
}

/* The next period of a recurring one that has ended. */
static int64_t next_period(const struct resv *r)
{
    if (r->flags & RESV_HOURLY)
        return 3600;
    if (r->flags & (RESV_WEEKLY))
        return 7 * 86400;
    if (!(r->flags & (RESV_WEEKDAY | RESV_WEEKEND)))
        return 86400;
    /* WEEKDAY: Monday to Friday; WEEKEND: Saturday and Sunday (local time) */
    for (int days = 1; days <= 7; days++) {
        time_t t = (time_t)(r->start + days * 86400);
        struct tm tm;
        localtime_r(&t, &tm);
        bool weekend = tm.tm_wday == 0 || tm.tm_wday == 6;
        if (weekend == !!(r->flags & RESV_WEEKEND))
            return days * 86400;
    }
    return 86400;
}

/* Does a job (pending or running) still use it? */
static bool resv_in_use(const struct ctld *c, const struct resv *r)
{
    const struct job *j;
    JOB_FOREACH(c, j)
        if (j->resv_id == r->id && (j->state == JOB_PENDING || j->state == JOB_RUNNING))
            return true;
    return false;
}

static void purge_check(struct ctld *c, struct resv *r, int64_t now)
{
    if (!(r->flags & RESV_PURGE_COMP) || !resv_active(r, now))
        return;
    if (resv_in_use(c, r)) {
        r->idle_since = 0;
        return;
    }
    if (!r->idle_since)
        r->idle_since = now > r->start ? now : r->start;
    if (now - r->idle_since >= (r->purge_s > 0 ? r->purge_s : PURGE_DEFAULT_S))
        resv_delete(c, r, now, "PURGE_COMP");
}

void resv_tick(struct ctld *c, int64_t now)
{
    for (size_t i = 0; c->resvs && i < c->resvs->n; i++) {
        struct resv *r = c->resvs->v[i];
        if (r->deleted)
            continue;
        if ((r->flags & RESV_RECURRING) && r->end <= now) {
            while (r->end <= now) {
                int64_t step = next_period(r);
                r->start += step;
                r->end += step;
            }
            resv_save(c, r);
            log_info("reservation %s moved to its next period", r->name);
            ctld_sched_request(c);
        }
        purge_check(c, r, now);
    }
}

const struct resv *resv_on_node(const struct ctld *c, size_t node, int64_t now)
{
    for (size_t i = 0; c->resvs && i < c->resvs->n; i++) {
        const struct resv *r = c->resvs->v[i];
        if (!resv_active(r, now))
            continue;
        for (size_t k = 0; k < r->nholds; k++)
            if (r->holds[k].node == node)
                return r;
    }
    return NULL;
}

static char *dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

struct resv *resv_dup(const struct resv *r)
{
    struct resv *d = xcalloc(1, sizeof *d);
    *d = *r;
    d->name = xstrdup(r->name);
    d->users = dup_or_null(r->users);
    d->accounts = dup_or_null(r->accounts);
    d->groups = dup_or_null(r->groups);
    d->features = dup_or_null(r->features);
    d->partition = dup_or_null(r->partition);
    d->comment = dup_or_null(r->comment);
    d->node_expr = dup_or_null(r->node_expr);
    d->gpu_type = dup_or_null(r->gpu_type);
    d->holds = xcalloc(r->nholds ? r->nholds : 1, sizeof *d->holds);
    memcpy(d->holds, r->holds, r->nholds * sizeof *d->holds);
    return d;
}

void resv_replace(struct ctld *c, struct resv *old, struct resv *upd, const char *who)
{
    struct resv tmp = *old;
    *old = *upd;
    *upd = tmp;
    resv_free(upd);
    resv_save(c, old);
    log_info("reservation %s (id %u) updated by %s", old->name, old->id, who);
    ctld_sched_request(c);
}

void resv_node_json(const struct ctld *c, size_t node, json_t *o)
{
    const struct resv *r = resv_on_node(c, node, ctld_now());
    if (!r)
        return;
    json_object_set_new(o, "reservation", json_string(r->name));
    if (r->flags & RESV_MAINT)
        json_object_set_new(o, "maint", json_true());
}
