/*
 * acctdb_int: what the accounting database's edit files share (acctdb.h).
 */
#ifndef HERD_CTLD_ACCTDB_INT_H
#define HERD_CTLD_ACCTDB_INT_H

#include "ctld/acctdb.h"

struct acct_key;

/* One "Key=value" (op '='), "Key+=value" ('+') or "Key-=value" ('-'). */
struct acct_set {
    const struct acct_key *key;
    char op;
    const char *text;      /* owned by the request */
};

/* Puts one setting into obj (an entity or an association); -1 with err. */
int acctdb_set(const json_t *db, json_t *obj, const struct acct_set *s, char *err,
               size_t errlen);

/* One sacctmgr add, modify or delete in progress (acctdb_edit.c). */
struct edit {
    json_t *db;
    unsigned ent;          /* AK_ACCOUNT, AK_USER, AK_QOS or 0: coordinators */
    struct acct_set *sets;
    size_t nsets;
    json_t *names, *accounts;   /* the objects; a user's accounts (where/Account=) */
    json_t *res;           /* {"entities": [...], "assocs": [...]} */
    char *err;
    size_t errlen;
};

int edit_bad(struct edit *e, const char *msg);   /* -1, msg in err */
void edit_note_entity(struct edit *e, const char *name);
void edit_note_assoc(struct edit *e, const json_t *assoc);

/* acctdb_delete.c */
int edit_delete(struct edit *e);
/* acctdb_coord.c: add (or remove) the named users as coordinators of the
 * accounts. */
int edit_coord(struct edit *e, bool add);

#endif
