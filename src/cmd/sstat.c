/*
 * sstat: the figures of running jobs, as Slurm's sstat prints a step's:
 * its default fields and widths, -o, -e, -n, -p/-P, -a and -j
 * JOBID[.STEP],... Herd measures a job as a whole (the node agent's
 * usage_live: CPU time, peak RSS, the GPUs' NVML samples), so those
 * figures sit on the one step that stands for the job: ID.batch, or the
 * first srun step of an allocation that has no batch shell. Other steps
 * print with their figures empty (docs/gpu-usage.md says what differs).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "client/cmdutil.h"
#include "client/paths.h"
#include "cmd/cmds.h"
#include "cmd/sacct/sacct.h"
#include "common/xmalloc.h"

#define PROG "sstat"
#define SSTAT_FORMAT                                                                       \
    "JobID,MaxVMSize,MaxVMSizeNode,MaxVMSizeTask,AveVMSize,MaxRSS,MaxRSSNode,MaxRSSTask,"  \
    "AveRSS,MaxPages,MaxPagesNode,MaxPagesTask,AvePages,MinCPU,MinCPUNode,MinCPUTask,"     \
    "AveCPU,NTasks,AveCPUFreq,ReqCPUFreqMin,ReqCPUFreqMax,ReqCPUFreqGov,ConsumedEnergy,"   \
    "MaxDiskRead,MaxDiskReadNode,MaxDiskReadTask,AveDiskRead,MaxDiskWrite,"                \
    "MaxDiskWriteNode,MaxDiskWriteTask,AveDiskWrite,TRESUsageInAve,TRESUsageInMax,"        \
    "TRESUsageInMaxNode,TRESUsageInMaxTask,TRESUsageInMin,TRESUsageInMinNode,"             \
    "TRESUsageInMinTask,TRESUsageInTot,TRESUsageOutAve,TRESUsageOutMax,"                   \
    "TRESUsageOutMaxNode,TRESUsageOutMaxTask,TRESUsageOutMin,TRESUsageOutMinNode,"         \
    "TRESUsageOutMinTask,TRESUsageOutTot"

/* A row's rec: {"id": "12.batch", "nodes", "ntasks", "usage": {...}} with
 * "usage" only on the row that carries the job's figures. */
static const json_t *usage(const struct sacct_row *r)
{
    return json_object_get(r->rec, "usage");
}

static const char *node(const struct sacct_row *r)
{
    return jget_str(r->rec, "node", "");
}

/* Slurm's _elapsed_time(secs, 0): "MM:SS.000" below an hour. */
static char *cpu_time(const struct sacct_row *r)
{
    int64_t ms = jget_int(usage(r), "total_cpu_ms", -1), s = ms / 1000;
    if (!usage(r) || ms < 0)
        return NULL;
    if (s >= 86400)
        return xasprintf("%lld-%02lld:%02lld:%02lld", (long long)(s / 86400),
                         (long long)(s / 3600 % 24), (long long)(s / 60 % 60), (long long)(s % 60));
    if (s >= 3600)
        return xasprintf("%02lld:%02lld:%02lld", (long long)(s / 3600), (long long)(s / 60 % 60),
                         (long long)(s % 60));
    return xasprintf("%02lld:%02lld.%03lld", (long long)(s / 60), (long long)(s % 60),
                     (long long)(ms % 1000));
}

static char *rss(const struct sacct_row *r, const struct sacct_ctx *x)
{
    int64_t kb = jget_int(usage(r), "max_rss_kb", -1);
    char buf[32];
    if (!usage(r) || kb < 0)
        return NULL;
    sacct_units((double)kb, 1, x, buf, sizeof buf);
    return xstrdup(buf);
}

/* What Herd does not gather (virtual memory, pages, disk, energy, CPU
 * frequency) reads as a node without that gatherer shows it. */
static char *zero(const struct sacct_row *r)
{
    return usage(r) ? xstrdup("0") : NULL;
}

static char *where(const struct sacct_row *r)
{
    return usage(r) ? xstrdup(node(r)) : NULL;
}

static char *tres_out(const struct sacct_row *r, bool at_node)
{
    if (!usage(r))
        return NULL;
    const char *v = at_node ? node(r) : "0";
    return xasprintf("energy=%s,fs/disk=%s", v, v);
}

