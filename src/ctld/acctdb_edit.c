/*
 * acctdb_edit: sacctmgr's add, modify and delete on the accounting database
 * (acctdb.h). The request names the objects and carries the settings as
 * typed ([word, op, text]); each is checked here again, whatever the command
 * checked. The result says what changed: "entities" (names of accounts,
 * users or QOS) and "assocs" ({"account", "user", "parent"}), which
 * sacctmgr prints in Slurm's words; both empty when nothing matched.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/acct_keys.h"
#include "common/xmalloc.h"
#include "ctld/acctdb_int.h"

int edit_bad(struct edit *e, const char *msg)
{
    snprintf(e->err, e->errlen, "%s", msg);
    return -1;
}

static int parse_sets(struct edit *e, const json_t *set)
{
    size_t i;
    json_t *s;
    e->sets = xcalloc(json_array_size(set) + 1, sizeof *e->sets);
    json_array_foreach(set, i, s) {
        const char *w = json_string_value(json_array_get(s, 0));
        const char *op = json_string_value(json_array_get(s, 1));
        const char *t = json_string_value(json_array_get(s, 2));
        const struct acct_key *k = w ? acct_key_find(w, strlen(w), e->ent) : NULL;
        if (!k || !op || !t || !strchr("=+-", op[0])) {
            snprintf(e->err, e->errlen, " Unknown option: %s", w ? w : "?");
            return -1;
        }
        if (!strcmp(k->name, "Account")) {
            json_decref(e->accounts);
            e->accounts = acct_value_parse(k, t, e->err, e->errlen);
            continue;
        }
        e->sets[e->nsets++] = (struct acct_set){ k, op[0], t };
    }
    return 0;
}

/* The settings of one level (the entity's own, or its association's). */
static int apply(struct edit *e, json_t *obj, bool assoc_level)
{
    for (size_t i = 0; i < e->nsets; i++) {
        bool is_assoc = e->ent != AK_QOS && e->sets[i].key->assoc;
        if (is_assoc == assoc_level &&
            acctdb_set(e->db, obj, &e->sets[i], e->err, e->errlen) < 0)
            return -1;
    }
    return 0;
}

static void lower(json_t *obj, const char *key)
{
    const char *v = json_string_value(json_object_get(obj, key));
    if (!v)
        return;
    char *s = xstrdup(v);
    for (char *p = s; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    json_object_set_new(obj, key, json_string(s));
    free(s);
}

void edit_note_assoc(struct edit *e, const json_t *a)
{
    json_t *o = json_object();
    json_object_set(o, "account", json_object_get(a, "account"));
    if (json_object_get(a, "user"))
        json_object_set(o, "user", json_object_get(a, "user"));
    if (json_object_get(a, "Parent"))
        json_object_set(o, "parent", json_object_get(a, "Parent"));
    json_array_append_new(json_object_get(e->res, "assocs"), o);
}

void edit_note_entity(struct edit *e, const char *name)
{
    json_array_append_new(json_object_get(e->res, "entities"), json_string(name));
}

static int add_account(struct edit *e, const char *name)
{
    json_t *accounts = json_object_get(e->db, "accounts");
    if (json_object_get(accounts, name))
        return 0;
    json_t *acct = json_pack("{s:s, s:s}", "Description", name, "Organization", "");
    json_t *assoc = acctdb_new_assoc(name, NULL, "root");
    json_object_set_new(accounts, name, acct);
    json_array_append_new(json_object_get(e->db, "assocs"), assoc);
    if (apply(e, acct, false) < 0 || apply(e, assoc, true) < 0)
        return -1;
    if (!*json_string_value(json_object_get(acct, "Organization")))
        json_object_set(acct, "Organization", json_object_get(assoc, "Parent"));
    lower(acct, "Description");
    lower(acct, "Organization");
    edit_note_entity(e, name);
    edit_note_assoc(e, assoc);
    return 0;
}

static int accounts_exist(struct edit *e)
{
    size_t i;
    json_t *a;
    if (!json_array_size(e->accounts))
        return edit_bad(e, " Need name of account to add user to.");
    json_array_foreach(e->accounts, i, a)
        if (!json_object_get(json_object_get(e->db, "accounts"), json_string_value(a))) {
            snprintf(e->err, e->errlen,
                     " This account '%s' doesn't exist.\n        Contact your admin to add this "
                     "account.\n No associations or wckeys created.", json_string_value(a));
            return -1;
        }
    return 0;
}

static int add_user(struct edit *e, const char *name)
{
    json_t *users = json_object_get(e->db, "users"), *u = json_object_get(users, name);
    size_t i;
    json_t *acct;
    if (!u) {
        u = json_pack("{s:O, s:s}", "DefaultAccount", json_array_get(e->accounts, 0),
                      "AdminLevel", "None");
        json_object_set_new(users, name, u);
        if (apply(e, u, false) < 0)
            return -1;
        edit_note_entity(e, name);
    }
    json_array_foreach(e->accounts, i, acct) {
        const char *an = json_string_value(acct);
        if (acctdb_assoc(e->db, an, name))
            continue;
        json_t *a = acctdb_new_assoc(an, name, NULL);
        json_array_append_new(json_object_get(e->db, "assocs"), a);
        if (apply(e, a, true) < 0)
            return -1;
        edit_note_assoc(e, a);
    }
    return 0;
}

static int add_qos(struct edit *e, const char *name)
{
    json_t *all = json_object_get(e->db, "qos");
    if (json_object_get(all, name))
        return 0;
    json_t *q = json_pack("{s:s, s:i, s:f}", "Description", name, "Priority", 0,
                          "UsageFactor", 1.0);
    json_object_set_new(all, name, q);
    if (apply(e, q, false) < 0)
        return -1;
    edit_note_entity(e, name);
    return 0;
}

static const char *table_of(unsigned ent)
{
    return ent == AK_ACCOUNT ? "accounts" : ent == AK_USER ? "users" : "qos";
}

/* Has the request settings of the association level (or else of the
 * entity's own)? */
static bool has_sets(const struct edit *e, bool assoc_level)
{
    for (size_t i = 0; i < e->nsets; i++)
        if ((e->ent != AK_QOS && e->sets[i].key->assoc) == assoc_level)
            return true;
    return false;
}

/* A modified entity's associations: an account's own, or a user's (in
 * the accounts the where-clause names). */
static int modify_assocs(struct edit *e, const char *name)
{
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(e->db, "assocs"), i, a) {
        const char *acct = json_string_value(json_object_get(a, "account"));
        const char *user = json_string_value(json_object_get(a, "user"));
        bool mine = e->ent == AK_ACCOUNT ? !user && !strcmp(acct, name)
                                         : user && !strcmp(user, name) &&
                                               acct_list_wants(e->accounts, acct);
        if (!mine)
            continue;
        if (apply(e, a, true) < 0)
            return -1;
        edit_note_assoc(e, a);
    }
    return 0;
}

