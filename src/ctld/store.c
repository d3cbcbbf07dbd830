#include "ctld/store.h"

#include <event2/event.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "ctld/ctld.h"

/* A commit waits at most this long, or this many writes, under load. */
#define COMMIT_MAX_MS  20
#define COMMIT_MAX_OPS 2000
#define STORE_PRIO     2       /* below everything else: see main.c */

static const char *sql_schema =
    "PRAGMA journal_mode=WAL;"
    "PRAGMA synchronous=FULL;"
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS jobs (id INTEGER PRIMARY KEY, state INTEGER NOT NULL,"
    "  end_time INTEGER NOT NULL, record TEXT NOT NULL);"
    "CREATE INDEX IF NOT EXISTS jobs_end ON jobs(end_time);"
    "CREATE TABLE IF NOT EXISTS job_scripts (id INTEGER PRIMARY KEY, script TEXT NOT NULL,"
    "  env TEXT NOT NULL);";
static const char *sql_save =
    "INSERT OR REPLACE INTO jobs (id, state, end_time, record) VALUES (?, ?, ?, ?)";
static const char *sql_script =
    "INSERT OR REPLACE INTO job_scripts (id, script, env) VALUES (?, ?, ?)";
static const char *sql_script_get = "SELECT script, env FROM job_scripts WHERE id = ?";
static const char *sql_next_id =
    "INSERT OR REPLACE INTO meta (key, value) VALUES ('next_job_id', ?)";
static const char *sql_load =
    "SELECT id, record FROM jobs WHERE end_time = 0 OR end_time >= ? ORDER BY id";
static const char *sql_load_next = "SELECT value FROM meta WHERE key = 'next_job_id'";
static const char *sql_max_id = "SELECT COALESCE(MAX(id), 0) FROM jobs";

struct after {
    store_cb cb;
    void *arg;
};

struct store {
    sqlite3 *db;
    sqlite3_stmt *save, *script, *script_get, *next_id;
    struct event *commit_ev;
    bool in_txn;
    int64_t txn_start_ms;
    int ops;
    struct after *after;
    size_t nafter, capafter;
};

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void exec_or_die(struct store *s, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK)
        fatalx("state database: %s: %s", sql, msg ? msg : "?");
}

static void step_or_die(struct store *s, sqlite3_stmt *st)
{
    if (sqlite3_step(st) != SQLITE_DONE)
        fatalx("state database: %s", sqlite3_errmsg(s->db));
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
}

/* Commits the open transaction, then runs what waited for it. */
static void commit(struct store *s)
{
    if (!s->in_txn)
        return;
    exec_or_die(s, "COMMIT");
    s->in_txn = false;
    s->ops = 0;
    size_t n = s->nafter;
    struct after *list = s->after;
    s->after = NULL;
    s->nafter = s->capafter = 0;
    for (size_t i = 0; i < n; i++)
        list[i].cb(list[i].arg);
    free(list);
}

static void commit_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    commit(arg);
}

/* Every write goes through here: it opens the transaction and makes sure a
 * commit follows, batching whatever else arrives before the loop is idle. */
static void txn_touch(struct store *s)
{
    if (s->in_txn && (s->ops >= COMMIT_MAX_OPS || now_ms() - s->txn_start_ms >= COMMIT_MAX_MS))
        commit(s);
    if (!s->in_txn) {
        exec_or_die(s, "BEGIN");
        s->in_txn = true;
        s->txn_start_ms = now_ms();
        event_active(s->commit_ev, EV_TIMEOUT, 0);
    }
    s->ops++;
}

static sqlite3_stmt *prepare(struct store *s, const char *sql)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
        fatalx("state database: %s: %s", sql, sqlite3_errmsg(s->db));
    return st;
}

struct store *store_open(struct event_base *base, const char *path, char *err, size_t errlen)
{
    struct store *s = xcalloc(1, sizeof *s);
    if (sqlite3_open(path, &s->db) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", path, sqlite3_errmsg(s->db));
        sqlite3_close(s->db);
        free(s);
        return NULL;
    }
    sqlite3_busy_timeout(s->db, 5000);
    char *msg = NULL;
    if (sqlite3_exec(s->db, sql_schema, NULL, NULL, &msg) != SQLITE_OK) {
        snprintf(err, errlen, "%s: %s", path, msg ? msg : "?");
        sqlite3_free(msg);
        sqlite3_close(s->db);
        free(s);
        return NULL;
    }
    s->save = prepare(s, sql_save);
    s->script = prepare(s, sql_script);
    s->script_get = prepare(s, sql_script_get);
    s->next_id = prepare(s, sql_next_id);
    s->commit_ev = event_new(base, -1, 0, commit_cb, s);
    event_priority_set(s->commit_ev, STORE_PRIO);
    return s;
}