#define F(fn) static char *fn(const struct sacct_row *r, const struct sacct_ctx *x)
F(f_zero) { (void)x; return zero(r); }
F(f_node) { (void)x; return where(r); }
F(f_cpu) { (void)x; return cpu_time(r); }
F(f_rss) { return rss(r, x); }
F(f_job_id) { (void)x; return xstrdup(jget_str(r->rec, "id", "")); }
F(f_nodelist) { (void)x; return xstrdup(jget_str(r->rec, "nodes", "")); }
F(f_ntasks) { (void)x; return xasprintf("%lld", (long long)jget_int(r->rec, "ntasks", 1)); }
F(f_pids) { (void)r; (void)x; return NULL; }
F(f_freq_req) { (void)x; return usage(r) ? xstrdup("Unknown") : NULL; }
F(f_out) { (void)x; return tres_out(r, false); }
F(f_out_node) { (void)x; return tres_out(r, true); }
#define TIN(fn, st, what) \
    F(fn) { return sacct_tres_usage(usage(r), st, what, node(r), x); }
TIN(f_in_ave, SACCT_TRES_AVE, SACCT_TRES_VALUE)
TIN(f_in_max, SACCT_TRES_MAX, SACCT_TRES_VALUE)
TIN(f_in_max_node, SACCT_TRES_MAX, SACCT_TRES_NODE)
TIN(f_in_max_task, SACCT_TRES_MAX, SACCT_TRES_TASK)
TIN(f_in_min, SACCT_TRES_MIN, SACCT_TRES_VALUE)
TIN(f_in_min_node, SACCT_TRES_MIN, SACCT_TRES_NODE)
TIN(f_in_min_task, SACCT_TRES_MIN, SACCT_TRES_TASK)
TIN(f_in_tot, SACCT_TRES_TOT, SACCT_TRES_VALUE)

/* Slurm's sstat table: its order (for -o prefixes) and default widths. */
static const struct sacct_field sstat_fields[] = {
    {"AveCPU", 10, 0, f_cpu, NULL},
    {"AveCPUFreq", 10, 0, f_zero, NULL},
    {"AveDiskRead", 12, 0, f_zero, NULL},
    {"AveDiskWrite", 12, 0, f_zero, NULL},
    {"AvePages", 10, 0, f_zero, NULL},
    {"AveRSS", 10, 0, f_rss, NULL},
    {"AveVMSize", 10, 0, f_zero, NULL},
    {"ConsumedEnergy", 14, 0, f_zero, NULL},
    {"ConsumedEnergyRaw", 17, 0, f_zero, NULL},
    {"JobID", -12, 0, f_job_id, NULL},
    {"MaxDiskRead", 12, 0, f_zero, NULL},
    {"MaxDiskReadNode", 15, 0, f_node, NULL},
    {"MaxDiskReadTask", 15, 0, f_zero, NULL},
    {"MaxDiskWrite", 12, 0, f_zero, NULL},
    {"MaxDiskWriteNode", 16, 0, f_node, NULL},
    {"MaxDiskWriteTask", 16, 0, f_zero, NULL},
    {"MaxPages", 8, 0, f_zero, NULL},
    {"MaxPagesNode", 12, 0, f_node, NULL},
    {"MaxPagesTask", 14, 0, f_zero, NULL},
    {"MaxRSS", 10, 0, f_rss, NULL},
    {"MaxRSSNode", 10, 0, f_node, NULL},
    {"MaxRSSTask", 10, 0, f_zero, NULL},
    {"MaxVMSize", 10, 0, f_zero, NULL},
    {"MaxVMSizeNode", 14, 0, f_node, NULL},
    {"MaxVMSizeTask", 14, 0, f_zero, NULL},
    {"MinCPU", 10, 0, f_cpu, NULL},
    {"MinCPUNode", 10, 0, f_node, NULL},
    {"MinCPUTask", 10, 0, f_zero, NULL},
    {"Nodelist", 20, 0, f_nodelist, NULL},
    {"NTasks", 8, 0, f_ntasks, NULL},
    {"Pids", 20, 0, f_pids, NULL},
    {"ReqCPUFreq", 10, 0, f_freq_req, NULL},
    {"ReqCPUFreqMin", 13, 0, f_freq_req, NULL},
    {"ReqCPUFreqMax", 13, 0, f_freq_req, NULL},
    {"ReqCPUFreqGov", 13, 0, f_freq_req, NULL},
    {"TRESUsageInAve", 14, 0, f_in_ave, NULL},
    {"TRESUsageInMax", 14, 0, f_in_max, NULL},
    {"TRESUsageInMaxNode", 18, 0, f_in_max_node, NULL},
    {"TRESUsageInMaxTask", 18, 0, f_in_max_task, NULL},
    {"TRESUsageInMin", 14, 0, f_in_min, NULL},
    {"TRESUsageInMinNode", 18, 0, f_in_min_node, NULL},
    {"TRESUsageInMinTask", 18, 0, f_in_min_task, NULL},
    {"TRESUsageInTot", 14, 0, f_in_tot, NULL},
    {"TRESUsageOutAve", 15, 0, f_out, NULL},
    {"TRESUsageOutMax", 15, 0, f_out, NULL},
    {"TRESUsageOutMaxNode", 19, 0, f_out_node, NULL},
    {"TRESUsageOutMaxTask", 19, 0, f_out, NULL},
    {"TRESUsageOutMin", 15, 0, f_out, NULL},
    {"TRESUsageOutMinNode", 19, 0, f_out_node, NULL},
    {"TRESUsageOutMinTask", 19, 0, f_out, NULL},
    {"TRESUsageOutTot", 15, 0, f_out, NULL},
    {NULL, 0, 0, NULL, NULL},
};

