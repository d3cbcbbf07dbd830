/* store_migrate: numbered schema steps run in order, once each, and a step
 * that fails leaves no trace, its version included; the state database's
 * own steps bring an unversioned file of the first release forward. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ctld/store_int.h"
#include "ctld/store_migrate.h"

static int order[8], norder;

static int note_2(sqlite3 *db, char *err, size_t errlen)
{
    (void)db, (void)err, (void)errlen;
    order[norder++] = 2;
    return 0;
}

static int note_3(sqlite3 *db, char *err, size_t errlen)
{
    (void)err, (void)errlen;
    order[norder++] = 3;
    return sqlite3_exec(db, "INSERT INTO t (v) VALUES (3)", NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

/* Does what it is asked, then fails: nothing of it may stay. */
static int fails(sqlite3 *db, char *err, size_t errlen)
{
    sqlite3_exec(db, "CREATE TABLE left_over (x)", NULL, NULL, NULL);
    strncpy(err, "no", errlen);
    return -1;
}

static const struct store_step three[] = {
    {1, "table t", "CREATE TABLE t (v INTEGER)", NULL},
    {2, "a row", "INSERT INTO t (v) VALUES (2)", note_2},
    {3, "a row from C", NULL, note_3},
};

static sqlite3 *mem(void)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
    return db;
}

static int64_t one(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static void test_order_and_once(void **state)
{
    (void)state;
    char err[256];
    sqlite3 *db = mem();
    norder = 0;
    assert_int_equal(store_schema_version(db), 0);
    assert_int_equal(store_migrate(db, three, 2, err, sizeof err), 2);
    assert_int_equal(store_schema_version(db), 2);
    /* a later release adds step 3: only it runs */
    assert_int_equal(store_migrate(db, three, 3, err, sizeof err), 1);
    assert_int_equal(store_migrate(db, three, 3, err, sizeof err), 0);
    assert_int_equal(store_schema_version(db), 3);
    assert_int_equal(norder, 2);
    assert_int_equal(order[0], 2);
    assert_int_equal(order[1], 3);
    assert_int_equal(one(db, "SELECT count(*) FROM t"), 2);
    assert_int_equal(one(db, "SELECT sum(v) FROM t"), 5);
    sqlite3_close(db);
}

static void test_failure_rolls_back(void **state)
{
    (void)state;
    char err[256];
    const struct store_step bad_sql[] = {
        three[0],
        {2, "half done", "INSERT INTO t (v) VALUES (7); INSERT INTO nowhere VALUES (1)", NULL},
    };
    const struct store_step bad_fn[] = {three[0], {2, "fails in C", NULL, fails}};
    sqlite3 *db = mem();
    assert_int_equal(store_migrate(db, bad_sql, 2, err, sizeof err), -1);
    assert_non_null(strstr(err, "schema step 2 (half done) failed, left at version 1"));
    assert_non_null(strstr(err, "nowhere"));
    assert_int_equal(store_schema_version(db), 1);
    assert_int_equal(one(db, "SELECT count(*) FROM t"), 0);
    assert_int_equal(store_migrate(db, bad_fn, 2, err, sizeof err), -1);
    assert_int_equal(store_schema_version(db), 1);
    assert_int_equal(one(db, "SELECT count(*) FROM sqlite_master WHERE name = 'left_over'"), 0);
    /* the fixed step runs after all */
    norder = 0;
    assert_int_equal(store_migrate(db, three, 3, err, sizeof err), 2);
    assert_int_equal(one(db, "SELECT count(*) FROM t"), 2);
    sqlite3_close(db);
}

static void test_newer_refused(void **state)
{
    (void)state;
    char err[256];
    sqlite3 *db = mem();
    assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 9", NULL, NULL, NULL), SQLITE_OK);
    assert_int_equal(store_migrate(db, three, 3, err, sizeof err), -1);
    assert_non_null(strstr(err, "schema version 9 is newer than this release knows (3)"));
    assert_int_equal(store_schema_version(db), 9);
    assert_int_equal(one(db, "SELECT count(*) FROM sqlite_master"), 0);
    const struct store_step misnumbered[] = {{2, "skips one", "SELECT 1", NULL}};
    sqlite3_exec(db, "PRAGMA user_version = 0", NULL, NULL, NULL);
    assert_int_equal(store_migrate(db, misnumbered, 1, err, sizeof err), -1);
    assert_int_equal(store_schema_version(db), 0);
    sqlite3_close(db);
}

/* The first release's file: no version, the documents in `usage`, and,
 * older still, no array column; every row comes through. */
static void test_state_schema_from_first_release(void **state)
{
    (void)state;
    char err[256];
    sqlite3 *db = mem();
    assert_int_equal(sqlite3_exec(db,
        "CREATE TABLE jobs (id INTEGER PRIMARY KEY, state INTEGER NOT NULL,"
        "  end_time INTEGER NOT NULL, uid INTEGER NOT NULL, submit_time INTEGER NOT NULL,"
        "  start_time INTEGER NOT NULL, name TEXT NOT NULL, partition TEXT NOT NULL,"
        "  record TEXT NOT NULL);"
        "INSERT INTO jobs VALUES (5, 3, 100, 0, 1, 2, 'a', 'p', '{\"array_job_id\":4}');"
        "CREATE TABLE usage (key TEXT PRIMARY KEY, doc TEXT NOT NULL);"
        "INSERT INTO usage VALUES ('acctdb', '{}');", NULL, NULL, NULL), SQLITE_OK);
    assert_int_equal(store_schema_migrate(db, err, sizeof err), store_schema_latest());
    assert_int_equal(store_schema_version(db), store_schema_latest());
    assert_int_equal(one(db, "SELECT array_job_id FROM jobs WHERE id = 5"), 4);
    assert_int_equal(one(db, "SELECT count(*) FROM docs WHERE key = 'acctdb'"), 1);
    assert_int_equal(one(db, "SELECT count(*) FROM sqlite_master WHERE name = 'usage'"), 0);
    assert_int_equal(store_schema_migrate(db, err, sizeof err), 0);
    sqlite3_close(db);
    /* a new file gets the same schema */
    db = mem();
    assert_int_equal(store_schema_migrate(db, err, sizeof err), store_schema_latest());
    assert_int_equal(one(db, "SELECT count(*) FROM sqlite_master WHERE name IN ('jobs',"
                             " 'job_runs', 'job_scripts', 'envs', 'meta', 'docs', 'reservations',"
                             " 'jobs_array', 'jobs_end')"), 9);
    sqlite3_close(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_and_once),
        cmocka_unit_test(test_failure_rolls_back),
        cmocka_unit_test(test_newer_refused),
        cmocka_unit_test(test_state_schema_from_first_release),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
