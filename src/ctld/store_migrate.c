/*
 * store_migrate: the runner for numbered schema steps (store_migrate.h).
 */
#include "ctld/store_migrate.h"

#include <stdio.h>

#include "common/log.h"

int store_schema_version(sqlite3 *db)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) != SQLITE_OK)
        return -1;
    int v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
    sqlite3_finalize(st);
    return v;
}

static int exec(sqlite3 *db, const char *sql, char *err, size_t errlen)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK)
        return 0;
    snprintf(err, errlen, "%s", msg ? msg : sqlite3_errmsg(db));
    sqlite3_free(msg);
    return -1;
}

/* One step and its version stamp in one transaction. IMMEDIATE: a second
 * controller opening the same file waits rather than both migrating. */
static int apply(sqlite3 *db, const struct store_step *st, char *err, size_t errlen)
{
    char stamp[48];
    snprintf(stamp, sizeof stamp, "PRAGMA user_version = %d", st->version);
    if (exec(db, "BEGIN IMMEDIATE", err, errlen) < 0)
        return -1;
    if ((st->sql && exec(db, st->sql, err, errlen) < 0) ||
        (st->fn && st->fn(db, err, errlen) < 0) || exec(db, stamp, err, errlen) < 0 ||
        exec(db, "COMMIT", err, errlen) < 0) {
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);   /* a failed COMMIT may have ended it */
        return -1;
    }
    return 0;
}

int store_migrate(sqlite3 *db, const struct store_step *steps, size_t n, char *err,
                  size_t errlen)
{
    int have = store_schema_version(db);
    if (have < 0) {
        snprintf(err, errlen, "cannot read the schema version: %s", sqlite3_errmsg(db));
        return -1;
    }
    /* Opening a newer file would write rows that release cannot read and
     * skip steps this one has never heard of: the file is left as it is. */
    if ((size_t)have > n) {
        snprintf(err, errlen, "schema version %d is newer than this release knows (%zu);"
                 " refusing to open it: run the release that wrote it", have, n);
        return -1;
    }
    int applied = 0;
    for (size_t i = (size_t)have; i < n; i++) {
        const struct store_step *st = &steps[i];
        if (st->version != (int)i + 1) {
            snprintf(err, errlen, "schema step %zu is numbered %d", i + 1, st->version);
            return -1;
        }
        char why[256] = "";
        if (apply(db, st, why, sizeof why) < 0) {
            snprintf(err, errlen, "schema step %d (%s) failed, left at version %d: %s",
                     st->version, st->what, st->version - 1, why);
            return -1;
        }
        log_info("state database: schema step %d applied: %s", st->version, st->what);
        applied++;
    }
    return applied;
}
