#include "ctld/store.h"

#include <event2/event.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/json_fast.h"
#include "common/json_keep.h"
#include "common/fnv.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "ctld/clock.h"
#include "ctld/job_state.h"
#include "ctld/store_int.h"

/* A commit waits at most this long, or this many writes, under load. */
#define COMMIT_MAX_MS  20
#define COMMIT_MAX_OPS 2000
#define STORE_PRIO     2       /* below everything else: see main.c */

/* Settings, not schema: journal_mode cannot change inside a transaction,
 * and the schema's steps each run in one (store_schema.c). */
static const char *sql_pragmas =
    "PRAGMA journal_mode=WAL;"
    "PRAGMA synchronous=FULL;"
    "PRAGMA cache_size=-1024;";
static const char *sql_save =
    "INSERT OR REPLACE INTO jobs (id, state, end_time, uid, submit_time, start_time, name,"
    " partition, array_job_id, record) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
static const char *sql_record = "SELECT record FROM jobs WHERE id = ?";
static const char *sql_script =
    "INSERT OR REPLACE INTO job_scripts (id, script, env) VALUES (?, ?, ?)";
static const char *sql_script_get =
    "SELECT script, CASE WHEN substr(j.env, 1, 1) = '@' THEN"
    " (SELECT e.env FROM envs e WHERE e.id = CAST(substr(j.env, 2) AS INTEGER)) ELSE j.env END"
    " FROM job_scripts j WHERE j.id = ?";
