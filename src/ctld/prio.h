/*
 * prio: the controller's side of multifactor priority and fair share. The
 * associations (accounts and their users, with FairShare= shares) come from
 * herd-assoc.conf beside slurm.conf until real accounts arrive; decayed
 * usage is kept in the store; each pass orders pending jobs by the priority
 * src/sched computes from the factors built here. See docs/scheduling.md.
 *
 * The state lives in struct ctld (prio_init at start-up).
 */
#ifndef HERD_CTLD_PRIO_H
#define HERD_CTLD_PRIO_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "sched/sched.h"

struct ctld;
struct event;
struct http_req;
struct job;

struct assoc {
    char *account;         /* the account, or the user's account */
    char *user;            /* NULL: an account */
    size_t parent;         /* index; SCHED_ASSOC_NONE for root */
    uint32_t shares;
    double usage;          /* users: decayed billing-seconds */
    bool implicit;         /* a job named it; the database does not list it */
};

struct assocs {
    struct assoc *a;       /* a[0] is "root"; parents come before children */
    size_t n, cap;
    json_t *index;         /* "account" or "account:user" -> index */
    json_t *defaults;      /* user -> default account */
    json_t *qos;           /* QOS name -> priority */
    uint32_t max_qos;
    struct sched_assoc *tree;   /* the last Fair Tree, parallel to a */
    bool dirty;            /* the tree needs computing again */
};

/* assoc.c */
/* The tree again from the accounting database (acctdb.h), usage kept. */
void assocs_build(struct assocs *as, const json_t *db);
void assocs_free(struct assocs *as);
/* The user's association under account (or the user's default account, or
 * root), created with FairShare=1 if the file did not list it. */
size_t assocs_user(struct assocs *as, const char *user, const char *account);
/* An account's own association; SCHED_ASSOC_NONE if none. */
size_t assocs_account(const struct assocs *as, const char *account);
/* The user's default account as the file lists it, or NULL. */
const char *assocs_listed_account(const struct assocs *as, const char *user);
const char *assocs_default_account(const struct assocs *as, const char *user);
/* The Fair Tree of the current usage, computed again only when stale. */
const struct sched_assoc *assocs_tree(struct assocs *as);
double assocs_qos_factor(const struct assocs *as, const char *qos);

struct prio {
    bool multifactor;      /* PriorityType=priority/multifactor */
    struct sched_prio_weights w;
    double max_part_factor;
    struct assocs as;
    json_t *db;            /* the accounting database: acctdb.h */
    json_t *spent;         /* "a:ACCOUNT:USER" or "q:QOS" -> [CPU-, GPU-, billing-, wall-
                              seconds], decayed as usage: GrpTRESMins, GrpWall (usage.c) */
    struct sched_billing *bill;  /* per partition */
    int64_t last;          /* usage is as of this time */
    int64_t half_life_s;
    struct event *tick;
};

/* prio_glue.c */
/* At start-up: weights, associations (a malformed herd-assoc.conf is an
 * error naming the line) and stored usage; -1 with err. */
int prio_init(struct ctld *c, char *err, size_t errlen);
void prio_destroy(struct ctld *c);
/* Takes db as the accounting database: stored and the fair-share tree
 * rebuilt (the caller asks for a scheduling pass). */
void prio_acctdb_replace(struct ctld *c, json_t *db);
struct prio *prio_get(const struct ctld *c);
/* The job's factors and priority now. */
void prio_job(const struct ctld *c, const struct job *j, int64_t now,
              struct sched_prio_factors *out);
/* The job's account (as given, else the user's default, else root). */
const char *prio_job_account(const struct ctld *c, const struct job *j);
/* The same for an account and user as a record keeps them. */
const char *prio_account_for(const struct ctld *c, const char *account, const char *user);
/* The account a job without --account shows, as Slurm's default account:
 * the user's in herd-assoc.conf, "root" for root (Slurm's one association
 * out of the box), else NULL (Slurm's "(null)"; fair share still charges
 * such jobs to root). */
const char *prio_default_account(const struct ctld *c, const char *user, uid_t uid);
/* The QOS a job runs under: its own, its association's DefaultQOS, normal. */
const char *prio_job_qos(const struct ctld *c, const struct job *j);
int64_t prio_job_nice(const struct job *j);
/* Orders pending jobs by priority, highest first, ties by id. */
void prio_sort_pending(const struct ctld *c, struct sched_job *pend, size_t n);

/* usage.c */
void usage_init(const struct ctld *c, struct prio *p);   /* billing weights, stored usage */
/* Decays usage to now and charges what ran since the last update. */
void usage_update(const struct ctld *c, struct prio *p, int64_t now);
void usage_save(const struct ctld *c, struct prio *p);
double usage_job_rate(const struct ctld *c, const struct prio *p, const struct job *j);
/* What an association (with user) or QOS has spent, in minutes, decayed:
 * CPU, GPU, billing, wall (USAGE_SPENT_*); 0 when nothing. */
enum { USAGE_SPENT_CPU, USAGE_SPENT_GPU, USAGE_SPENT_BILLING, USAGE_SPENT_WALL, USAGE_SPENT_N };
double usage_spent(const struct prio *p, const char *key, int what);
/* The billing TRES of what a job asks (limits count it; rounded). */
int64_t usage_req_billing(const struct ctld *c, const struct job *j);

/* api_prio.c: GET /v1/priorities (sprio), GET /v1/shares (sshare) */
void api_priorities(struct http_req *r);
void api_shares(struct http_req *r);

#endif
