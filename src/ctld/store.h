/*
 * store: the controller's durable state in SQLite (WAL). Every change is
 * written into the current transaction; the transaction commits once the
 * event loop has nothing more urgent to do (group commit), or sooner when it
 * grows large or old. Whatever must wait for durability (a submission's
 * answer, a launch) is queued with store_after_commit() and runs right after
 * the commit. Only this file speaks SQL.
 */
#ifndef HERD_STORE_H
#define HERD_STORE_H

#include <jansson.h>
#include <stdint.h>

struct ctld;
struct event_base;
struct job;
struct store;

struct store *store_open(struct event_base *base, const char *path, char *err, size_t errlen);
void store_close(struct store *s);          /* commits what is open; NULL no-op */

/* Writes a job's whole record (insert or replace); rec is borrowed. */
void store_job_save(struct store *s, uint64_t id, int state, int64_t end_time, json_t *rec);
/* Writes the script and environment, once, at submission. */
void store_job_script(struct store *s, uint64_t id, const char *script, json_t *env);
/* Reads them back for a launch; caller frees/decrefs. 0 or -1. */
int store_job_script_get(struct store *s, uint64_t id, char **script, json_t **env);
void store_set_next_id(struct store *s, uint64_t next);

typedef void (*store_cb)(void *arg);
void store_after_commit(struct store *s, store_cb cb, void *arg);

/* Loads every job not finished, or finished after `since`, into c (via
 * job_insert), and the next job id. A record that cannot be read is logged
 * and skipped. */
void store_load(struct store *s, struct ctld *c, int64_t since);

#endif