static const char *sql_env_find = "SELECT id FROM envs WHERE hash = ? AND env = ?";
static const char *sql_env_add = "INSERT INTO envs (hash, env) VALUES (?, ?)";
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
    sqlite3_stmt *save, *record, *script, *script_get, *next_id, *env_find, *env_add;
    char *last_env;        /* the environment stored last, and its row in envs */
    int64_t last_env_id;
    struct event *commit_ev;
    bool in_txn;
    int64_t txn_start_ms;
    int ops;
    struct after *after;
    size_t nafter, capafter;
    struct store_runs *runs;   /* past runs of requeued jobs: store_runs.c */
    void (*on_commit)(void *arg, int64_t us);
    void *on_commit_arg;
};

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
    int64_t t0 = ctld_mono_us();
    exec_or_die(s, "COMMIT");
    if (s->on_commit)
        s->on_commit(s->on_commit_arg, ctld_mono_us() - t0);
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
    if (s->in_txn && (s->ops >= COMMIT_MAX_OPS || ctld_mono_ms() - s->txn_start_ms >= COMMIT_MAX_MS))
        commit(s);
    if (!s->in_txn) {
        exec_or_die(s, "BEGIN");
        s->in_txn = true;
        s->txn_start_ms = ctld_mono_ms();
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

sqlite3 *store_db(struct store *s)
{
    return s->db;
}

void store_write_begin(struct store *s)
{
    txn_touch(s);
}

sqlite3_stmt *store_prepare(struct store *s, const char *sql)
{
    return prepare(s, sql);
}

struct store_runs *store_runs_of(struct store *s)
{
    return s->runs;
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
    char why[400];
    int rc = -1;
    if (sqlite3_exec(s->db, sql_pragmas, NULL, NULL, &msg) != SQLITE_OK)
        snprintf(why, sizeof why, "%s", msg ? msg : "?");
    else
        rc = store_schema_migrate(s->db, why, sizeof why);
    sqlite3_free(msg);
    if (rc < 0) {
        snprintf(err, errlen, "%s: %s", path, why);
        sqlite3_close(s->db);
        free(s);
        return NULL;
    }
    s->save = prepare(s, sql_save);
    s->record = prepare(s, sql_record);
    s->script = prepare(s, sql_script);
    s->script_get = prepare(s, sql_script_get);
    s->next_id = prepare(s, sql_next_id);
    s->env_find = prepare(s, sql_env_find);
    s->env_add = prepare(s, sql_env_add);
    s->commit_ev = event_new(base, -1, 0, commit_cb, s);
    event_priority_set(s->commit_ev, STORE_PRIO);
    s->runs = store_runs_open(s);
    return s;
}

void store_close(struct store *s)
{
    if (!s)
        return;
    commit(s);
    store_runs_close(s->runs);
    sqlite3_finalize(s->save);
    sqlite3_finalize(s->record);
    sqlite3_finalize(s->script);
    sqlite3_finalize(s->script_get);
    sqlite3_finalize(s->next_id);
    sqlite3_finalize(s->env_find);
    sqlite3_finalize(s->env_add);
    free(s->last_env);
    sqlite3_close(s->db);
    event_free(s->commit_ev);
    free(s);
}

/* The columns beside the record are copies of some of its fields, there so
 * that accounting queries (sacct) filter without reading every record. */
static const char *rec_str(json_t *rec, const char *key)
{
    const char *v = json_string_value(json_object_get(rec, key));
    return v ? v : "";
}

/* {"spec":SPEC,...rec}: the job keeps its spec as text, so it goes in as it
 * is rather than through a tree. */
static char *record_text(json_t *rec, const char *spec)
{
    char *rest = json_fast_dumps(rec);
    bool empty = !rest || strcmp(rest, "{}") == 0;
    char *text = xasprintf("{\"spec\":%s%s%s", spec, empty ? "}" : ",", empty ? "" : rest + 1);
    free(rest);
    return text;
}

/* The "spec" member's text, cut out of a record without parsing it. */
static char *spec_of(const char *rec, size_t len)
{
    static const char *const path[] = { "spec" };
    static const char head[] = "{\"spec\":";
    struct json_keep_buf b = { 0 };
    char *spec = NULL;
    if (json_keep(rec, len, path, 1, &b) == 0 && b.len > sizeof head &&
        memcmp(b.p, head, sizeof head - 1) == 0)
        spec = xstrndup(b.p + sizeof head - 1, b.len - sizeof head);
    json_keep_buf_free(&b);
    return spec;
}

char *store_job_spec(struct store *s, uint64_t id)
{
    char *spec = NULL;
    sqlite3_bind_int64(s->record, 1, (sqlite3_int64)id);
    if (sqlite3_step(s->record) == SQLITE_ROW)
        spec = spec_of((const char *)sqlite3_column_text(s->record, 0),
                       (size_t)sqlite3_column_bytes(s->record, 0));
    sqlite3_reset(s->record);
    sqlite3_clear_bindings(s->record);
    return spec;
}

void store_job_save(struct store *s, uint64_t id, int state, int64_t end_time, json_t *rec,
                    const char *spec)
{
    char *kept = spec ? NULL : store_job_spec(s, id);
    if (!spec && !kept)
        log_warnx("state database: job %llu had no spec stored", (unsigned long long)id);
    txn_touch(s);
    char *text = record_text(rec, spec ? spec : kept ? kept : "{}");
    free(kept);
    sqlite3_bind_int64(s->save, 1, (sqlite3_int64)id);
    sqlite3_bind_int(s->save, 2, state);
    sqlite3_bind_int64(s->save, 3, end_time);
    sqlite3_bind_int64(s->save, 4, json_integer_value(json_object_get(rec, "uid")));
    sqlite3_bind_int64(s->save, 5, json_integer_value(json_object_get(rec, "submit_time")));
    /* a job cancelled while pending gets a start time; it never ran */
    bool ran = json_array_size(json_object_get(rec, "allocs")) > 0;
    sqlite3_bind_int64(s->save, 6, ran ? json_integer_value(json_object_get(rec, "start_time")) : 0);
    sqlite3_bind_text(s->save, 7, rec_str(rec, "name"), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s->save, 8, rec_str(rec, "partition"), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(s->save, 9, json_integer_value(json_object_get(rec, "array_job_id")));
    sqlite3_bind_text(s->save, 10, text, -1, free);
    step_or_die(s, s->save);
}

/* The row in envs holding this environment, added if none does. Most jobs
 * share their submitter's environment (a bulk request's defaults, a loop
 * of sbatch), and a copy per job was most of what a submission wrote. */
static int64_t env_id(struct store *s, const char *env)
{
    if (s->last_env && strcmp(s->last_env, env) == 0)
        return s->last_env_id;
    int64_t h = (int64_t)fnv1a_str(env), id = 0;
    sqlite3_bind_int64(s->env_find, 1, h);
    sqlite3_bind_text(s->env_find, 2, env, -1, SQLITE_STATIC);
    if (sqlite3_step(s->env_find) == SQLITE_ROW)
        id = sqlite3_column_int64(s->env_find, 0);
    sqlite3_reset(s->env_find);
    sqlite3_clear_bindings(s->env_find);
    if (!id) {
        sqlite3_bind_int64(s->env_add, 1, h);
        sqlite3_bind_text(s->env_add, 2, env, -1, SQLITE_STATIC);
        step_or_die(s, s->env_add);
        id = sqlite3_last_insert_rowid(s->db);
    }
    free(s->last_env);
    s->last_env = xstrdup(env);
    s->last_env_id = id;
    return id;
}

/* The job's row names its environment's ("@ID"); rows written before
 * environments were shared hold the text itself. Neither table loses rows,
 * so a reference always resolves. */
void store_job_script(struct store *s, uint64_t id, const char *script, const char *env)
{
    txn_touch(s);
    char ref[32];
    snprintf(ref, sizeof ref, "@%lld", (long long)env_id(s, env));
    sqlite3_bind_int64(s->script, 1, (sqlite3_int64)id);
    sqlite3_bind_text(s->script, 2, script, -1, SQLITE_STATIC);   /* stepped at once */
    sqlite3_bind_text(s->script, 3, ref, -1, SQLITE_STATIC);
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

void store_on_commit(struct store *s, void (*fn)(void *arg, int64_t us), void *arg)
{
    s->on_commit = fn;
    s->on_commit_arg = arg;
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

uint64_t store_load_jobs(struct store *s, int64_t since, store_job_cb cb, void *arg)
{
    sqlite3_stmt *st = prepare(s, sql_load);
    sqlite3_bind_int64(st, 1, since);
    while (sqlite3_step(st) == SQLITE_ROW) {
        uint64_t id = (uint64_t)sqlite3_column_int64(st, 0);
        const char *text = (const char *)sqlite3_column_text(st, 1);
        json_t *rec = text ? json_fast_loadb(text, (size_t)sqlite3_column_bytes(st, 1), NULL)
                           : NULL;
        cb(id, rec, arg);
        json_decref(rec);
    }
    sqlite3_finalize(st);
    uint64_t next = (uint64_t)single_int(s, sql_load_next);
    uint64_t max = (uint64_t)single_int(s, sql_max_id);
    next = next > max ? next : max + 1;
    return next ? next : 1;
}

/* ---- accounting queries ---- */

/* "AND col IN (?, ?, ...)" for a list of n. */
static void acct_in(sqlite3_str *q, const char *col, size_t n)
{
    if (!n)
        return;
    sqlite3_str_appendf(q, " AND %s IN (", col);
    for (size_t i = 0; i < n; i++)
        sqlite3_str_appendall(q, i ? ", ?" : "?");
    sqlite3_str_appendall(q, ")");
}

/* -j ID names a job array's every task too, as in Slurm: the jobs whose
 * array_job_id is ID (through its index). */
static void acct_ids(sqlite3_str *q, size_t n)
{
    if (!n)
        return;
    sqlite3_str_appendall(q, " AND (id IN (");
    for (size_t i = 0; i < n; i++)
        sqlite3_str_appendall(q, i ? ", ?" : "?");
    sqlite3_str_appendall(q, ") OR array_job_id IN (");
    for (size_t i = 0; i < n; i++)
        sqlite3_str_appendall(q, i ? ", ?" : "?");
    sqlite3_str_appendall(q, "))");
}

/* The time window: ?1 = start, ?2 = end. "+submit_time" keeps the planner on
 * the end_time index, which narrows a recent window far more. */
static void acct_window(sqlite3_str *q, const struct store_acct_filter *f)
{
    if (f->start < 0)
        return;
    if (!f->nstates) {
        sqlite3_str_appendall(q, " AND (end_time = 0 OR end_time >= ?1) AND +submit_time <= ?2");
        return;
    }
    sqlite3_str_appendall(q, " AND (0");
    for (size_t i = 0; i < f->nstates; i++) {
        if (f->states[i] == JOB_PENDING)
            sqlite3_str_appendall(q, " OR (+submit_time <= ?2 AND (start_time = 0 OR start_time"
                                     " >= ?1) AND (end_time = 0 OR end_time >= ?1))");
        else if (f->states[i] == JOB_SUSPENDED)   /* suspended now: no end yet */
            sqlite3_str_appendf(q, " OR state = %d", f->states[i]);
        else if (f->states[i] == JOB_RUNNING)
            sqlite3_str_appendall(q, " OR (start_time > 0 AND start_time <= ?2 AND (end_time = 0"
                                     " OR end_time >= ?1))");
        else
            sqlite3_str_appendf(q, " OR (state = %d AND end_time >= ?1 AND end_time <= ?2)",
                                f->states[i]);
    }
    sqlite3_str_appendall(q, ")");
}

/* A window that holds few jobs (today's) is read through the end_time index
 * and sorted; a wide one is cheaper read in id order. The planner cannot
 * tell them apart, so the index counts first (it alone, cheaply). */
#define ACCT_INDEX_MAX 20000

static bool acct_use_index(struct store *s, const struct store_acct_filter *f)
{
    if (f->start < 0 || f->nids || f->nstates)
        return false;
    sqlite3_stmt *st = prepare(s, "SELECT count(*) FROM (SELECT 1 FROM jobs WHERE end_time = 0"
                                  " OR end_time >= ? LIMIT ?)");
    sqlite3_bind_int64(st, 1, f->start);
    sqlite3_bind_int(st, 2, ACCT_INDEX_MAX + 1);
    bool few = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) <= ACCT_INDEX_MAX;
    sqlite3_finalize(st);
    return few;
}

static char *acct_sql(const struct store_acct_filter *f, bool use_index)
{
    sqlite3_str *q = sqlite3_str_new(NULL);
    sqlite3_str_appendf(q, "SELECT id, record FROM jobs%s WHERE 1",
                        use_index ? " INDEXED BY jobs_end" : "");
    acct_window(q, f);   /* first: the plain "?" that follow number from 3 */
    acct_ids(q, f->nids);
    acct_in(q, "uid", f->nuids);
    acct_in(q, "name", f->nnames);
    acct_in(q, "partition", f->nparts);
    if (f->start < 0)
        acct_in(q, "state", f->nstates);
    if (f->after)
        sqlite3_str_appendall(q, " AND id > ?");
    sqlite3_str_appendall(q, f->limit ? " ORDER BY id LIMIT ?" : " ORDER BY id");
    return sqlite3_str_finish(q);
}

/* Binds in the order acct_sql wrote the parameters. */
static void acct_bind(sqlite3_stmt *st, const struct store_acct_filter *f)
{
    int k = 1;
    if (f->start >= 0) {
        sqlite3_bind_int64(st, k++, f->start);
        sqlite3_bind_int64(st, k++, f->end);
    }
    for (size_t i = 0; i < f->nids; i++)
        sqlite3_bind_int64(st, k++, (sqlite3_int64)f->ids[i]);
    for (size_t i = 0; i < f->nids; i++)
        sqlite3_bind_int64(st, k++, (sqlite3_int64)f->ids[i]);
    for (size_t i = 0; i < f->nuids; i++)
        sqlite3_bind_int64(st, k++, f->uids[i]);
    for (size_t i = 0; i < f->nnames; i++)
        sqlite3_bind_text(st, k++, f->names[i], -1, SQLITE_STATIC);
    for (size_t i = 0; i < f->nparts; i++)
        sqlite3_bind_text(st, k++, f->parts[i], -1, SQLITE_STATIC);
    for (size_t i = 0; f->start < 0 && i < f->nstates; i++)
        sqlite3_bind_int(st, k++, f->states[i]);
    if (f->after)
        sqlite3_bind_int64(st, k++, (sqlite3_int64)f->after);
    if (f->limit)
        sqlite3_bind_int(st, k++, f->limit);
}

int store_acct_plan(struct store *s, const struct store_acct_filter *f)
{
    return acct_use_index(s, f) ? 1 : -1;
}

int store_acct_query(struct store *s, const struct store_acct_filter *f, store_acct_cb cb,
                     void *arg)
{
    char *sql = acct_sql(f, f->plan ? f->plan > 0 : acct_use_index(s, f));
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    if (rc != SQLITE_OK) {
        log_warnx("state database: %s: %s", sql, sqlite3_errmsg(s->db));
        sqlite3_free(sql);
        return -1;
    }
    sqlite3_free(sql);
    acct_bind(st, f);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *text = (const char *)sqlite3_column_text(st, 1);
        if (text && cb((uint64_t)sqlite3_column_int64(st, 0), text, arg))
            break;
    }
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        log_warnx("state database: accounting query: %s", sqlite3_errmsg(s->db));
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

/* ---- documents: small state kept whole, one JSON text per key ("fairshare"
 * for usage.c, "acctdb" for the accounting entities, "nodes" for admin node
 * states). ---- */

void store_doc_save(struct store *s, const char *key, json_t *doc)
{
    txn_touch(s);
    sqlite3_stmt *st = prepare(s, "INSERT OR REPLACE INTO docs (key, doc) VALUES (?, ?)");
    sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, json_dumps(doc, JSON_COMPACT), -1, free);
    step_or_die(s, st);
    sqlite3_finalize(st);
}

json_t *store_doc_load(struct store *s, const char *key)
{
    sqlite3_stmt *st = prepare(s, "SELECT doc FROM docs WHERE key = ?");
    sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
    json_t *doc = NULL;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        doc = json_loads((const char *)sqlite3_column_text(st, 0), 0, NULL);
    sqlite3_finalize(st);
    return doc;
}
