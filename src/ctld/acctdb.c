/*
 * acctdb: the accounting entities' document (acctdb.h): its starting shape
 * and the lookups the controller makes in it.
 */
#include <string.h>

#include "ctld/acctdb.h"

json_t *acctdb_new_assoc(const char *account, const char *user, const char *parent)
{
    json_t *a = json_pack("{s:s, s:i, s:[s]}", "account", account, "Fairshare", 1, "QOS",
                          "normal");
    if (user)
        json_object_set_new(a, "user", json_string(user));
    else if (parent)
        json_object_set_new(a, "Parent", json_string(parent));
    return a;
}

json_t *acctdb_new(void)
{
    json_t *db = json_pack("{s:{s:{s:s, s:s}}, s:{s:{s:s, s:s}}, s:[], s:{s:{s:s, s:i, s:f}}}",
                           "accounts", "root", "Description", "default root account",
                           "Organization", "root",
                           "users", "root", "DefaultAccount", "root", "AdminLevel",
                           "Administrator",
                           "assocs",
                           "qos", "normal", "Description", "Normal QOS default", "Priority", 0,
                           "UsageFactor", 1.0);
    json_t *assocs = json_object_get(db, "assocs");
    json_array_append_new(assocs, acctdb_new_assoc("root", NULL, NULL));
    json_array_append_new(assocs, acctdb_new_assoc("root", "root", NULL));
    return db;
}

static bool same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

json_t *acctdb_assoc(const json_t *db, const char *account, const char *user)
{
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(db, "assocs"), i, a)
        if (same(json_string_value(json_object_get(a, "account")), account) &&
            same(json_string_value(json_object_get(a, "user")), user))
            return a;
    return NULL;
}

const char *acctdb_admin_level(const json_t *db, const char *user)
{
    json_t *u = json_object_get(json_object_get(db, "users"), user ? user : "");
    const char *l = json_string_value(json_object_get(u, "AdminLevel"));
    return l ? l : "None";
}

bool acctdb_is_coordinator(const json_t *db, const char *user)
{
    const char *name;
    json_t *acct;
    json_object_foreach(json_object_get(db, "accounts"), name, acct) {
        size_t i;
        json_t *v;
        json_array_foreach(json_object_get(acct, "coordinators"), i, v)
            if (user && json_is_string(v) && !strcmp(json_string_value(v), user))
                return true;
    }
    return false;
}

bool acctdb_coordinates(const json_t *db, const char *user, const char *account)
{
    for (int depth = 0; user && account && depth < 64; depth++) {
        const json_t *coords = json_object_get(
            json_object_get(json_object_get(db, "accounts"), account), "coordinators");
        size_t i;
        json_t *v;
        json_array_foreach(coords, i, v)
            if (!strcmp(json_string_value(v), user))
                return true;
        account = json_string_value(json_object_get(acctdb_assoc(db, account, NULL), "Parent"));
    }
    return false;
}
