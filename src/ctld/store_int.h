/*
 * store_int: what the store's own files share (store.c keeps the
 * connection and the transaction; store_schema.c the tables; store_runs.c
 * and store_resv.c their statements). Nothing outside src/ctld/store*.c
 * includes this, but for tests/unit/store_migrate.c.
 */
#ifndef HERD_STORE_INT_H
#define HERD_STORE_INT_H

#include <sqlite3.h>

struct store;
struct store_runs;

sqlite3 *store_db(struct store *s);
/* Opens the transaction a write joins (group commit). */
void store_write_begin(struct store *s);
/* Prepares sql or dies: the store's statements are constants. */
sqlite3_stmt *store_prepare(struct store *s, const char *sql);

/* store_schema.c: brings db to the schema this release writes (0, or -1
 * with err written: a newer file, or a failed step), and that version. */
int store_schema_migrate(sqlite3 *db, char *err, size_t errlen);
int store_schema_latest(void);

/* store_runs.c: its table and statements, from store_open; NULL-safe free. */
struct store_runs *store_runs_open(struct store *s);
void store_runs_close(struct store_runs *r);
struct store_runs *store_runs_of(struct store *s);

#endif
