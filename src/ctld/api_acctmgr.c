/*
 * api_acctmgr: what sacctmgr reads and changes. GET /v1/acctdb is the
 * accounting database (acctdb.h) with the associations in Slurm's order,
 * those jobs made up without the database included; POST /v1/acctdb is one
 * add, modify or delete (acctdb_edit), open to root, SlurmUser and users of
 * AdminLevel Operator or Administrator (and to an account's coordinators
 * for its users' associations), stored before the answer. With
 * "dry_run" it answers what would change and changes nothing: sacctmgr
 * shows that before it asks to commit.
 */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/acct_keys.h"
#include "common/conf.h"
#include "common/slurm_errno.h"
#include "common/xmalloc.h"
#include "ctld/acctdb.h"
#include "ctld/api.h"
#include "ctld/ctld.h"
#include "ctld/prio.h"
#include "ctld/store.h"

static const char *parent_name(const struct assocs *as, size_t i)
{
    return as->a[i].parent == SCHED_ASSOC_NONE ? "" : as->a[as->a[i].parent].account;
}

/* Slurm shows a child association the per-job limits of its nearest
 * ancestor that sets them (the Grp* limits are the ancestor's own). */
static void inherit_max(json_t *row, const struct assocs *as, size_t i, const json_t *db)
{
    static const char *const keys[] = { "MaxJobs", "MaxSubmitJobs", "MaxWall", "MaxTRES",
                                        "MaxTRESPerNode", "MaxTRESMins" };
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
        for (size_t up = as->a[i].parent; up != SCHED_ASSOC_NONE && !json_object_get(row, keys[k]);
             up = as->a[up].parent) {
            json_t *v = json_object_get(acctdb_assoc(db, as->a[up].account, NULL), keys[k]);
            if (v)
                json_object_set(row, keys[k], v);
        }
}

static json_t *assoc_row(const json_t *db, const struct assocs *as, size_t i)
{
    const struct assoc *a = &as->a[i];
    json_t *row = acctdb_assoc(db, a->account, a->user);
    row = row ? json_deep_copy(row) : json_pack("{s:s, s:i, s:[s]}", "account", a->account,
                                               "Fairshare", (int)a->shares, "QOS", "normal");
    if (a->user)
        json_object_set_new(row, "user", json_string(a->user));
    else if (a->parent != SCHED_ASSOC_NONE && !json_object_get(row, "Parent"))
        json_object_set_new(row, "Parent", json_string(parent_name(as, i)));
    inherit_max(row, as, i, db);
    return row;
}

/* An account or user a job named: listed as Slurm would once added. */
static void list_implicit(json_t *out, const struct assoc *a, const char *parent)
{
    json_t *users = json_object_get(out, "users"), *accts = json_object_get(out, "accounts");
    if (a->user && !json_object_get(users, a->user))
        json_object_set_new(users, a->user, json_pack("{s:s, s:s}", "DefaultAccount", a->account,
                                                      "AdminLevel", "None"));
    if (!a->user && !json_object_get(accts, a->account))
        json_object_set_new(accts, a->account, json_pack("{s:s, s:s}", "Description", a->account,
                                                         "Organization", parent));
}

void api_acctdb(struct http_req *r)
{
    struct ctld *c = r->ctx;
    struct prio *p = prio_get(c);
    const struct job *j;
    JOB_FOREACH(c, j)   /* every user with jobs has an association */
        assocs_user(&p->as, j->user_name, prio_job_account(c, j));
    json_t *out = json_deep_copy(p->db), *rows = json_array();
    for (size_t i = 0; i < p->as.n; i++) {
        json_array_append_new(rows, assoc_row(p->db, &p->as, i));
        if (p->as.a[i].implicit)
            list_implicit(out, &p->as.a[i], parent_name(&p->as, i));
    }
    json_object_set_new(out, "assocs", rows);
    json_object_set_new(out, "cluster", json_string(c->conf->cluster_name));
    http_reply(r, 200, out);
}

struct stored {
    struct http_req *r;
    json_t *res;
};

/* For store_after_commit: what changed, once it is on disk. */
static void reply_stored(void *arg)
{
    struct stored *st = arg;
    http_reply(st->r, 200, st->res);
    free(st);
}

/* A coordinator may add and delete associations of existing users in the
 * accounts it coordinates (Account= or where account=), nothing else. */
static bool coordinator_may(const json_t *db, const char *who, const json_t *req)
{
    const char *op = json_string_value(json_object_get(req, "op"));
    const char *ent = json_string_value(json_object_get(req, "entity"));
    json_t *accts = json_deep_copy(json_object_get(json_object_get(req, "where"), "account"));
    size_t i;
    json_t *v;
    bool ok = op && ent && strcmp(op, "modify") && !strcmp(ent, "user");
    if (!accts)
        accts = json_array();
    json_array_foreach(json_object_get(req, "set"), i, v) {
        const char *w = json_string_value(json_array_get(v, 0));
        const char *t = json_string_value(json_array_get(v, 2));
        const struct acct_key *k = w ? acct_key_find(w, strlen(w), AK_USER) : NULL;
        if (!k || strcmp(k->name, "Account") || !t) {
            ok = false;
            break;
        }
        json_t *list = acct_value_parse(k, t, NULL, 0);
        json_array_extend(accts, list);
        json_decref(list);
    }
    ok = ok && json_array_size(accts) > 0;
    json_array_foreach(accts, i, v)
        ok = ok && acctdb_coordinates(db, who, json_string_value(v));
    json_array_foreach(json_object_get(req, "names"), i, v)
        ok = ok && json_object_get(json_object_get(db, "users"), json_string_value(v));
    json_decref(accts);
    return ok;
}

static bool may_edit(const struct ctld *c, uid_t uid, const json_t *req)
{
    if (uid == 0)
        return true;
    char buf[1024];
    struct passwd pw, *res = NULL;
    if (getpwuid_r(uid, &pw, buf, sizeof buf, &res) != 0 || !res)
        return false;
    const char *su = c->conf->slurm_user;
    const json_t *db = prio_get(c)->db;
    if (su && !strcmp(su, pw.pw_name))
        return true;
    return strcmp(acctdb_admin_level(db, pw.pw_name), "None") != 0 ||
           coordinator_may(db, pw.pw_name, req);
}

void api_acctdb_edit(struct http_req *r)
{
    struct ctld *c = r->ctx;
    if (!may_edit(c, r->who.uid, r->body)) {
        http_reply_error(r, 403, ESLURM_ACCESS_DENIED, API_MSG_DENIED);
        return;
    }
    char err[512];
    int status = 400;
    json_t *db = json_deep_copy(prio_get(c)->db);
    json_t *res = acctdb_edit(db, r->body, &status, err, sizeof err);
    if (!res) {
        json_decref(db);
        http_reply_error(r, status, SLURM_ERROR, "%s", err);
        return;
    }
    bool changed = json_array_size(json_object_get(res, "entities")) ||
                   json_array_size(json_object_get(res, "assocs"));
    if (json_is_true(json_object_get(r->body, "dry_run")) || !changed) {
        json_decref(db);
        http_reply(r, 200, res);
        return;
    }
    prio_acctdb_replace(c, db);
    ctld_sched_request(c);   /* limits, priorities and shares may have changed */
    struct stored *st = xmalloc(sizeof *st);
    *st = (struct stored){ r, res };
    store_after_commit(c->store, reply_stored, st);
}
