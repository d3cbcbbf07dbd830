/*
 * store_runs: the runs of a job that a requeue ended, one row each (the
 * job's record as it was then), so that `sacct -D` can show every run while
 * the jobs table keeps only the last. The rows are the model's records as
 * text; the store reads nothing in them.
 */
#include <stdlib.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "ctld/store.h"
#include "ctld/store_int.h"

static const char *sql_run_add =
    "INSERT OR REPLACE INTO job_runs (job_id, run, record) VALUES (?, ?, ?)";
static const char *sql_runs_get = "SELECT record FROM job_runs WHERE job_id = ? ORDER BY run";

struct store_runs {
    sqlite3_stmt *add, *get;
};

struct store_runs *store_runs_open(struct store *s)
{
    struct store_runs *r = xcalloc(1, sizeof *r);
    r->add = store_prepare(s, sql_run_add);
    r->get = store_prepare(s, sql_runs_get);
    return r;
}

void store_runs_close(struct store_runs *r)
{
    if (!r)
        return;
    sqlite3_finalize(r->add);
    sqlite3_finalize(r->get);
    free(r);
}

void store_run_add(struct store *s, uint64_t id, int run, const char *rec)
{
    struct store_runs *r = store_runs_of(s);
    store_write_begin(s);
    sqlite3_bind_int64(r->add, 1, (sqlite3_int64)id);
    sqlite3_bind_int(r->add, 2, run);
    sqlite3_bind_text(r->add, 3, rec, -1, SQLITE_STATIC);   /* stepped at once */
    if (sqlite3_step(r->add) != SQLITE_DONE)
        fatalx("state database: %s", sqlite3_errmsg(store_db(s)));
    sqlite3_reset(r->add);
    sqlite3_clear_bindings(r->add);
}

int store_runs_each(struct store *s, uint64_t id, store_acct_cb cb, void *arg)
{
    struct store_runs *r = store_runs_of(s);
    int rc;
    sqlite3_bind_int64(r->get, 1, (sqlite3_int64)id);
    while ((rc = sqlite3_step(r->get)) == SQLITE_ROW) {
        const char *text = (const char *)sqlite3_column_text(r->get, 0);
        if (text && cb(id, text, arg))
            break;
    }
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        log_warnx("state database: runs of job %llu: %s", (unsigned long long)id,
                  sqlite3_errmsg(store_db(s)));
    sqlite3_reset(r->get);
    sqlite3_clear_bindings(r->get);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}
