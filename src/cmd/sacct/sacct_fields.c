/*
 * sacct_fields: sacct's -o fields, in Slurm's table order (a -o name is the
 * first field it is a prefix of) with Slurm's default widths, and their
 * values for a job row or one of its step rows. A value Slurm leaves empty
 * for a kind of row (a step's User, a job's MaxRSS) is NULL here.
 */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "client/cmdutil.h"
#include "cmd/sacct/sacct.h"
#include "common/hostlist.h"
#include "common/taskset.h"
#include "common/timefmt.h"
#include "common/xmalloc.h"

/* ---- record helpers ---- */

const json_t *sacct_spec(const struct sacct_row *r)
{
    return json_object_get(r->rec, "spec");
}

static const json_t *allocs(const json_t *rec)
{
    return json_object_get(rec, "allocs");
}

int sacct_alloc_nodes(const json_t *rec)
{
    return (int)json_array_size(allocs(rec));
}

int sacct_alloc_cpus(const json_t *rec)
{
    int n = 0;
    for (size_t i = 0; i < json_array_size(allocs(rec)); i++)
        n += (int)jget_int(json_array_get(allocs(rec), i), "cpus", 0);
    return n;
}

static int alloc_gpus(const json_t *a)
{
    return __builtin_popcountll((unsigned long long)jget_int(a, "gpu_mask", 0));
}

int sacct_gpus(const json_t *rec)
{
    int n = 0;
    for (size_t i = 0; i < json_array_size(allocs(rec)); i++)
        n += alloc_gpus(json_array_get(allocs(rec), i));
    return n;
}

uint64_t sacct_alloc_mem(const json_t *rec)
{
    uint64_t n = 0;
    for (size_t i = 0; i < json_array_size(allocs(rec)); i++)
        n += (uint64_t)jget_int(json_array_get(allocs(rec), i), "mem_mb", 0);
    return n;
}

int64_t sacct_elapsed(const json_t *rec, int64_t now)
{
    int64_t start = jget_int(rec, "start_time", 0), end = jget_int(rec, "end_time", 0);
    if (!start)
        return 0;
    /* a job's time suspended is not elapsed (its steps' records have none) */
    if (!end && !strcmp(jget_str(rec, "state", ""), "SUSPENDED"))
        return jget_int(rec, "pre_suspend_s", 0);
    return (end ? end : now) - start - jget_int(rec, "suspended_s", 0);
}

char *sacct_nodelist(const json_t *rec, bool first_only)
{
    if (!sacct_alloc_nodes(rec))
        return xstrdup("None assigned");
    struct hostlist *hl = hostlist_create("");
    for (size_t i = 0; i < json_array_size(allocs(rec)); i++) {
        hostlist_push(hl, jget_str(json_array_get(allocs(rec), i), "node", ""));
        if (first_only)
            break;
    }
    char *s = hostlist_ranged_string(hl);
    hostlist_destroy(hl);
    return s;
}

void sacct_units(double num, int orig, const struct sacct_ctx *x, char *buf, size_t n)
{
    static const char units[] = "\0KMGTP";
    if ((int64_t)num == 0) {
        snprintf(buf, n, "0");
        return;
    }
    const char *want = x->units ? strchr(units + 1, x->units) : NULL;
    if (want) {
        for (int to = (int)(want - units); orig < to; orig++)
            num /= 1024;
        for (int to = (int)(want - units); orig > to; orig--)
            num *= 1024;
    } else if (!x->noconvert) {
        while (num >= 1024 && (uint64_t)num % 512 == 0 && orig < 5) {
            num /= 1024;
            orig++;
        }
    }
    char u[2] = { units[orig], 0 };
    if (num == (double)(uint64_t)num)
        snprintf(buf, n, "%llu%s", (unsigned long long)num, u);
    else
        snprintf(buf, n, "%.2f%s", num, u);
}

/* ---- request shape, from the spec as submitted ---- */

