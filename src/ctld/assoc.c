/*
 * assoc: the association tree fair share ranks, built from the accounting
 * database (acctdb.h) at start and after every sacctmgr change. Users and
 * accounts that jobs name and the database does not list join with
 * FairShare=1 ("implicit": enforcement of associations is not there yet).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/xmalloc.h"
#include "ctld/acctdb.h"
#include "ctld/prio.h"

static char *assoc_key(const char *account, const char *user)
{
    return user ? xasprintf("%s:%s", account, user) : xstrdup(account);
}

static size_t assoc_find(const struct assocs *as, const char *account, const char *user)
{
    char *k = assoc_key(account, user);
    json_t *v = json_object_get(as->index, k);
    free(k);
    return v ? (size_t)json_integer_value(v) : SCHED_ASSOC_NONE;
}

static size_t assoc_add(struct assocs *as, const char *account, const char *user, size_t parent,
                        uint32_t shares)
{
    if (as->n == as->cap) {
        as->cap = as->cap ? as->cap * 2 : 16;
        as->a = xrealloc(as->a, as->cap * sizeof(*as->a));
    }
    as->a[as->n] = (struct assoc){ xstrdup(account), user ? xstrdup(user) : NULL, parent,
                                   shares, 0.0, true };
    char *k = assoc_key(account, user);
    json_object_set_new(as->index, k, json_integer((json_int_t)as->n));
    free(k);
    as->dirty = true;
    return as->n++;
}

/* Usage by "account:user", to carry across a rebuild. */
static json_t *usage_of(const struct assocs *as)
{
    json_t *u = json_object();
    for (size_t i = 0; i < as->n; i++)
        if (as->a[i].user && as->a[i].usage > 0) {
            char *k = assoc_key(as->a[i].account, as->a[i].user);
            json_object_set_new(u, k, json_real(as->a[i].usage));
            free(k);
        }
    return u;
}

static void usage_restore(struct assocs *as, json_t *usage)
{
    const char *key;
    json_t *v;
    json_object_foreach(usage, key, v) {
        const char *colon = strchr(key, ':');
        char *account = xstrndup(key, (size_t)(colon - key));
        as->a[assocs_user(as, colon + 1, account)].usage = json_real_value(v);
        free(account);
    }
}

static uint32_t shares_of(const json_t *a)
{
    json_int_t s = json_integer_value(json_object_get(a, "Fairshare"));
    return s > 0 && s <= UINT32_MAX ? (uint32_t)s : 1;
}

/* An account's users, then its sub-accounts, depth first: the order Slurm
 * lists associations in. */
static void add_children(struct assocs *as, const json_t *db, const char *acct, size_t idx,
                         int depth)
{
    const json_t *list = json_object_get(db, "assocs");
    size_t i;
    json_t *a;
    json_array_foreach(list, i, a) {
        const char *user = json_string_value(json_object_get(a, "user"));
        if (user && !strcmp(json_string_value(json_object_get(a, "account")), acct))
            assoc_add(as, acct, user, idx, shares_of(a));
    }
    json_array_foreach(list, i, a) {
        const char *name = json_string_value(json_object_get(a, "account"));
        const char *parent = json_string_value(json_object_get(a, "Parent"));
        if (!json_object_get(a, "user") && parent && !strcmp(parent, acct) && depth < 64)
            add_children(as, db, name, assoc_add(as, name, NULL, idx, shares_of(a)), depth + 1);
    }
}

static void qos_priorities(struct assocs *as, const json_t *db)
{
    const char *name;
    json_t *q;
    json_object_foreach(json_object_get(db, "qos"), name, q) {
        json_int_t p = json_integer_value(json_object_get(q, "Priority"));
        json_object_set_new(as->qos, name, json_integer(p));
        if (p > 0 && (uint32_t)p > as->max_qos)
            as->max_qos = (uint32_t)p;
    }
}

void assocs_build(struct assocs *as, const json_t *db)
{
    json_t *usage = usage_of(as);
    assocs_free(as);
    as->index = json_object();
    as->defaults = json_object();
    as->qos = json_object();
    const json_t *root = acctdb_assoc(db, "root", NULL);
    add_children(as, db, "root", assoc_add(as, "root", NULL, SCHED_ASSOC_NONE, shares_of(root)),
                 0);
    for (size_t i = 0; i < as->n; i++)
        as->a[i].implicit = false;
    const char *name;
    json_t *u;
    json_object_foreach(json_object_get(db, "users"), name, u) {
        json_t *d = json_object_get(u, "DefaultAccount");
        if (json_is_string(d))
            json_object_set(as->defaults, name, d);
    }
    qos_priorities(as, db);
    usage_restore(as, usage);
    json_decref(usage);
}

void assocs_free(struct assocs *as)
{
    if (!as)
        return;
    for (size_t i = 0; i < as->n; i++) {
        free(as->a[i].account);
        free(as->a[i].user);
    }
    free(as->a);
    free(as->tree);
    json_decref(as->index);
    json_decref(as->defaults);
    json_decref(as->qos);
    memset(as, 0, sizeof(*as));
}

const char *assocs_listed_account(const struct assocs *as, const char *user)
{
    return json_string_value(json_object_get(as->defaults, user ? user : ""));
}

const char *assocs_default_account(const struct assocs *as, const char *user)
{
    const char *a = assocs_listed_account(as, user);
    return a ? a : "root";
}

size_t assocs_account(const struct assocs *as, const char *account)
{
    return assoc_find(as, account, NULL);
}

size_t assocs_user(struct assocs *as, const char *user, const char *account)
{
    if (!account || !*account)
        account = assocs_default_account(as, user);
    size_t i = assoc_find(as, account, user);
    if (i != SCHED_ASSOC_NONE)
        return i;
    size_t acct = assoc_find(as, account, NULL);
    if (acct == SCHED_ASSOC_NONE)
        acct = assoc_add(as, account, NULL, 0, 1);
    return assoc_add(as, account, user, acct, 1);
}

const struct sched_assoc *assocs_tree(struct assocs *as)
{
    static const struct sched_assoc none;
    if (as->n == 0)
        return &none;
    if (!as->dirty && as->tree)
        return as->tree;
    free(as->tree);
    as->tree = xcalloc(as->n, sizeof(*as->tree));
    for (size_t i = 0; i < as->n; i++) {
        const struct assoc *a = &as->a[i];
        as->tree[i] = (struct sched_assoc){ .parent = a->parent, .user = a->user != NULL,
                                            .shares = a->shares, .usage = a->usage,
                                            .name = a->user ? a->user : a->account };
    }
    sched_fairtree(as->tree, as->n);
    as->dirty = false;
    return as->tree;
}

double assocs_qos_factor(const struct assocs *as, const char *qos)
{
    json_t *v = json_object_get(as->qos, qos ? qos : "normal");
    if (!v || as->max_qos == 0)
        return 0.0;
    return (double)json_integer_value(v) / (double)as->max_qos;
}
