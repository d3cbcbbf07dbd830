/*
 * store_schema: the state database's schema as numbered steps (run by
 * store_migrate.c at store_open). A step, once released, is never edited:
 * a database some release wrote may already be past it. A change to the
 * schema is a new step at the end of the table. docs/upgrades.md says how.
 */
#include <stdio.h>

#include "ctld/store_int.h"
#include "ctld/store_migrate.h"

/* Step 1: the schema as it stood when versions began, every table
 * IF NOT EXISTS, so that a database of that time, which carries no version,
 * is recognised as version 1 and a new one gets the same tables. */
static const char sql_v1[] =
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS jobs (id INTEGER PRIMARY KEY, state INTEGER NOT NULL,"
    "  end_time INTEGER NOT NULL, uid INTEGER NOT NULL, submit_time INTEGER NOT NULL,"
    "  start_time INTEGER NOT NULL, name TEXT NOT NULL, partition TEXT NOT NULL,"
    "  record TEXT NOT NULL, array_job_id INTEGER NOT NULL DEFAULT 0);"
    "CREATE INDEX IF NOT EXISTS jobs_end ON jobs(end_time);"
    "CREATE TABLE IF NOT EXISTS job_scripts (id INTEGER PRIMARY KEY, script TEXT NOT NULL,"
    "  env TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS envs (id INTEGER PRIMARY KEY, hash INTEGER NOT NULL,"
    "  env TEXT NOT NULL);"
    "CREATE INDEX IF NOT EXISTS envs_hash ON envs(hash);"
    "CREATE TABLE IF NOT EXISTS job_runs (job_id INTEGER NOT NULL, run INTEGER NOT NULL,"
    "  record TEXT NOT NULL, PRIMARY KEY (job_id, run));"
    "CREATE TABLE IF NOT EXISTS reservations (id INTEGER PRIMARY KEY, record TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS usage (key TEXT PRIMARY KEY, doc TEXT NOT NULL);";
/* Files older still lack jobs.array_job_id (what `sacct -j ARRAY` finds
 * an array's tasks by): it is added and filled from the records. */
static const char sql_v1_array[] =
    "ALTER TABLE jobs ADD COLUMN array_job_id INTEGER NOT NULL DEFAULT 0;"
    "UPDATE jobs SET array_job_id = json_extract(record, '$.array_job_id')"
    "  WHERE json_extract(record, '$.array_job_id') > 0;";

static int v1_array(sqlite3 *db, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info('jobs')"
                               " WHERE name = 'array_job_id'", -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(db));
        return -1;
    }
    int has = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    char *msg = NULL;
    if ((!has && sqlite3_exec(db, sql_v1_array, NULL, NULL, &msg) != SQLITE_OK) ||
        sqlite3_exec(db, "CREATE INDEX IF NOT EXISTS jobs_array ON jobs(array_job_id)", NULL,
                     NULL, &msg) != SQLITE_OK) {
        snprintf(err, errlen, "%s", msg ? msg : sqlite3_errmsg(db));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

static const struct store_step steps[] = {
    {1, "the first versioned schema", sql_v1, v1_array},
    /* The documents table (fair-share usage, accounts, node and partition
     * states) was named for its first use; it exists from the start now,
     * so a save no longer runs CREATE TABLE IF NOT EXISTS each time. */
    {2, "documents table usage renamed docs", "ALTER TABLE usage RENAME TO docs", NULL},
};

int store_schema_migrate(sqlite3 *db, char *err, size_t errlen)
{
    return store_migrate(db, steps, sizeof steps / sizeof steps[0], err, errlen);
}

int store_schema_latest(void)
{
    return (int)(sizeof steps / sizeof steps[0]);
}