static int req_nodes(const struct sacct_row *r)
{
    return (int)jget_int(sacct_spec(r), "nodes", 1);
}

static int req_cpus(const struct sacct_row *r)
{
    const json_t *s = sacct_spec(r);
    int ntasks = (int)jget_int(s, "ntasks", 0), per_node = (int)jget_int(s, "ntasks_per_node", 0);
    int tasks = ntasks ? ntasks : (per_node ? per_node : 1) * req_nodes(r);
    return tasks * (int)jget_int(s, "cpus_per_task", 1);
}

static int req_gpus(const struct sacct_row *r)
{
    const json_t *s = sacct_spec(r);
    int g = (int)jget_int(s, "gpus", 0), pn = (int)jget_int(s, "gpus_per_node", 0);
    if (g || pn)
        return g ? g : pn * req_nodes(r);
    int ntasks = (int)jget_int(s, "ntasks", 0), per_node = (int)jget_int(s, "ntasks_per_node", 0);
    int tasks = ntasks ? ntasks : (per_node ? per_node : 1) * req_nodes(r);
    return (int)jget_int(s, "gpus_per_task", 0) * tasks;   /* --gpus-per-task */
}

static uint64_t req_mem(const struct sacct_row *r)
{
    const json_t *s = sacct_spec(r);
    int64_t v;
    if ((v = jget_int(s, "mem_per_node_mb", 0)) > 0)
        return (uint64_t)v * (uint64_t)req_nodes(r);
    if ((v = jget_int(s, "mem_per_cpu_mb", 0)) > 0)
        return (uint64_t)v * (uint64_t)req_cpus(r);
    if ((v = jget_int(s, "mem_per_gpu_mb", 0)) > 0)
        return (uint64_t)v * (uint64_t)req_gpus(r);
    return sacct_alloc_mem(r->rec);   /* the partition's default, as applied */
}

/* ---- value helpers ---- */

static char *num(long long v)
{
    return xasprintf("%lld", v);
}

static char *str_or_null(const char *s)
{
    return s && *s ? xstrdup(s) : NULL;
}

/* Slurm's secs2time_str: "00:00:05", "1-02:03:04". */
static char *secs_str(int64_t s)
{
    if (s < 0)
        s = 0;
    if (s >= 86400)
        return xasprintf("%lld-%02lld:%02lld:%02lld", (long long)(s / 86400),
                         (long long)(s / 3600 % 24), (long long)(s / 60 % 60), (long long)(s % 60));
    return xasprintf("%02lld:%02lld:%02lld", (long long)(s / 3600), (long long)(s / 60 % 60),
                     (long long)(s % 60));
}

/* sacct's CPU times: "00:01.234" below an hour when there are milliseconds. */
static char *cpu_str(int64_t ms)
{
    int64_t s = ms / 1000, sub = ms % 1000;
    if (s >= 3600 || !sub)
        return s >= 3600 ? secs_str(s) : xasprintf("00:%02lld:%02lld", (long long)(s / 60),
                                                   (long long)(s % 60));
    return xasprintf("%02lld:%02lld.%03lld", (long long)(s / 60), (long long)(s % 60),
                     (long long)sub);
}

static char *date_str(int64_t t)
{
    char buf[64];
    timefmt_iso(t, buf, sizeof buf);
    return xstrdup(buf);
}

static const json_t *first_alloc(const struct sacct_row *r)
{
    return json_array_get(allocs(r->rec), 0);
}

static int row_cpus(const struct sacct_row *r)
{
    if (r->kind == SACCT_BATCH)
        return (int)jget_int(first_alloc(r), "cpus", 0);
    return sacct_alloc_cpus(r->rec);
}

static int row_nodes(const struct sacct_row *r)
{
    return r->kind == SACCT_BATCH ? 1 : sacct_alloc_nodes(r->rec);
}

