/*
 * limits_words: a job over a limit, in Slurm's reason names (squeue's
 * column, as src/common/job_state_reason.c spells them) and in plain words
 * with the limit's value, what is in use and when it may free up.
 */
#include <stdio.h>
#include <time.h>

#include "common/xmalloc.h"
#include "ctld/ctld.h"
#include "ctld/limits.h"

/* By kind, then resource: jobs, cpu, mem, node, gpu, billing, cpu and gpu
 * run minutes, wall. */
static const char *const names[][SCHED_RES_N] = {
    [LK_QOS_USER] = { "QOSMaxJobsPerUserLimit", "QOSMaxCpuPerUserLimit", "QOSMaxMemoryPerUser",
                      "QOSMaxNodePerUserLimit", "QOSMaxGRESPerUser", "QOSMaxBillingPerUser",
                      "MaxCpuRunMinsPerUser", "MaxGRESRunMinsPerUser", NULL },
    [LK_QOS_ACCOUNT] = { "MaxJobsPerAccount", "MaxCpuPerAccount", "MaxMemoryPerAccount",
                         "MaxNodePerAccount", "MaxGRESPerAccount", "MaxBillingPerAccount",
                         "MaxCpuRunMinsPerAccount", "MaxGRESRunMinsPerAccount", NULL },
    [LK_QOS_GROUP] = { "QOSGrpJobsLimit", "QOSGrpCpuLimit", "QOSGrpMemLimit", "QOSGrpNodeLimit",
                       "QOSGrpGRES", "QOSGrpBilling", "QOSGrpCPURunMinutesLimit",
                       "QOSGrpGRESRunMinutes", NULL, "QOSGrpCPUMinutesLimit", "QOSGrpGRESMinutes",
                       "QOSGrpBillingMinutes", "QOSGrpWallLimit" },
    [LK_QOS_JOB] = { NULL, "QOSMaxCpuPerJobLimit", "QOSMaxMemoryPerJob",
                     "QOSMaxNodePerJobLimit", "QOSMaxGRESPerJob", "QOSMaxBillingPerJob",
                     "QOSMaxCpuMinutesPerJobLimit", "QOSMaxGRESMinutesPerJob",
                     "QOSMaxWallDurationPerJobLimit" },
    [LK_ASSOC_GROUP] = { "AssocGrpJobsLimit", "AssocGrpCpuLimit", "AssocGrpMemLimit",
                         "AssocGrpNodeLimit", "AssocGrpGRES", "AssocGrpBilling",
                         "AssocGrpCPURunMinutesLimit", "AssocGrpGRESRunMinutes", NULL,
                         "AssocGrpCPUMinutesLimit", "AssocGrpGRESMinutes",
                         "AssocGrpBillingMinutes", "AssocGrpWallLimit" },
    [LK_ASSOC_USER] = { "AssocMaxJobsLimit", "AssocMaxCpuPerJobLimit", "AssocMaxMemPerJob",
                        "AssocMaxNodePerJobLimit", "AssocMaxGRESPerJob", "AssocMaxBillingPerJob",
                        "AssocMaxCpuMinutesPerJobLimit", "AssocMaxGRESMinutesPerJob",
                        "AssocMaxWallDurationPerJobLimit" },
};

const char *limits_reason_name(const struct limit_info *li, enum sched_res r)
{
    const char *n = names[li->kind][r];
    return n ? n : "AccountingPolicy";
}

static const char *const res_words[SCHED_RES_N] = {
    "running jobs", "CPUs", "MB of memory", "nodes", "GPUs", "billing units",
    "CPU-minutes", "GPU-minutes", "minutes", "CPU-minutes", "GPU-minutes", "billing-minutes",
    "wall minutes" };
static const char *const tres_names[SCHED_RES_N] = { NULL, "cpu", "mem", "node", "gres/gpu",
                                                     "billing", "cpu", "gres/gpu", NULL, "cpu",
                                                     "gres/gpu", "billing", NULL };

