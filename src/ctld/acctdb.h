/*
 * acctdb: the accounts, users, associations and QOS that sacctmgr edits,
 * kept as one JSON document in the store (key "acctdb"). The first start
 * seeds it from herd-assoc.conf (acctdb_seed.c); after that sacctmgr changes
 * it (acctdb_edit.c, api_acctmgr.c) and every change rebuilds the fair-share
 * tree (assocs_build) at once. The document, with common/acct_keys.h's keys:
 *   {"accounts": {NAME: {"Description", "Organization", "coordinators": [USER]}},
 *    "users":    {NAME: {"DefaultAccount", "AdminLevel"}},
 *    "assocs":   [{"account", "user" (a user's), "Parent" (an account's),
 *                  "Fairshare", "QOS": [...], "DefaultQOS", limits...}],
 *    "qos":      {NAME: {"Description", "Priority", "UsageFactor", "Flags",
 *                  limits...}}}
 */
#ifndef HERD_CTLD_ACCTDB_H
#define HERD_CTLD_ACCTDB_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Slurm's database out of the box: account and user root, QOS normal. */
json_t *acctdb_new(void);
/* Adds herd-assoc.conf's lines (a missing file adds nothing); -1 with err
 * naming the file and line. */
int acctdb_seed(json_t *db, const char *path, char *err, size_t errlen);
/* The association of account (user NULL: the account's own), or NULL. */
json_t *acctdb_assoc(const json_t *db, const char *account, const char *user);
json_t *acctdb_new_assoc(const char *account, const char *user, const char *parent);
/* Is user a coordinator of account or of an account above it? */
bool acctdb_coordinates(const json_t *db, const char *user, const char *account);
/* Is user a coordinator of any account? */
bool acctdb_is_coordinator(const json_t *db, const char *user);
/* "None", "Operator" or "Administrator". */
const char *acctdb_admin_level(const json_t *db, const char *user);

/* acctdb_edit.c: one sacctmgr add, modify or delete, {"op", "entity",
 * "names": [...], "where": {...}, "set": {...}}, applied to db. The result
 * lists what changed ({"changed": [...]}, empty when nothing matched); NULL
 * with a status and Slurm's message when the request is wrong. */
json_t *acctdb_edit(json_t *db, const json_t *req, int *status, char *err, size_t errlen);

#endif