static const json_t *usage(const struct sacct_row *r)
{
    return r->kind == SACCT_EXTERN ? NULL : json_object_get(r->rec, "usage");
}

long long sacct_billing(const json_t *rec, int cpus)
{
    const json_t *b = json_object_get(rec, "billing");
    return json_is_number(b) ? (long long)(json_number_value(b) + 0.5) : cpus;
}

/* "billing=2,cpu=2,gres/gpu=1,mem=4000M,node=1": Slurm's TRES, by name;
 * billing < 0: none. */
static char *tres_str(long long billing, int cpus, int gpus, uint64_t mem_mb, int nodes,
                      const struct sacct_ctx *x)
{
    char mem[32], gres[32] = "", bill[32] = "";
    sacct_units((double)mem_mb, 2, x, mem, sizeof mem);
    if (billing >= 0)
        snprintf(bill, sizeof bill, "billing=%lld,", billing);
    if (gpus)
        snprintf(gres, sizeof gres, "gres/gpu=%d,", gpus);
    return xasprintf("%scpu=%d,%smem=%s,node=%d", bill, cpus, gres, mem, nodes);
}

/* ---- the fields ---- */

static char *f_account(const struct sacct_row *r, const struct sacct_ctx *x)
{
    (void)x;
    return str_or_null(jget_str(sacct_spec(r), "account", NULL));
}

static char *f_admin_comment(const struct sacct_row *r, const struct sacct_ctx *x)
{
    (void)x;
    return r->kind == SACCT_JOB ? str_or_null(jget_str(r->rec, "admin_comment", NULL)) : NULL;
}

static char *f_alloc_cpus(const struct sacct_row *r, const struct sacct_ctx *x)
{
    (void)x;
    return num(row_cpus(r));
}

static char *f_alloc_nodes(const struct sacct_row *r, const struct sacct_ctx *x)
{
    (void)x;
    return num(row_nodes(r));
}

static char *f_alloc_tres(const struct sacct_row *r, const struct sacct_ctx *x)
{
    if (!sacct_alloc_nodes(r->rec))
        return NULL;
    if (r->kind == SACCT_BATCH) {
        const json_t *a = first_alloc(r);
        return tres_str(-1, (int)jget_int(a, "cpus", 0), alloc_gpus(a),
                        (uint64_t)jget_int(a, "mem_mb", 0), 1, x);
    }
    return tres_str(sacct_billing(r->rec, sacct_alloc_cpus(r->rec)), sacct_alloc_cpus(r->rec),
                    sacct_gpus(r->rec),
                    sacct_alloc_mem(r->rec), sacct_alloc_nodes(r->rec), x);
}

static char *f_cluster(const struct sacct_row *r, const struct sacct_ctx *x)
{
    (void)r;
    return str_or_null(x->cluster);
}

static char *f_comment(const struct sacct_row *r, const struct sacct_ctx *x)
{
    (void)x;
    return r->kind == SACCT_JOB ? str_or_null(jget_str(sacct_spec(r), "comment", NULL)) : NULL;
}

static char *f_constraints(const struct sacct_row *r, const struct sacct_ctx *x)
{
    (void)x;
    return r->kind == SACCT_JOB ? str_or_null(jget_str(sacct_spec(r), "constraint", NULL)) : NULL;
}

static char *f_cpu_time(const struct sacct_row *r, const struct sacct_ctx *x)
{
    return secs_str(sacct_elapsed(r->rec, x->now) * row_cpus(r));
}

static char *f_cpu_time_raw(const struct sacct_row *r, const struct sacct_ctx *x)
{
    return num(sacct_elapsed(r->rec, x->now) * row_cpus(r));
}

/* The highest of the srun steps' exit statuses, as a wait status orders
 * them (an exit code above any signal), as Slurm's DerivedExitCode. */