/* "per user by QOS normal (MaxTRESPerUser=gres/gpu=4)" and the like. */
static void whose(const struct limit_info *li, enum sched_res r, char *buf, size_t n)
{
    static const char *const tres_key[] = {
        [LK_QOS_USER] = "MaxTRESPerUser", [LK_QOS_ACCOUNT] = "MaxTRESPerAccount",
        [LK_QOS_GROUP] = "GrpTRES", [LK_QOS_JOB] = "MaxTRESPerJob", [LK_ASSOC_GROUP] = "GrpTRES",
        [LK_ASSOC_USER] = "MaxTRES" };
    static const char *const jobs_key[] = {
        [LK_QOS_USER] = "MaxJobsPerUser", [LK_QOS_ACCOUNT] = "MaxJobsPerAccount",
        [LK_QOS_GROUP] = "GrpJobs", [LK_QOS_JOB] = "", [LK_ASSOC_GROUP] = "GrpJobs",
        [LK_ASSOC_USER] = "MaxJobs" };
    char val[64];
    if (tres_names[r])
        snprintf(val, sizeof val, "%s=%lld", tres_names[r], (long long)li->cap[r]);
    else
        snprintf(val, sizeof val, "%lld", (long long)li->cap[r]);
    const char *key = r == SCHED_RES_JOBS ? jobs_key[li->kind]
                    : r == SCHED_RES_WALL ? "MaxWall"
                    : r == SCHED_RES_WALL_SPENT ? "GrpWall"
                    : r > SCHED_RES_WALL ? "GrpTRESMins"
                    : (r == SCHED_RES_CPU_MIN || r == SCHED_RES_GPU_MIN) &&
                              (li->kind == LK_QOS_JOB || li->kind == LK_ASSOC_USER)
                    ? "MaxTRESMins"
                    : (r == SCHED_RES_CPU_MIN || r == SCHED_RES_GPU_MIN) &&
                              li->kind == LK_QOS_USER ? "MaxTRESRunMinsPerUser"
                    : (r == SCHED_RES_CPU_MIN || r == SCHED_RES_GPU_MIN) &&
                              li->kind == LK_QOS_ACCOUNT ? "MaxTRESRunMinsPerAccount"
                    : r == SCHED_RES_CPU_MIN || r == SCHED_RES_GPU_MIN ? "GrpTRESRunMins"
                    : tres_key[li->kind];
    bool qos = li->kind <= LK_QOS_JOB;
    const char *per = li->kind == LK_QOS_USER ? "per user " : li->kind == LK_QOS_ACCOUNT
                    ? "per account " : li->kind == LK_QOS_JOB || li->kind == LK_ASSOC_USER
                    ? "per job " : "";
    if (li->kind == LK_ASSOC_USER && r == SCHED_RES_JOBS)
        per = "";
    snprintf(buf, n, "%sby %s %s (%s=%s)", per, qos ? "QOS" : "account", li->name, key, val);
}

static void when(const struct limit_info *li, char *buf, size_t n)
{
    struct tm tm;
    time_t t = (time_t)li->next_end;
    buf[0] = '\0';
    if (!li->next_job)
        return;
    localtime_r(&t, &tm);
    snprintf(buf, n, "; job %llu ends at about %02d:%02d", (unsigned long long)li->next_job,
             tm.tm_hour, tm.tm_min);
}

char *limits_reason_text(const struct limit_table *t, size_t i, enum sched_res r,
                         const struct job *j)
{
    const struct limit_info *li = &t->info[i];
    char by[192], end[96];
    whose(li, r, by, sizeof by);
    int64_t cap = li->cap[r];
    if (r == SCHED_RES_WALL)
        return xasprintf("its time limit is over the %lld minutes allowed %s", (long long)cap,
                         by);
    if (r > SCHED_RES_WALL) {
        char who[192];
        if (li->kind == LK_QOS_GROUP)
            snprintf(who, sizeof who, "the jobs of QOS %s", li->name);
        else if (li->holder)
            snprintf(who, sizeof who, "%s's jobs in account %s", li->holder, li->name);
        else
            snprintf(who, sizeof who, "the jobs under account %s", li->name);
        return xasprintf("%s have used %.0f of the %lld %s allowed %s (decayed)", who,
                         li->spent[r - SCHED_RES_CPU_SPENT], (long long)cap, res_words[r], by);
    }
    int64_t ask[SCHED_RES_N];
    sched_job_amounts(&j->req, ask);
    if (li->kind == LK_QOS_JOB || (li->kind == LK_ASSOC_USER && r != SCHED_RES_JOBS))
        return xasprintf("it asks for %lld %s, over the %lld allowed %s", (long long)ask[r],
                         res_words[r], (long long)cap, by);
    int64_t left = t->lim[i].left[r], used = cap - (left < 0 ? cap : left);
    when(li, end, sizeof end);
    char who[160];
    if (li->holder)
        snprintf(who, sizeof who, "%s uses", li->holder);
    else
        snprintf(who, sizeof who, "the jobs of %s %s use", li->kind == LK_QOS_GROUP ? "QOS"
                 : "account", li->name);
    return xasprintf("%s %lld of the %lld %s allowed %s%s", who, (long long)used,
                     (long long)cap, res_words[r], by, end);
}
