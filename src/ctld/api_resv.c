/*
 * api_resv: advance reservations over the API (docs/reservations.md).
 * GET /v1/reservations[?all=1], GET /v1/reservations/{name}: anyone;
 * POST /v1/reservations (create), POST /v1/reservations/{name} (update),
 * DELETE /v1/reservations/{name}: root and SlurmUser, answered once the
 * change is on disk.
 */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/slurm_errno.h"
#include "common/xmalloc.h"
#include "ctld/api.h"
#include "ctld/ctld.h"
#include "ctld/resv.h"
#include "ctld/store.h"

struct named_reply {
    struct http_req *r;
    char *name;
};

static void reply_name(void *arg)
{
    struct named_reply *nr = arg;
    http_reply(nr->r, 200, json_pack("{s:s}", "name", nr->name));
    free(nr->name);
    free(nr);
}

static void reply_after_commit(struct ctld *c, struct http_req *r, const char *name)
{
    struct named_reply *nr = xcalloc(1, sizeof *nr);
    nr->r = r;
    nr->name = xstrdup(name);
    store_after_commit(c->store, reply_name, nr);
}

/* root or SlurmUser; others get Slurm's answer. */
static bool resv_admin(struct http_req *r, char *who, size_t len)
{
    struct ctld *c = r->ctx;
    char buf[1024];
    struct passwd pw, *res = NULL;
    bool named = getpwuid_r(r->who.uid, &pw, buf, sizeof buf, &res) == 0 && res;
    snprintf(who, len, "%s", named ? pw.pw_name : "?");
    if (r->who.uid == 0 || (named && c->conf->slurm_user && !strcmp(c->conf->slurm_user, who)))
        return true;
    http_reply_error(r, 403, ESLURM_USER_ID_MISSING, "Invalid user id");
    return false;
}

void api_resv_list(struct http_req *r)
{
    struct ctld *c = r->ctx;
    char *all_q = http_query_get(r, "all");
    bool all = all_q && strcmp(all_q, "0") != 0;
    free(all_q);
    int64_t now = ctld_now();
    json_t *a = json_array();
    for (size_t i = 0; i < c->resvs->n; i++)
        if (all || resv_live(c->resvs->v[i], now))
            json_array_append_new(a, resv_to_json(c, c->resvs->v[i], now, all));
    http_reply(r, 200, json_pack("{s:o}", "reservations", a));
}

void api_resv_show(struct http_req *r)
{
    struct ctld *c = r->ctx;
    const struct resv *v = resv_find(c, r->args[0], false);
    if (!v) {
        http_reply_error(r, 404, ESLURM_RESERVATION_INVALID, "Reservation %s not found",
                         r->args[0]);
        return;
    }
    json_t *a = json_array();
    json_array_append_new(a, resv_to_json(c, v, ctld_now(), false));
    http_reply(r, 200, json_pack("{s:o}", "reservations", a));
}

const char *api_resv_body_name(json_t *body)
{
    const char *k;
    json_t *v;
    json_object_foreach(body, k, v)
        if (!strcasecmp(k, "ReservationName") || !strcasecmp(k, "Reservation") ||
            !strcasecmp(k, "ResName"))
            return json_string_value(v);
    return NULL;
}

void api_resv_create(struct http_req *r)
{
    struct ctld *c = r->ctx;
    char who[64], err[256];
    int code = SLURM_ERROR;
    if (!resv_admin(r, who, sizeof who))
        return;
    const char *name = api_resv_body_name(r->body);
    if (name && resv_find(c, name, false)) {
        http_reply_error(r, 400, SLURM_ERROR, "Duplicate reservation name");
        return;
    }
    int64_t now = ctld_now();
    struct resv *v = xcalloc(1, sizeof *v);
    v->name = name && *name ? xstrdup(name) : NULL;
    if (resv_parse(c, v, r->body, true, now, &code, err, sizeof err) < 0 ||
        resv_place(c, v, NULL, now, &code, err, sizeof err) < 0) {
        resv_free(v);
        http_reply_error(r, 400, code, "%s", err);
        return;
    }
    resv_add(c, v, who);
    reply_after_commit(c, r, v->name);
}

void api_resv_update(struct http_req *r)
{
    struct ctld *c = r->ctx;
    char who[64], err[256];
    int code = SLURM_ERROR;
    if (!resv_admin(r, who, sizeof who))
        return;
    struct resv *old = resv_find(c, r->args[0], false);
    if (!old) {
        http_reply_error(r, 404, ESLURM_RESERVATION_INVALID, "Requested reservation is invalid");
        return;
    }
    int64_t now = ctld_now();
    struct resv *v = resv_dup(old);
    if (resv_parse(c, v, r->body, false, now, &code, err, sizeof err) < 0 ||
        resv_place(c, v, old, now, &code, err, sizeof err) < 0) {
        resv_free(v);
        http_reply_error(r, 400, code, "%s", err);
        return;
    }
    resv_replace(c, old, v, who);
    reply_after_commit(c, r, old->name);
}

void api_resv_delete(struct http_req *r)
{
    struct ctld *c = r->ctx;
    char who[64];
    if (!resv_admin(r, who, sizeof who))
        return;
    struct resv *v = resv_find(c, r->args[0], false);
    if (!v) {
        http_reply_error(r, 404, ESLURM_RESERVATION_INVALID, "Requested reservation is invalid");
        return;
    }
    resv_delete(c, v, ctld_now(), who);
    reply_after_commit(c, r, v->name);
}