static char *f_derived_ec(const struct sacct_row *r, const struct sacct_ctx *x)
{
    (void)x;
    if (r->kind != SACCT_JOB)
        return NULL;
    int64_t code = 0, sig = 0;
    size_t i;
    json_t *st;
    json_array_foreach(json_object_get(r->rec, "steps"), i, st) {
        int64_t c = jget_int(st, "exit_code", 0), g = jget_int(st, "exit_signal", 0);
        if (c * 256 + g > code * 256 + sig) {
            code = c;
            sig = g;
        }
    }
    return xasprintf("%d:%d", (int)code, (int)sig);
}

static char *f_elapsed(const struct sacct_row *r, const struct sacct_ctx *x)
{
    return secs_str(sacct_elapsed(r->rec, x->now));
}

static char *f_elapsed_raw(const struct sacct_row *r, const struct sacct_ctx *x)
{
    return num(sacct_elapsed(r->rec, x->now));
}

/* A step's submit and eligible times are its start, as in Slurm. */
static char *f_eligible(const struct sacct_row *r, const struct sacct_ctx *x)
{
    (void)x;
    return date_str(jget_int(r->rec, r->kind == SACCT_JOB ? "submit_time" : "start_time", 0));
}

static char *f_end(const struct sacct_row *r, const struct sacct_ctx *x)
{
    (void)x;
    return date_str(jget_int(r->rec, "end_time", 0));
}

/* Ends the controller decides (a cancel, a time limit, a node lost, a
 * requeue): Slurm records the job then, before its batch shell has ended,
 * so the job row's ExitCode is 0:0 whatever the shell's end (slurm-ref). */
static bool ended_by_ctld(const char *st)
{
    static const char *const by[] = { "CANCELLED", "TIMEOUT", "NODE_FAIL", "REQUEUED",
                                      "DEADLINE", "PREEMPTED", NULL };
    for (size_t i = 0; by[i]; i++)
        if (!strcmp(st, by[i]))
            return true;
    return false;
}

static char *f_exit_code(const struct sacct_row *r, const struct sacct_ctx *x)
{
    (void)x;
    if (r->kind == SACCT_EXTERN)
        return xstrdup("0:0");
    if (r->kind == SACCT_JOB && ended_by_ctld(jget_str(r->rec, "state", "")))
        return xstrdup("0:0");
    return xasprintf("%d:%d", (int)jget_int(r->rec, "exit_code", 0),
                     (int)jget_int(r->rec, "exit_signal", 0));
}

static char *f_gid(const struct sacct_row *r, const struct sacct_ctx *x)
{
    (void)x;
    return r->kind == SACCT_JOB ? num(jget_int(r->rec, "gid", 0)) : NULL;
}

static char *f_group(const struct sacct_row *r, const struct sacct_ctx *x)
{
    (void)x;
    if (r->kind != SACCT_JOB)
        return NULL;
    gid_t gid = (gid_t)jget_int(r->rec, "gid", 0);
    struct group *g = getgrgid(gid);
    return g ? xstrdup(g->gr_name) : num(gid);
}

static const char *step_suffix(const struct sacct_row *r, char *buf, size_t n)
{
    if (r->kind == SACCT_STEP)
        snprintf(buf, n, ".%d", r->step);
    else
        snprintf(buf, n, "%s", r->kind == SACCT_BATCH    ? ".batch"
                               : r->kind == SACCT_EXTERN ? ".extern" : "");
    return buf;
}

static char *f_job_id(const struct sacct_row *r, const struct sacct_ctx *x)
{
    (void)x;
    char sfx[32];
    return xasprintf("%llu%s", (unsigned long long)r->id, step_suffix(r, sfx, sizeof sfx));
}

/* JobID: an array's task as "123_4", its tasks never started as
 * "123_[4-15%8]"; JobIDRaw stays the job's own id. */