static const struct option sstat_options[] = {
    {"allsteps", no_argument, NULL, 'a'},
    {"format", required_argument, NULL, 'o'},
    {"fields", required_argument, NULL, 'o'},
    {"helpformat", no_argument, NULL, 'e'},
    {"jobs", required_argument, NULL, 'j'},
    {"noheader", no_argument, NULL, 'n'},
    {"parsable", no_argument, NULL, 'p'},
    {"parsable2", no_argument, NULL, 'P'},
    {"help", no_argument, NULL, 'h'},
    {"usage", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* The row standing for the job's figures: {"usage"} from usage_live, the
 * CPU time under sacct's key. */
static json_t *live_usage(const json_t *job)
{
    const json_t *live = json_object_get(job, "usage_live");
    json_t *u = json_pack("{s:I, s:I}", "total_cpu_ms", (json_int_t)jget_int(live, "cpu_ms", -1),
                          "max_rss_kb", (json_int_t)jget_int(live, "max_rss_kb", -1));
    const json_t *gpu = json_object_get(live, "gpu");
    if (gpu)
        json_object_set(u, "gpu", (json_t *)gpu);
    return u;
}

static void print_step(const struct sacct_out *o, const struct sacct_ctx *x, const json_t *job,
                       const char *step, const char *nodes, int64_t ntasks, bool carrier)
{
    char first[256];
    snprintf(first, sizeof first, "%.*s", (int)strcspn(nodes, ",["), nodes);
    json_t *rec = json_pack("{s:s++, s:s, s:s, s:I}", "id", jget_str(job, "job_id_str", ""), ".",
                            step, "nodes", nodes, "node", first, "ntasks", (json_int_t)ntasks);
    if (carrier)
        json_object_set_new(rec, "usage", live_usage(job));
    struct sacct_row r = { rec, 0, SACCT_STEP, 0, 0, -1 };
    sacct_print_row(stdout, o, x, &r);
    json_decref(rec);
}

/* The rows -j ID[.STEP] asks of one running job; 0, or -1 with Slurm's
 * error printed. */
static int stat_job(const struct sacct_out *o, const struct sacct_ctx *x, json_t *job,
                    const char *step, bool all)
{
    const char *id = jget_str(job, "job_id_str", "");
    const char *nodes = jget_str(job, "node_list", "");
    bool batch = !jget_bool(job, "allocation", false);
    const json_t *steps = json_object_get(job, "steps"), *s;
    size_t i, shown = 0;
    char sid[32];
    /* an allocation's figures go on its first srun step */
    const char *carrier = batch ? "batch" : NULL;
    if (!batch && json_array_size(steps)) {
        snprintf(sid, sizeof sid, "%lld", (long long)jget_int(json_array_get(steps, 0), "id", 0));
        carrier = sid;
    }
    if (strcmp(jget_str(job, "state", ""), "RUNNING") || !carrier) {
        if (step)
            cmd_error(PROG, "StepId=%s.%s not found running.", id, step);
        else
            cmd_error(PROG, "No steps running for job %s", id);
        return -1;
    }
    if (!step || all || !strcmp(step, carrier)) {
        print_step(o, x, job, carrier, nodes, 1, true);
        shown++;
    }
    json_array_foreach(steps, i, s) {
        char n[32];
        snprintf(n, sizeof n, "%lld", (long long)jget_int(s, "id", 0));
        if (!strcmp(n, carrier) || !(all || (step && !strcmp(step, n))))
            continue;
        print_step(o, x, job, n, jget_str(s, "node_list", nodes), jget_int(s, "ntasks", 1),
                   false);
        shown++;
    }
    if (all && jget_bool(job, "extern_step", false))
        print_step(o, x, job, "extern", nodes, 1, false);
    if (!shown && step) {
        cmd_error(PROG, "StepId=%s.%s not found running.", id, step);
        return -1;
    }
    return 0;
}

static void stat_one(const struct sacct_out *o, struct sacct_ctx *x, const char *arg, bool all)
{
    char job[32], path[64], err[256];
    const char *dot = strchr(arg, '.');
    snprintf(job, sizeof job, "%.*s", (int)(dot ? dot - arg : (long)strlen(arg)), arg);
    if (!cmd_parse_job_id(job)) {
        cmd_error(PROG, "Invalid job id: %s", arg);
        return;
    }
    snprintf(path, sizeof path, PATH_JOB("%s"), job);
    json_t *resp = NULL;
    int st = client_call(PROG, "GET", path, NULL, &resp, err, sizeof err);
    json_t *j = json_array_get(json_object_get(resp, "jobs"), 0);
    if (st != 200 || !j) {
        cmd_error(PROG, "couldn't get steps for job %s", job);
        json_decref(resp);
        return;
    }
    cmd_json_clean(resp);
    x->now = jget_int(resp, "now", 0);
    json_object_set_new(j, "job_id_str", json_string(job));
    stat_job(o, x, j, dot ? dot + 1 : NULL, all);
    json_decref(resp);
}

int cmd_sstat(int argc, char **argv)
{
    struct sacct_out o = { .delim = "|" };
    struct sacct_ctx x = { 0 };
    struct strlist jobs = { 0 };
    const char *fmt = SSTAT_FORMAT;
    bool all = false;
    int c, rc = 1;
    optind = 1;
    while ((c = getopt_long(argc, argv, "ahej:no:pPv", sstat_options, NULL)) != -1) {
        switch (c) {
        case 'a': all = true; break;
        case 'e': sacct_helpformat(sstat_fields); rc = 0; goto out;
        case 'j': strlist_split(&jobs, optarg); break;
        case 'n': o.noheader = true; break;
        case 'o': fmt = optarg; break;
        case 'p': o.parsable = 1; break;
        case 'P': o.parsable = 2; break;
        case 'v': break;
        case 'h':
            printf("Usage: sstat [-a] [-e] [-n] [-o fields] [-p|-P] -j JOBID[.STEP][,...]\n");
            rc = 0;
            goto out;
        default: goto out;
        }
    }
    for (; optind < argc; optind++)   /* Slurm takes the jobs as arguments too */
        strlist_split(&jobs, argv[optind]);
    if (sacct_parse_format(&o, sstat_fields, PROG, fmt) < 0)
        goto out;
    if (!jobs.n) {
        cmd_error(PROG, "You didn't give me any jobs to stat.");
        goto out;
    }
    sacct_print_header(stdout, &o);
    for (size_t i = 0; i < jobs.n; i++)
        stat_one(&o, &x, jobs.items[i], all);
    rc = 0;   /* as Slurm's: a job it could not stat is said, not an exit code */
out:
    strlist_clear(&jobs);
    free(o.cols);
    return rc;
}
