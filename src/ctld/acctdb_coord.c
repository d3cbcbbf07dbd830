/*
 * acctdb_coord: sacctmgr add|delete coordinator account=A names=U. A
 * coordinator of an account coordinates the accounts under it too: adds
 * users' associations there and holds, releases or cancels their jobs.
 */
#include <stdio.h>
#include <string.h>

#include "common/acct_keys.h"
#include "ctld/acctdb_int.h"

static int check(struct edit *e)
{
    size_t i;
    json_t *v;
    if (!json_array_size(e->accounts) || !json_array_size(e->names))
        return edit_bad(e, " You need to specify a user list and account list here.");
    json_array_foreach(e->accounts, i, v)
        if (!json_object_get(json_object_get(e->db, "accounts"), json_string_value(v))) {
            snprintf(e->err, e->errlen, " This account '%s' doesn't exist.",
                     json_string_value(v));
            return -1;
        }
    json_array_foreach(e->names, i, v)
        if (!json_object_get(json_object_get(e->db, "users"), json_string_value(v))) {
            snprintf(e->err, e->errlen, " This user '%s' doesn't exist.", json_string_value(v));
            return -1;
        }
    return 0;
}

int edit_coord(struct edit *e, bool add)
{
    if (check(e) < 0)
        return -1;
    size_t i, k;
    json_t *a, *u;
    json_array_foreach(e->accounts, i, a) {
        json_t *acct = json_object_get(json_object_get(e->db, "accounts"), json_string_value(a));
        json_t *list = json_object_get(acct, "coordinators");
        if (!list)
            json_object_set_new(acct, "coordinators", list = json_array());
        json_array_foreach(e->names, k, u) {
            bool there = acct_list_has(list, json_string_value(u));
            if (add && !there)
                json_array_append(list, u);
            for (size_t x = json_array_size(list); !add && x-- > 0;)
                if (!strcmp(json_string_value(json_array_get(list, x)), json_string_value(u)))
                    json_array_remove(list, x);
            if (add || there)
                json_array_append_new(json_object_get(e->res, "assocs"),
                                      json_pack("{s:O, s:O}", "account", a, "user", u));
        }
    }
    json_array_foreach(e->names, k, u)
        edit_note_entity(e, json_string_value(u));
    if (!add && !json_array_size(json_object_get(e->res, "assocs")))
        json_array_clear(json_object_get(e->res, "entities"));
    return 0;
}
