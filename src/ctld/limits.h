/*
 * limits: the QOS and association limits of the accounting database
 * (acctdb.h), applied as slurm.conf's AccountingStorageEnforce asks
 * (docs/limits.md). limits_snap hands a scheduling pass every limit its
 * jobs count against, with what the running jobs leave of each: the core
 * (sched_limit) holds a job over one and starts no more than a limit
 * allows. limits_admit checks a submission. A limit is named as Slurm's
 * squeue names it (QOSMaxGRESPerUser, AssocGrpGRES, ...) and explained in
 * plain words, with who holds it and when it may free up.
 */
#ifndef HERD_CTLD_LIMITS_H
#define HERD_CTLD_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sched/sched.h"

struct ctld;
struct job;
struct sched_snap;

/* AccountingStorageEnforce, as parsed into conf->acct_enforce. */
enum {
    ENFORCE_ASSOCIATIONS = 1,
    ENFORCE_LIMITS = 2,
    ENFORCE_QOS = 4,
    ENFORCE_SAFE = 8,
};

enum limit_kind {
    LK_QOS_USER,           /* MaxTRESPerUser, MaxJobsPerUser */
    LK_QOS_ACCOUNT,        /* MaxTRESPerAccount, MaxJobsPerAccount */
    LK_QOS_GROUP,          /* GrpTRES, GrpJobs of the QOS */
    LK_QOS_JOB,            /* MaxTRESPerJob, MaxWall of the QOS */
    LK_ASSOC_GROUP,        /* GrpTRES, GrpJobs of an association (its subtree) */
    LK_ASSOC_USER,         /* MaxJobs, MaxTRES, MaxWall of the user's association */
};

struct limit_info {
    enum limit_kind kind;
    char *name;            /* the QOS, or the association's account */
    char *holder;          /* the user (or account) whose jobs count; NULL for a group */
    int64_t cap[SCHED_RES_N];      /* the limit as set (left before the running jobs) */
    uint64_t next_job;     /* a running job counted against it that ends first; 0 none */
    int64_t next_end;
    double spent[4];       /* GrpTRESMins/GrpWall: minutes used (USAGE_SPENT_*) */
};

/* The limits of one pass, owned by its snapshot. */
struct limit_table {
    struct sched_limit *lim;
    struct limit_info *info;
    size_t n, cap;
    uint32_t *pool;        /* the pending jobs' lists of indices */
    size_t npool, cappool;
};

/* Fills s->in.limits and each pending job's list (nothing unless limits are
 * enforced). Call after the running and pending jobs are copied. */
void limits_snap(const struct ctld *c, struct sched_snap *s);
void limits_table_free(struct limit_table *t);

/* Slurm's reason name for a job over this limit in this resource. */
const char *limits_reason_name(const struct limit_info *li, enum sched_res r);
/* The plain-words reason for job j over limit i of t (caller frees):
 * "alice uses 4 of the 4 GPUs allowed per user by QOS normal
 * (MaxTRESPerUser=gres/gpu=4); job 812 ends at about 14:20". */
char *limits_reason_text(const struct limit_table *t, size_t i, enum sched_res r,
                         const struct job *j);

/* A submission under the enforced limits: 0, or -1 with the HTTP status,
 * Slurm's code and message (no association, a bad QOS, over a submit limit,
 * or a job no limit would ever let run). Sets a time limit from MaxWall
 * when the job has none. */
int limits_admit(struct ctld *c, struct job *j, int *status, int *code, char *err,
                 size_t errlen);

#endif
