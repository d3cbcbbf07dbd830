/*
 * store_migrate: brings a SQLite database's schema forward in numbered
 * steps. The database's version is its `PRAGMA user_version`; step N takes
 * it from N-1 to N, and each step runs in a transaction of its own that also
 * writes the new version, so a step either happens whole, version included,
 * or not at all. Knows nothing of herd's tables: the steps are the caller's
 * (store_schema.c for the state database).
 */
#ifndef HERD_STORE_MIGRATE_H
#define HERD_STORE_MIGRATE_H

#include <sqlite3.h>
#include <stddef.h>

struct store_step {
    int version;              /* what the database is after it: the step's index + 1 */
    const char *what;         /* for the log */
    const char *sql;          /* run first; NULL: none */
    /* then this; 0, or -1 with err written (NULL: none) */
    int (*fn)(sqlite3 *db, char *err, size_t errlen);
};

/* The database's version (0: never stamped), or -1 when it cannot be read. */
int store_schema_version(sqlite3 *db);

/* Applies, in order, every step past the database's version, logging each.
 * Returns the number applied, or -1 with err written: the database is newer
 * than the last step (left untouched), or a step failed (rolled back; the
 * version is the last step that succeeded). */
int store_migrate(sqlite3 *db, const struct store_step *steps, size_t n, char *err,
                  size_t errlen);

#endif
