/*
 * resv: advance reservations (scontrol create reservation). Each holds,
 * from start to end, whole nodes or some of their CPUs and GPU indices for
 * the users and accounts it names. All of them, ended and deleted ones too,
 * stay in the table (and the store) for accounting; ResvIDs ascend and are
 * never reused. The files:
 * - resv.c: the table, the store, the clock (end, recurrence, PURGE_COMP).
 * - resv_parse.c: scontrol's Key=Value pairs into a reservation.
 * - resv_place.c: which nodes and GPUs it holds; busy nodes, overlaps.
 * - resv_json.c: the API's object and the stored record.
 * - resv_jobs.c: jobs that ask for one (--reservation), and what the
 *   scheduling core is told.
 * - api_resv.c: GET/POST/DELETE /v1/reservations.
 */
#ifndef HERD_CTLD_RESV_H
#define HERD_CTLD_RESV_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "sched/sched.h"

struct ctld;
struct job;
struct sched_snap;

struct resv {
    uint32_t id;
    char *name;
    int64_t start, end;        /* [start, end); Duration=UNLIMITED is a year, as Slurm 22.05 */
    uint32_t flags;            /* enum resv_flag */
    int64_t purge_s;           /* PURGE_COMP=time; 0: Slurm's 5 minutes */
    char *users, *accounts, *groups;   /* "a,b" or "-a,b" (all but); NULL none */
    char *features, *partition, *comment;
    char *node_expr;           /* Nodes= as given ("ALL", a hostlist); NULL: chosen */
    int node_cnt;              /* NodeCnt= (TRES node=) asked; 0: Nodes= alone */
    int core_cnt;              /* CoreCnt= (TRES cpu=); 0: whole nodes */
    int gpus;                  /* TRES gres/gpu[:type]=N; 0 none */
    char *gpu_type;
    struct sched_alloc *holds; /* per node: what it holds there (whole: all of it) */
    size_t nholds;
    bool deleted;
    int64_t deleted_time;
    int64_t idle_since;        /* PURGE_COMP: active with no jobs since then; 0 has jobs */
};

struct resv_table {
    struct resv **v;           /* by ascending id */
    size_t n, cap;
    uint32_t next_id;
};

/* resv.c */
void resv_load_all(struct ctld *c);        /* at start-up, before the jobs */
void resv_destroy_all(struct ctld *c);
void resv_free(struct resv *r);            /* NULL no-op */
/* A live one (not deleted, not ended) by name; with any, the newest of
 * that name whatever its state. */
struct resv *resv_find(const struct ctld *c, const char *name, bool any);
struct resv *resv_by_id(const struct ctld *c, uint32_t id);
bool resv_live(const struct resv *r, int64_t now);      /* not deleted, not ended */
bool resv_active(const struct resv *r, int64_t now);    /* live and begun */
bool resv_whole(const struct resv *r);                  /* holds whole nodes */
/* A new one: its id (and name, if unnamed: Slurm's "root_7"), saved, logged. */
void resv_add(struct ctld *c, struct resv *r, const char *who);
void resv_save(struct ctld *c, const struct resv *r);
void resv_delete(struct ctld *c, struct resv *r, int64_t now, const char *who);
/* A deep copy, for an update to work on. */
struct resv *resv_dup(const struct resv *r);
/* The update applied: old takes upd's contents (upd is freed), saved, logged. */
void resv_replace(struct ctld *c, struct resv *old, struct resv *upd, const char *who);
/* Every second: ended ones recur or end, PURGE_COMP ones without jobs go. */
void resv_tick(struct ctld *c, int64_t now);
/* The active reservation holding node i, NULL none. */
const struct resv *resv_on_node(const struct ctld *c, size_t node, int64_t now);
/* "reservation" (and "maint") into node i's object, when one holds it now. */
void resv_node_json(const struct ctld *c, size_t node, json_t *o);

/* resv_parse.c: applies the body's Key=Value strings (scontrol's keys, any
 * case) to r, a new one or a copy of the one updated. 0, or -1 with
 * Slurm's message in err and its code. */
int resv_parse(const struct ctld *c, struct resv *r, json_t *body, bool create, int64_t now,
               int *code, char *err, size_t errlen);

/* resv_place.c: chooses the nodes and GPU indices r holds, and refuses
 * what Slurm refuses: busy nodes (without IGNORE_JOBS), an overlap with
 * another reservation (without OVERLAP or MAINT). skip: the reservation
 * being updated. 0, or -1 with Slurm's message and code. */
int resv_place(const struct ctld *c, struct resv *r, const struct resv *skip, int64_t now,
               int *code, char *err, size_t errlen);
/* The node names it holds, compressed ("node[1-2]"); caller frees. */
char *resv_nodes_str(const struct ctld *c, const struct resv *r);

/* resv_json.c */
json_t *resv_to_json(const struct ctld *c, const struct resv *r, int64_t now, bool all);
json_t *resv_record(const struct ctld *c, const struct resv *r);
struct resv *resv_from_record(const struct ctld *c, json_t *rec);

/* resv_jobs.c: a job's --reservation (the spec's "reservation"): its id,
 * set at parse time; on a submission (submit) only a live one by that
 * name. 0, or -1 with Slurm's message and code. */
int resv_job_parse(const struct ctld *c, struct job *j, json_t *spec, bool submit, int *code,
                   char *err, size_t errlen);
/* May the job's user (and account) use its reservation? 0, or -1 with
 * Slurm's message ("Access denied to requested reservation"). */
int resv_job_access(const struct ctld *c, const struct job *j, const char *user, int *code,
                    char *err, size_t errlen);
/* scontrol update job Reservation=NAME: a live one the job's user may use
 * ("" clears it). 0, or -1 with Slurm's message and code. */
int resv_job_update_check(const struct ctld *c, const struct job *j, json_t *body, int *code,
                          char *err, size_t errlen);
/* Why a job may not be planned now because of its reservation:
 * SCHED_RESV_DELETED when it is gone (deleted or ended), SCHED_RESERVATION
 * when it begins beyond the backfill window; SCHED_NONE otherwise. */
enum sched_reason resv_job_wait(const struct ctld *c, const struct job *j, int64_t now);
/* reservation and reservation_id into a job's object (job_to_json, records). */
void resv_job_json(const struct ctld *c, const struct job *j, json_t *o);
/* The snapshot's reservations (active or beginning within the backfill
 * window), and each pending job's resv index into them. */
void resv_snap(const struct ctld *c, struct sched_snap *s);

#endif