static char *f_job_id_array(const struct sacct_row *r, const struct sacct_ctx *x)
{
    char sfx[32];
    int64_t array_id = jget_int(r->rec, "array_job_id", 0);
    const json_t *task = json_object_get(r->rec, "array_task_id");
    const char *pending = jget_str(r->rec, "array_task_str", NULL);
    if (array_id > 0 && json_is_integer(task))
        return xasprintf("%lld_%lld%s", (long long)array_id, (long long)json_integer_value(task),
                         step_suffix(r, sfx, sizeof sfx));
    if (array_id > 0 && pending && *pending) {   /* none left: the bare id, as Slurm's */
        char *show = taskset_show(pending);
        char *id = xasprintf("%lld_[%s]%s", (long long)array_id, show,
                             step_suffix(r, sfx, sizeof sfx));
        free(show);
        return id;
    }
    return f_job_id(r, x);
}

static char *f_job_name(const struct sacct_row *r, const struct sacct_ctx *x)
{
    (void)x;
    if (r->kind == SACCT_BATCH || r->kind == SACCT_EXTERN)
        return xstrdup(r->kind == SACCT_BATCH ? "batch" : "extern");
    const char *name = jget_str(r->rec, "name", NULL);
    return xstrdup(name ? name : jget_str(sacct_spec(r), "name", "sbatch"));
}

static char *f_max_rss(const struct sacct_row *r, const struct sacct_ctx *x)
{
    const json_t *u = r->kind == SACCT_BATCH ? usage(r) : NULL;
    if (!u)
        return NULL;
    char buf[32];
    sacct_units((double)jget_int(u, "max_rss_kb", 0) * 1024, 0, x, buf, sizeof buf);
    return xstrdup(buf);
}

static char *f_nnodes(const struct sacct_row *r, const struct sacct_ctx *x)
{
    (void)x;
    int n = row_nodes(r);
    return num(n ? n : req_nodes(r));
}

static char *f_nodelist(const struct sacct_row *r, const struct sacct_ctx *x)
{
    (void)x;
    return sacct_nodelist(r->rec, r->kind == SACCT_BATCH);
}

static char *f_ntasks(const struct sacct_row *r, const struct sacct_ctx *x)
{
    (void)x;
    if (r->kind == SACCT_STEP)
        return num(jget_int(r->rec, "ntasks", 1));
    return r->kind == SACCT_JOB ? NULL : num(row_nodes(r));
}

static char *f_partition(const struct sacct_row *r, const struct sacct_ctx *x)
{
    (void)x;
    if (r->kind != SACCT_JOB)
        return NULL;
    const char *p = jget_str(r->rec, "partition", NULL);
    return str_or_null(p ? p : jget_str(sacct_spec(r), "partition", NULL));
}

static char *f_qos(const struct sacct_row *r, const struct sacct_ctx *x)
{
    (void)x;
    return r->kind == SACCT_JOB ? xstrdup(jget_str(sacct_spec(r), "qos", "normal")) : NULL;
}

/* The reservation it ran in (asked for, while it waits): the record's, as
 * the controller resolved it, else the spec's name. Steps show none. */
const char *sacct_resv_name(const struct sacct_row *r)
{
    const char *v = jget_str(r->rec, "reservation", NULL);
    return v ? v : jget_str(sacct_spec(r), "reservation", "");
}

static char *f_reservation(const struct sacct_row *r, const struct sacct_ctx *x)
{
    (void)x;
    return r->kind == SACCT_JOB ? str_or_null(sacct_resv_name(r)) : NULL;
}

static char *f_reservation_id(const struct sacct_row *r, const struct sacct_ctx *x)
{
    (void)x;
    int64_t id = jget_int(r->rec, "reservation_id", 0);
    return r->kind == SACCT_JOB && id > 0 ? xasprintf("%lld", (long long)id) : NULL;
}

static char *f_reason(const struct sacct_row *r, const struct sacct_ctx *x)
{
    (void)x;
    if (r->kind != SACCT_JOB)
        return NULL;
    const char *st = jget_str(r->rec, "state", "");
    if (strcmp(st, "PENDING"))   /* why it ended, where the controller said (IdleGPU) */
        return xstrdup(jget_str(r->rec, "end_reason", "None"));
    return xstrdup(jget_str(r->rec, "reason", "None"));
}

