/*
 * acctdb_set: one "Key=value" of sacctmgr's add or modify, checked and put
 * into the accounting database: a TRES list merges per TRES (-1 clears
 * one), a count or wall limit of -1 goes away, QOS+= and QOS-= edit the
 * list, names must exist and an account may not become its own ancestor.
 */
#include <stdio.h>
#include <string.h>

#include "common/acct_keys.h"
#include "ctld/acctdb_int.h"

static int name_exists(const json_t *db, const struct acct_key *k, const char *v,
                       char *err, size_t errlen)
{
    const char *table = !strcmp(k->name, "DefaultQOS") ? "qos" : "accounts";
    if (json_object_get(json_object_get(db, table), v))
        return 0;
    snprintf(err, errlen, "%s '%s' doesn't exist", !strcmp(table, "qos") ? "QOS" : "Account", v);
    return -1;
}

static int qos_exist(const json_t *db, const json_t *list, char *err, size_t errlen)
{
    size_t i;
    json_t *q;
    json_array_foreach(list, i, q)
        if (!json_object_get(json_object_get(db, "qos"), json_string_value(q))) {
            int n = snprintf(err, errlen, "You gave a bad qos '%s'. Valid QOS's are ",
                             json_string_value(q));
            const char *name;
            json_t *v;
            json_object_foreach(json_object_get(db, "qos"), name, v)
                if (n >= 0 && (size_t)n < errlen)
                    n += snprintf(err + n, errlen - (size_t)n, "%s%s", name, ",");
            if (n > 0 && (size_t)n <= errlen)
                err[n - 1] = '\0';   /* the last ',' */
            return -1;
        }
    return 0;
}

/* Would account's parent becoming parent make a loop? */
static bool makes_loop(const json_t *db, const char *account, const char *parent)
{
    for (int depth = 0; parent && depth < 64; depth++) {
        if (!strcmp(parent, account))
            return true;
        json_t *a = acctdb_assoc(db, parent, NULL);
        parent = json_string_value(json_object_get(a, "Parent"));
    }
    return false;
}

static void merge_tres(json_t *obj, const char *key, json_t *v)
{
    json_t *cur = json_object_get(obj, key);
    json_t *out = json_is_object(cur) ? json_deep_copy(cur) : json_object();
    const char *t;
    json_t *n;
    json_object_foreach(v, t, n) {
        if (json_is_null(n))
            json_object_del(out, t);
        else
            json_object_set(out, t, n);
    }
    if (json_object_size(out))
        json_object_set_new(obj, key, out);
    else {
        json_decref(out);
        json_object_del(obj, key);
    }
}

static void edit_list(json_t *obj, const char *key, json_t *v, char op)
{
    json_t *cur = json_object_get(obj, key);
    json_t *out = op == '=' || !json_is_array(cur) ? json_array() : json_deep_copy(cur);
    size_t i;
    json_t *x;
    json_array_foreach(v, i, x) {
        const char *s = json_string_value(x);
        if (op == '-') {
            for (size_t k = json_array_size(out); k-- > 0;)
                if (!strcmp(json_string_value(json_array_get(out, k)), s))
                    json_array_remove(out, k);
        } else if (!acct_list_has(out, s)) {
            json_array_append(out, x);
        }
    }
    json_object_set_new(obj, key, out);
}

/* Does QOS `from` reach `to` through Preempt= lists (itself included)? */
static bool preempt_reaches(const json_t *qos, const char *from, const char *to, int depth)
{
    if (!strcmp(from, to))
        return true;
    size_t i;
    json_t *n;
    json_array_foreach(json_object_get(json_object_get(qos, from), "Preempt"), i, n)
        if (depth < 64 && preempt_reaches(qos, json_string_value(n), to, depth + 1))
            return true;
    return false;
}

/* A QOS that would preempt itself, directly or round a loop. */
static int preempt_loop(const json_t *db, const json_t *list, const json_t *obj, char *err,
                        size_t errlen)
{
    const json_t *qos = json_object_get(db, "qos");
    const char *self = NULL, *name;
    json_t *q;
    json_object_foreach((json_t *)qos, name, q)
        if (q == obj)
            self = name;
    size_t i;
    json_array_foreach(list, i, q)
        if (self && preempt_reaches(qos, json_string_value(q), self, 0)) {
            snprintf(err, errlen, "QOS Preemption loop detected");
            return -1;
        }
    return 0;
}

static int check(const json_t *db, const struct acct_key *k, const json_t *v, json_t *assoc,
                 char *err, size_t errlen)
{
    if (k->kind == AK_QOSLIST && qos_exist(db, v, err, errlen) < 0)
        return -1;
    if (k->kind == AK_QOSLIST && !strcmp(k->name, "Preempt"))
        return preempt_loop(db, v, assoc, err, errlen);
    if (k->kind == AK_QOSLIST)
        return 0;
    if (k->kind != AK_NAME)
        return 0;
    if (name_exists(db, k, json_string_value(v), err, errlen) < 0)
        return -1;
    const char *acct = json_string_value(json_object_get(assoc, "account"));
    if (!strcmp(k->name, "Parent") && acct && makes_loop(db, acct, json_string_value(v))) {
        snprintf(err, errlen, "Account '%s' can't be a child of itself", acct);
        return -1;
    }
    return 0;
}

int acctdb_set(const json_t *db, json_t *obj, const struct acct_set *s, char *err,
               size_t errlen)
{
    json_t *v = acct_value_parse(s->key, s->text, err, errlen);
    if (!v)
        return -1;
    int rc = json_is_null(v) ? 0 : check(db, s->key, v, obj, err, errlen);
    if (rc == 0) {
        const char *name = s->key->name;
        if (s->key->kind == AK_TRES)
            merge_tres(obj, name, v);
        else if (s->key->kind == AK_QOSLIST)
            edit_list(obj, name, v, s->op);
        else if (json_is_null(v))
            json_object_del(obj, name);
        else
            json_object_set(obj, name, v);
    }
    json_decref(v);
    return rc;
}
