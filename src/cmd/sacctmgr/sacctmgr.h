/*
 * sacctmgr: Slurm's account manager. sacctmgr.c reads the options and the
 * words (show|list, add|create, modify|update, delete|remove, then account,
 * user, association or qos), mgr_show.c prints listings from the
 * controller's accounting database (GET /v1/acctdb), mgr_edit.c sends a
 * change (POST /v1/acctdb) and prints what changed in Slurm's words.
 */
#ifndef HERD_CMD_SACCTMGR_H
#define HERD_CMD_SACCTMGR_H

#include <jansson.h>
#include <stdbool.h>

#define PROG "sacctmgr"

enum entity { E_USER, E_ACCOUNT, E_ASSOC, E_QOS, E_CLUSTER, E_COORD };

struct mgr {
    enum entity what;
    bool noheader, with_assoc, with_coord, immediate;
    int parsable;          /* 0, 1 (-p), 2 (-P) */
    json_t *names;         /* the objects named (bare words, name=, user=, account=) */
    json_t *where;         /* other conditions: {"account": [...], "user": [...]} */
    json_t *set;           /* [[word, op, text], ...] after "set" (or all, on add) */
    char *format;          /* format= */
};

/* mgr_show.c: 0, or 1 after printing an error. */
int mgr_show(struct mgr *m);
/* mgr_edit.c: op is "add", "modify" or "delete"; the exit status. */
int mgr_edit(struct mgr *m, const char *op);

#endif