static char *f_req_cpus(const struct sacct_row *r, const struct sacct_ctx *x)
{
    (void)x;
    return num(r->kind == SACCT_JOB ? req_cpus(r) : row_cpus(r));
}

static char *f_req_mem(const struct sacct_row *r, const struct sacct_ctx *x)
{
    if (r->kind != SACCT_JOB)
        return NULL;
    char buf[32];
    sacct_units((double)req_mem(r), 2, x, buf, sizeof buf);
    return xstrdup(buf);
}

static char *f_req_nodes(const struct sacct_row *r, const struct sacct_ctx *x)
{
    (void)x;
    return num(r->kind == SACCT_JOB ? req_nodes(r) : row_nodes(r));
}

static char *f_req_tres(const struct sacct_row *r, const struct sacct_ctx *x)
{
    if (r->kind != SACCT_JOB)
        return NULL;
    return tres_str(sacct_billing(r->rec, req_cpus(r)), req_cpus(r), req_gpus(r), req_mem(r),
                    req_nodes(r), x);
}

static char *f_start(const struct sacct_row *r, const struct sacct_ctx *x)
{
    (void)x;
    return date_str(jget_int(r->rec, "start_time", 0));
}

/* A step's state: the batch shell's as its own end says (killed by a
 * signal: CANCELLED; a nonzero exit: FAILED), so a cancelled job's shell
 * that exits 143 is FAILED as in Slurm; a node failure cancels it, the OOM
 * killer's end stays; the extern step always completes. */
static char *f_state(const struct sacct_row *r, const struct sacct_ctx *x)
{
    (void)x;
    const char *st = jget_str(r->rec, "state", "");
    if (r->kind == SACCT_JOB && !strcmp(st, "CANCELLED"))
        return xasprintf("CANCELLED by %lld", (long long)jget_int(r->rec, "cancelled_by", 0));
    if (r->kind == SACCT_JOB || !strcmp(st, "RUNNING") || !strcmp(st, "OUT_OF_MEMORY"))
        return xstrdup(st);
    if (r->kind == SACCT_EXTERN)
        return xstrdup("COMPLETED");
    if (!strcmp(st, "TIMEOUT") || !strcmp(st, "NODE_FAIL"))
        return xstrdup("CANCELLED");
    if (r->kind == SACCT_STEP)
        return xstrdup(st);
    if (jget_int(r->rec, "exit_signal", 0))
        return xstrdup("CANCELLED");
    return xstrdup(jget_int(r->rec, "exit_code", 0) ? "FAILED" : "COMPLETED");
}

static char *f_submit(const struct sacct_row *r, const struct sacct_ctx *x)
{
    return f_eligible(r, x);
}

static char *f_suspended(const struct sacct_row *r, const struct sacct_ctx *x)
{
    (void)r;
    (void)x;
    return xstrdup("00:00:00");
}

static char *cpu_field(const struct sacct_row *r, const char *key)
{
    return cpu_str(jget_int(usage(r), key, 0));
}

static char *f_system_cpu(const struct sacct_row *r, const struct sacct_ctx *x)
{
    (void)x;
    return cpu_field(r, "system_cpu_ms");
}

static char *f_timelimit(const struct sacct_row *r, const struct sacct_ctx *x)
{
    (void)x;
    if (r->kind != SACCT_JOB)
        return NULL;
    int64_t t = jget_int(r->rec, "time_limit", jget_int(sacct_spec(r), "time_limit", -1));
    return t < 0 ? xstrdup("UNLIMITED") : secs_str(t * 60);
}

static char *f_timelimit_raw(const struct sacct_row *r, const struct sacct_ctx *x)
{
    (void)x;
    if (r->kind != SACCT_JOB)
        return NULL;
    int64_t t = jget_int(r->rec, "time_limit", jget_int(sacct_spec(r), "time_limit", -1));
    return t < 0 ? xstrdup("UNLIMITED") : num(t);
}

