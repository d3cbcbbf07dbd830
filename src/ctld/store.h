/*
 * store: the controller's durable state in SQLite (WAL). Every change is
 * written into the current transaction; the transaction commits once the
 * event loop has nothing more urgent to do (group commit), or sooner when it
 * grows large or old. Whatever must wait for durability (a submission's
 * answer, a launch) is queued with store_after_commit() and runs right after
 * the commit. Only the store's files (store*.c) speak SQL. store_open brings
 * the file's schema forward to this release's, or refuses a newer one
 * (store_schema.c, docs/upgrades.md).
 */
#ifndef HERD_STORE_H
#define HERD_STORE_H

#include <jansson.h>
#include <stdint.h>

struct event_base;
struct store;

struct store *store_open(struct event_base *base, const char *path, char *err, size_t errlen);
void store_close(struct store *s);          /* commits what is open; NULL no-op */

/* Writes a job's whole record (insert or replace); rec is borrowed. spec
 * is its spec as JSON text, or NULL to keep the one stored. */
void store_job_save(struct store *s, uint64_t id, int state, int64_t end_time, json_t *rec,
                    const char *spec);
/* The spec of a stored job, as JSON text (caller frees), NULL if none. */
char *store_job_spec(struct store *s, uint64_t id);
/* Writes the script and environment, once, at submission. */
void store_job_script(struct store *s, uint64_t id, const char *script, const char *env);
/* Reads them back for a launch; caller frees/decrefs. 0 or -1. */
int store_job_script_get(struct store *s, uint64_t id, char **script, json_t **env);
void store_set_next_id(struct store *s, uint64_t next);

/* Accounting (sacct): which records a query selects. An empty list (n = 0)
 * means any. start < 0: no time window; else the jobs submitted by `end`
 * and not ended before `start`, or, with states, the jobs in one of those
 * states during [start, end] (ended in it, for a final state). */
struct store_acct_filter {
    const uint64_t *ids;
    size_t nids;
    const int64_t *uids;
    size_t nuids;
    const char *const *names;
    size_t nnames;
    const char *const *parts;
    size_t nparts;
    const int *states;     /* enum job_state */
    size_t nstates;
    int64_t start, end;
    uint64_t after;        /* only ids above it (a query read in batches) */
    int limit;             /* at most so many rows; 0 all */
    int plan;              /* 0: the store chooses; else what store_acct_plan chose */
};
/* Called for each selected record by ascending id; rec is its JSON text,
 * valid during the call. Nonzero stops the query. */
typedef int (*store_acct_cb)(uint64_t id, const char *rec, void *arg);
/* How the store reads the filter's rows (1 through the end_time index,
 * -1 in id order): chosen once for a query read in batches. */
int store_acct_plan(struct store *s, const struct store_acct_filter *f);
/* 0, or -1 when the database fails (logged). */
int store_acct_query(struct store *s, const struct store_acct_filter *f, store_acct_cb cb,
                     void *arg);

/* store_runs.c: a run a requeue ended, kept for sacct -D (rec: the job's
 * record then, as JSON text; run: its number, from 0), and a job's kept
 * runs handed to cb in order (0, or -1 when the database fails). */
void store_run_add(struct store *s, uint64_t id, int run, const char *rec);
int store_runs_each(struct store *s, uint64_t id, store_acct_cb cb, void *arg);

typedef void (*store_cb)(void *arg);
void store_after_commit(struct store *s, store_cb cb, void *arg);
/* fn(arg, us) after each commit, with the time COMMIT took (metrics). */
void store_on_commit(struct store *s, void (*fn)(void *arg, int64_t us), void *arg);

/* Hands the loader every job record not finished, or finished after
 * `since`, by ascending id (rec borrowed; NULL for a row that is not JSON),
 * and returns the next job id to give. The store keeps records; building
 * jobs from them is the model's (job.c). */
typedef void (*store_job_cb)(uint64_t id, json_t *rec, void *arg);
uint64_t store_load_jobs(struct store *s, int64_t since, store_job_cb cb, void *arg);

/* Small state kept as one JSON document per key ("fairshare": usage.c,
 * "nodes": admin node states); load gives NULL if none was saved. Saving
 * joins the open transaction; doc is borrowed. */
void store_doc_save(struct store *s, const char *key, json_t *doc);
json_t *store_doc_load(struct store *s, const char *key);

/* store_resv.c: advance reservations' records (rec borrowed), and every
 * one kept handed to cb by ascending id (NULL for a row that is not JSON). */
void store_resv_save(struct store *s, uint32_t id, json_t *rec);
void store_resv_load(struct store *s, store_job_cb cb, void *arg);

#endif