static int modify_one(struct edit *e, const char *name, json_t *obj)
{
    if (has_sets(e, false)) {
        if (apply(e, obj, false) < 0)
            return -1;
        if (e->ent == AK_ACCOUNT) {
            lower(obj, "Description");
            lower(obj, "Organization");
        }
        edit_note_entity(e, name);
    }
    return has_sets(e, true) ? modify_assocs(e, name) : 0;
}

static int modify(struct edit *e)
{
    const char *name;
    json_t *obj;
    if (!e->nsets)
        return edit_bad(e, " Nothing to modify: no 'set' given");
    json_object_foreach(json_object_get(e->db, table_of(e->ent)), name, obj)
        if (acct_list_wants(e->names, name) && modify_one(e, name, obj) < 0)
            return -1;
    return 0;
}

static int run(struct edit *e, const char *op)
{
    size_t i;
    json_t *n;
    if (e->ent == 0)
        return !strcmp(op, "modify") ? edit_bad(e, " Coordinators are added or deleted")
                                     : edit_coord(e, !strcmp(op, "add"));
    if (!strcmp(op, "modify"))
        return modify(e);
    if (!strcmp(op, "delete"))
        return edit_delete(e);
    if (strcmp(op, "add"))
        return edit_bad(e, " Unknown operation");
    if (e->ent == AK_USER && accounts_exist(e) < 0)
        return -1;
    json_array_foreach(e->names, i, n) {
        const char *name = json_string_value(n);
        int rc = e->ent == AK_ACCOUNT ? add_account(e, name)
               : e->ent == AK_USER    ? add_user(e, name) : add_qos(e, name);
        if (rc < 0)
            return -1;
    }
    return 0;
}

static unsigned entity_of(const char *s)
{
    return !s ? 0 : !strcmp(s, "account") ? AK_ACCOUNT : !strcmp(s, "user") ? AK_USER
                  : !strcmp(s, "qos") ? AK_QOS : 0;
}

/* An array of names, each a string (absent: none). */
static bool names_ok(const json_t *names)
{
    size_t i;
    const json_t *n;
    if (!names)
        return true;
    if (!json_is_array(names))
        return false;
    json_array_foreach(names, i, n)
        if (!json_is_string(n))
            return false;
    return true;
}

json_t *acctdb_edit(json_t *db, const json_t *req, int *status, char *err, size_t errlen)
{
    const char *op = json_string_value(json_object_get(req, "op"));
    struct edit e = { .db = db, .ent = entity_of(json_string_value(json_object_get(req, "entity"))),
                      .names = json_object_get(req, "names"),
                      .accounts = json_incref(json_object_get(json_object_get(req, "where"),
                                                              "account")),
                      .res = json_pack("{s:[], s:[]}", "entities", "assocs"),
                      .err = err, .errlen = errlen };
    const char *ent = json_string_value(json_object_get(req, "entity"));
    bool coord = ent && !strcmp(ent, "coordinator");
    int rc = (!e.ent && !coord) || !op ? edit_bad(&e, " Unknown entity")
           : !names_ok(e.names) ? edit_bad(&e, " Malformed names")
           : parse_sets(&e, json_object_get(req, "set"));
    if (rc == 0)
        rc = run(&e, op);
    free(e.sets);
    json_decref(e.accounts);
    if (rc < 0) {
        *status = 400;
        json_decref(e.res);
        return NULL;
    }
    return e.res;
}