static char *f_total_cpu(const struct sacct_row *r, const struct sacct_ctx *x)
{
    (void)x;
    return cpu_field(r, "total_cpu_ms");
}

/* TRESUsageIn*: on the step rows that have usage of their own (the batch
 * shell's carries the job's GPU figures), empty on the job's, as Slurm. */
static char *tres_in(const struct sacct_row *r, const struct sacct_ctx *x,
                     enum sacct_tres_stat st, enum sacct_tres_what what)
{
    if (r->kind == SACCT_JOB || !usage(r))
        return NULL;
    char *node = sacct_nodelist(r->rec, true);
    char *v = sacct_tres_usage(usage(r), st, what, node, x);
    free(node);
    return v;
}

#define TRES_IN(fn, st, what)                                                  \
    static char *fn(const struct sacct_row *r, const struct sacct_ctx *x)      \
    {                                                                          \
        return tres_in(r, x, st, what);                                        \
    }
TRES_IN(f_tres_ave, SACCT_TRES_AVE, SACCT_TRES_VALUE)
TRES_IN(f_tres_max, SACCT_TRES_MAX, SACCT_TRES_VALUE)
TRES_IN(f_tres_max_node, SACCT_TRES_MAX, SACCT_TRES_NODE)
TRES_IN(f_tres_max_task, SACCT_TRES_MAX, SACCT_TRES_TASK)
TRES_IN(f_tres_min, SACCT_TRES_MIN, SACCT_TRES_VALUE)
TRES_IN(f_tres_min_node, SACCT_TRES_MIN, SACCT_TRES_NODE)
TRES_IN(f_tres_min_task, SACCT_TRES_MIN, SACCT_TRES_TASK)
TRES_IN(f_tres_tot, SACCT_TRES_TOT, SACCT_TRES_VALUE)

static char *f_uid(const struct sacct_row *r, const struct sacct_ctx *x)
{
    (void)x;
    return r->kind == SACCT_JOB ? num(jget_int(r->rec, "uid", 0)) : NULL;
}

static char *f_user(const struct sacct_row *r, const struct sacct_ctx *x)
{
    (void)x;
    return r->kind == SACCT_JOB ? str_or_null(jget_str(r->rec, "user_name", NULL)) : NULL;
}

static char *f_user_cpu(const struct sacct_row *r, const struct sacct_ctx *x)
{
    (void)x;
    return cpu_field(r, "user_cpu_ms");
}

static char *f_work_dir(const struct sacct_row *r, const struct sacct_ctx *x)
{
    (void)x;
    return r->kind == SACCT_JOB ? str_or_null(jget_str(sacct_spec(r), "work_dir", NULL)) : NULL;
}

#define DATE SACCT_NOPLUS
#define NUM SACCT_NOCUT
#define ELAPSED "start_time,end_time,state,pre_suspend_s,suspended_s"
#define REQUEST "spec,allocs"   /* req_cpus and the rest: the spec's request shape */

