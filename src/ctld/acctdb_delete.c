/*
 * acctdb_delete: sacctmgr delete. A user goes with all associations, or
 * only those in the accounts named (where account=); an account goes with
 * its sub-accounts and every association under them; a QOS leaves the
 * association lists that named it. root stays.
 */
#include <stdlib.h>
#include <string.h>

#include "common/acct_keys.h"
#include "ctld/acctdb_int.h"

static void drop_assocs(struct edit *e, bool (*doomed)(const json_t *a, const void *arg),
                        const void *arg, bool note)
{
    json_t *list = json_object_get(e->db, "assocs");
    for (size_t i = json_array_size(list); i-- > 0;) {
        json_t *a = json_array_get(list, i);
        if (!doomed(a, arg))
            continue;
        if (note)
            edit_note_assoc(e, a);
        json_array_remove(list, i);
    }
}

static bool of_user(const json_t *a, const void *arg)
{
    const struct edit *e = arg;
    const char *user = json_string_value(json_object_get(a, "user"));
    const char *acct = json_string_value(json_object_get(a, "account"));
    return user && acct_list_wants(e->names, user) && acct_list_wants(e->accounts, acct);
}

static bool under_account(const json_t *a, const void *arg)
{
    return !strcmp(json_string_value(json_object_get(a, "account")), arg);
}

static void delete_users(struct edit *e)
{
    json_t *users = json_object_get(e->db, "users");
    if (json_array_size(e->accounts)) {
        drop_assocs(e, of_user, e, true);
        return;
    }
    drop_assocs(e, of_user, e, false);
    size_t i;
    json_t *n;
    json_array_foreach(e->names, i, n)
        if (json_object_get(users, json_string_value(n))) {
            json_object_del(users, json_string_value(n));
            edit_note_entity(e, json_string_value(n));
        }
}

/* The account, its sub-accounts (depth first) and their associations. */
static void delete_account(struct edit *e, const char *name, int depth)
{
    json_t *list = json_object_get(e->db, "assocs");
    for (size_t i = 0; i < json_array_size(list) && depth < 64; i++) {
        json_t *a = json_array_get(list, i);
        const char *parent = json_string_value(json_object_get(a, "Parent"));
        if (parent && !strcmp(parent, name)) {
            delete_account(e, json_string_value(json_object_get(a, "account")), depth + 1);
            i = (size_t)-1;   /* the list changed: from the start */
        }
    }
    char *copy = strdup(name);
    drop_assocs(e, under_account, copy, false);
    json_object_del(json_object_get(e->db, "accounts"), copy);
    edit_note_entity(e, copy);
    free(copy);
}

static void forget_qos(struct edit *e, const char *q)
{
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(e->db, "assocs"), i, a) {
        json_t *list = json_object_get(a, "QOS");
        for (size_t k = json_array_size(list); k-- > 0;)
            if (!strcmp(json_string_value(json_array_get(list, k)), q))
                json_array_remove(list, k);
        const char *d = json_string_value(json_object_get(a, "DefaultQOS"));
        if (d && !strcmp(d, q))
            json_object_del(a, "DefaultQOS");
    }
    json_object_del(json_object_get(e->db, "qos"), q);
    edit_note_entity(e, q);
}

int edit_delete(struct edit *e)
{
    if (!json_array_size(e->names))
        return edit_bad(e, " No conditions given");
    size_t i;
    json_t *n;
    if (e->ent == AK_USER) {
        delete_users(e);
        return 0;
    }
    json_array_foreach(e->names, i, n) {
        const char *name = json_string_value(n);
        if (e->ent == AK_ACCOUNT && !strcmp(name, "root"))
            return edit_bad(e, " You can't delete the root account");
        if (!json_object_get(json_object_get(e->db, e->ent == AK_QOS ? "qos" : "accounts"),
                             name))
            continue;
        if (e->ent == AK_QOS)
            forget_qos(e, name);
        else
            delete_account(e, name, 0);
    }
    return 0;
}