void store_close(struct store *s)
{
    if (!s)
        return;
    commit(s);
    sqlite3_finalize(s->save);
    sqlite3_finalize(s->script);
    sqlite3_finalize(s->script_get);
    sqlite3_finalize(s->next_id);
    sqlite3_close(s->db);
    event_free(s->commit_ev);
    free(s);
}

void store_job_save(struct store *s, uint64_t id, int state, int64_t end_time, json_t *rec)
{
    txn_touch(s);
    char *text = json_dumps(rec, JSON_COMPACT);
    sqlite3_bind_int64(s->save, 1, (sqlite3_int64)id);
    sqlite3_bind_int(s->save, 2, state);
    sqlite3_bind_int64(s->save, 3, end_time);
    sqlite3_bind_text(s->save, 4, text, -1, free);
    step_or_die(s, s->save);
}

void store_job_script(struct store *s, uint64_t id, const char *script, json_t *env)
{
    txn_touch(s);
    char *text = json_dumps(env, JSON_COMPACT);
    sqlite3_bind_int64(s->script, 1, (sqlite3_int64)id);
    sqlite3_bind_text(s->script, 2, script, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s->script, 3, text, -1, free);
    step_or_die(s, s->script);
}

int store_job_script_get(struct store *s, uint64_t id, char **script, json_t **env)
{
    int rc = -1;
    sqlite3_bind_int64(s->script_get, 1, (sqlite3_int64)id);
    if (sqlite3_step(s->script_get) == SQLITE_ROW) {
        const char *sc = (const char *)sqlite3_column_text(s->script_get, 0);
        const char *en = (const char *)sqlite3_column_text(s->script_get, 1);
        *env = en ? json_loads(en, 0, NULL) : NULL;
        if (sc && *env) {
            *script = xstrdup(sc);
            rc = 0;
        } else {
            json_decref(*env);
            *env = NULL;
        }
    }
    sqlite3_reset(s->script_get);
    sqlite3_clear_bindings(s->script_get);
    return rc;
}

void store_set_next_id(struct store *s, uint64_t next)
{
    txn_touch(s);
    sqlite3_bind_int64(s->next_id, 1, (sqlite3_int64)next);
    step_or_die(s, s->next_id);
}

void store_after_commit(struct store *s, store_cb cb, void *arg)
{
    txn_touch(s);
    s->ops--;   /* waiting is not a write */
    if (s->nafter == s->capafter) {
        s->capafter = s->capafter ? s->capafter * 2 : 64;
        s->after = xrealloc(s->after, s->capafter * sizeof *s->after);
    }
    s->after[s->nafter++] = (struct after){ cb, arg };
}

static int64_t single_int(struct store *s, const char *sql)
{
    sqlite3_stmt *st = prepare(s, sql);
    int64_t v = 0;
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

void store_load(struct store *s, struct ctld *c, int64_t since)
{
    char err[256];
    sqlite3_stmt *st = prepare(s, sql_load);
    sqlite3_bind_int64(st, 1, since);
    while (sqlite3_step(st) == SQLITE_ROW) {
        uint64_t id = (uint64_t)sqlite3_column_int64(st, 0);
        const char *text = (const char *)sqlite3_column_text(st, 1);
        json_t *rec = text ? json_loads(text, 0, NULL) : NULL;
        struct job *j = rec ? job_from_record(c, rec, id, err, sizeof err) : NULL;
        json_decref(rec);
        if (j)
            job_insert(c, j);
        else
            log_warnx("state database: job %llu not loaded: %s", (unsigned long long)id,
                      rec ? err : "unreadable record");
    }
    sqlite3_finalize(st);
    uint64_t next = (uint64_t)single_int(s, sql_load_next);
    uint64_t max = (uint64_t)single_int(s, sql_max_id);
    c->next_job_id = next > max ? next : max + 1;
    if (c->next_job_id == 0)
        c->next_job_id = 1;
}