const struct sacct_field sacct_fields[] = {
    {"Account", 10, 0, f_account, "spec.account"},
    {"AdminComment", 15, 0, f_admin_comment, "admin_comment"},
    {"AllocCPUS", 10, NUM, f_alloc_cpus, "allocs"},
    {"AllocNodes", 10, 0, f_alloc_nodes, "allocs"},
    {"AllocTRES", 10, 0, f_alloc_tres, "allocs,billing"},
    {"Cluster", 10, 0, f_cluster, ""},
    {"Comment", 14, 0, f_comment, "spec.comment"},
    {"Constraints", 19, 0, f_constraints, "spec.constraint"},
    {"CPUTime", 10, NUM, f_cpu_time, ELAPSED ",allocs"},
    {"CPUTimeRAW", 10, NUM, f_cpu_time_raw, ELAPSED ",allocs"},
    {"DerivedExitCode", 15, 0, f_derived_ec, "steps"},
    {"Elapsed", 10, NUM, f_elapsed, ELAPSED},
    {"ElapsedRaw", 10, NUM, f_elapsed_raw, ELAPSED},
    {"Eligible", 19, DATE, f_eligible, "submit_time,start_time"},
    {"End", 19, DATE, f_end, "end_time"},
    {"ExitCode", 8, 0, f_exit_code, "state,exit_code,exit_signal"},
    {"GID", 6, NUM, f_gid, "gid"},
    {"Group", 9, 0, f_group, "gid"},
    {"JobID", -12, 0, f_job_id_array, "array_job_id,array_task_id,array_task_str"},
    {"JobIDRaw", -12, 0, f_job_id, ""},
    {"JobName", 10, 0, f_job_name, "name,spec.name"},
    {"MaxRSS", 10, 0, f_max_rss, "usage"},
    {"NCPUS", 10, NUM, f_alloc_cpus, "allocs"},
    {"NNodes", 8, NUM, f_nnodes, "allocs,spec.nodes"},
    {"NodeList", 15, 0, f_nodelist, "allocs"},
    {"NTasks", 8, NUM, f_ntasks, "allocs"},
    {"Partition", 10, 0, f_partition, "partition,spec.partition"},
    {"QOS", 10, 0, f_qos, "spec.qos"},
    {"Reason", 22, 0, f_reason, "state,end_reason,reason"},
    {"ReqCPUS", 8, NUM, f_req_cpus, REQUEST},
    {"ReqMem", 10, 0, f_req_mem, REQUEST},
    {"ReqNodes", 8, 0, f_req_nodes, REQUEST},
    {"ReqTRES", 10, 0, f_req_tres, REQUEST ",billing"},
    {"Reservation", 20, 0, f_reservation, "reservation,spec.reservation"},
    {"ReservationId", 8, NUM, f_reservation_id, "reservation_id"},
    {"Start", 19, DATE, f_start, "start_time"},
    {"State", 10, 0, f_state, "state,cancelled_by,exit_code,exit_signal"},
    {"Submit", 19, DATE, f_submit, "submit_time,start_time"},
    {"Suspended", 10, NUM, f_suspended, ""},
    {"SystemCPU", 10, 0, f_system_cpu, "usage"},
    {"Timelimit", 10, 0, f_timelimit, "time_limit,spec.time_limit"},
    {"TimelimitRaw", 10, 0, f_timelimit_raw, "time_limit,spec.time_limit"},
    {"TotalCPU", 10, 0, f_total_cpu, "usage"},
    {"TRESUsageInAve", 14, 0, f_tres_ave, "usage,allocs"},
    {"TRESUsageInMax", 14, 0, f_tres_max, "usage,allocs"},
    {"TRESUsageInMaxNode", 18, 0, f_tres_max_node, "usage,allocs"},
    {"TRESUsageInMaxTask", 18, 0, f_tres_max_task, "usage,allocs"},
    {"TRESUsageInMin", 14, 0, f_tres_min, "usage,allocs"},
    {"TRESUsageInMinNode", 18, 0, f_tres_min_node, "usage,allocs"},
    {"TRESUsageInMinTask", 18, 0, f_tres_min_task, "usage,allocs"},
    {"TRESUsageInTot", 14, 0, f_tres_tot, "usage,allocs"},
    {"UID", 6, NUM, f_uid, "uid"},
    {"User", 9, 0, f_user, "user_name"},
    {"UserCPU", 10, 0, f_user_cpu, "usage"},
    {"WorkDir", 20, 0, f_work_dir, "spec.work_dir"},
    {NULL, 0, 0, NULL, NULL},
};

const struct sacct_field *sacct_field_find(const char *s)
{
    return sacct_field_find_in(sacct_fields, s);
}
