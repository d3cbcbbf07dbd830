/*
 * store_resv: advance reservations, one row each (the model's record as
 * text, resv_json.c), kept after they end or are deleted so that accounting
 * can report on them. The table is the schema's (store_schema.c); the
 * statements are prepared per call, as reservations change a few times a day.
 */
#include <stdlib.h>

#include "common/log.h"
#include "ctld/store.h"
#include "ctld/store_int.h"

static const char *sql_resv_save = "INSERT OR REPLACE INTO reservations (id, record) VALUES (?, ?)";
static const char *sql_resv_load = "SELECT id, record FROM reservations ORDER BY id";

void store_resv_save(struct store *s, uint32_t id, json_t *rec)
{
    char *text = json_dumps(rec, JSON_COMPACT);
    store_write_begin(s);
    sqlite3_stmt *st = store_prepare(s, sql_resv_save);
    sqlite3_bind_int64(st, 1, (sqlite3_int64)id);
    sqlite3_bind_text(st, 2, text ? text : "{}", -1, SQLITE_STATIC);
    if (sqlite3_step(st) != SQLITE_DONE)
        fatalx("state database: %s", sqlite3_errmsg(store_db(s)));
    sqlite3_finalize(st);
    free(text);
}

void store_resv_load(struct store *s, store_job_cb cb, void *arg)
{
    sqlite3_stmt *st = store_prepare(s, sql_resv_load);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *text = (const char *)sqlite3_column_text(st, 1);
        json_t *rec = text ? json_loads(text, 0, NULL) : NULL;
        cb((uint64_t)sqlite3_column_int64(st, 0), rec, arg);
        json_decref(rec);
    }
    if (rc != SQLITE_DONE)
        log_warnx("state database: reservations: %s", sqlite3_errmsg(store_db(s)));
    sqlite3_finalize(st);
}
