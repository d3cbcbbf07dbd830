/*
 * scontrol_show: `scontrol show` in Slurm's layout: records of Key=Value
 * words, lines indented three spaces (one line per record with -o), a
 * blank line between records. Fields Herd does not have print Slurm's
 * placeholders ((null), N/A, *). hostnames/hostlist need no controller.
 */
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include <time.h>

#include "client/client.h"
#include "client/cmdutil.h"
#include "client/paths.h"
#include "client/version.h"
#include "cmd/scontrol/scontrol.h"
#include "common/conf.h"
#include "common/fname.h"
#include "common/hostlist.h"
#include "common/taskset.h"
#include "common/timefmt.h"
#include "common/xmalloc.h"
#include "client/clock.h"

#define PROG SCONTROL_PROG
#define NUL "(null)"

static const char *sep;    /* between lines of a record: "\n   ", or " " with -o */
static int64_t now;

static void nl(void)
{
    fputs(sep, stdout);
}

/* Slurm's secs2time_str: "00:05:00", "1-00:00:00". */
static const char *secs_str(int64_t s, char *buf, size_t n)
{
    if (s < 0)
        s = 0;
    if (s >= 86400)
        snprintf(buf, n, "%lld-%02lld:%02lld:%02lld", (long long)(s / 86400),
                 (long long)(s % 86400 / 3600), (long long)(s % 3600 / 60), (long long)(s % 60));
    else
        snprintf(buf, n, "%02lld:%02lld:%02lld", (long long)(s / 3600),
                 (long long)(s % 3600 / 60), (long long)(s % 60));
    return buf;
}

static const char *mins_str(int64_t m, char *buf, size_t n)
{
    if (m < 0) {
        snprintf(buf, n, "UNLIMITED");
        return buf;
    }
    return secs_str(m * 60, buf, n);
}

static const char *when_str(int64_t t, char *buf, size_t n)
{
    timefmt_iso(t, buf, n);
    return buf;
}

/* Slurm's exact memory units: "500M", "4G". */
static const char *mem_str(uint64_t mb, char *buf, size_t n)
{
    if (mb == 0)
        snprintf(buf, n, "0");
    else if (mb % (1024 * 1024) == 0)
        snprintf(buf, n, "%lluT", (unsigned long long)(mb / (1024 * 1024)));
    else if (mb % 1024 == 0)
        snprintf(buf, n, "%lluG", (unsigned long long)(mb / 1024));
    else
        snprintf(buf, n, "%lluM", (unsigned long long)mb);
    return buf;
}

static const char *sget(const json_t *o, const char *key)
{
    const char *s = jget_str(o, key, NULL);
    return s && *s ? s : NUL;
}

/* GETs path; the answer, or NULL after printing "CONTEXT error: ...". */
static json_t *fetch(const char *path, const char *context)
{
    json_t *resp = NULL;
    char err[256];
    int st = client_call(PROG, "GET", path, NULL, &resp, err, sizeof err);
    if (st == 200) {
        cmd_json_clean(resp);   /* printed only: a user's bytes, no control characters */
        return resp;
    }
    fprintf(stderr, "%s error: %s\n", context, st < 0 ? err : client_error_text(resp, st));
    json_decref(resp);
    return NULL;
}

/* ---- jobs ---- */

static bool job_held(const json_t *j)
{
    const char *r = jget_str(j, "reason", "");
    return !strcmp(r, "JobHeldUser") || !strcmp(r, "JobHeldAdmin");
}

static int64_t job_nice(const json_t *j)
{
    json_t *v = json_object_get(j, "nice");
    return json_is_integer(v) ? json_integer_value(v) : json_is_string(v)
                                                            ? strtoll(json_string_value(v), NULL, 10)
                                                            : 0;
}

static int job_tasks(const json_t *j)
{
    int64_t t = jget_int(j, "ntasks", 0);
    if (t > 0)
        return (int)t;
    int64_t per = jget_int(j, "ntasks_per_node", 0);
    return (int)((per > 0 ? per : 1) * jget_int(j, "num_nodes", 1));
}

static void job_who(const json_t *j)
{
    gid_t gid = (gid_t)jget_int(j, "group_id", 0);
    struct group *g = getgrgid(gid);
    printf("UserId=%s(%lld) GroupId=%s(%u) MCS_label=N/A", jget_str(j, "user_name", "?"),
           (long long)jget_int(j, "user_id", 0), g ? g->gr_name : "?", (unsigned)gid);
    nl();
    printf("Priority=%lld Nice=%lld Account=%s QOS=%s",
           job_held(j) ? 0LL : (long long)jget_int(j, "priority", 0), (long long)job_nice(j),
           sget(j, "account"), *jget_str(j, "qos", "") ? jget_str(j, "qos", "") : "normal");
    if (jget_str(j, "wckey", NULL))
        printf(" WCKey=%s", jget_str(j, "wckey", ""));
    nl();
}

static void job_status(const struct scontrol_opts *o, const json_t *j)
{
    const char *dep = jget_str(j, "dependency", NULL);
    const char *why = jget_str(j, "reason_text", "");
    printf("JobState=%s Reason=%s Dependency=%s", jget_str(j, "state", "?"),
           jget_str(j, "reason", "None"), dep && *dep ? dep : "(null)");
    nl();
    if (*why && !strcmp(jget_str(j, "state", ""), "PENDING")) {
        printf("Why=%s", why);   /* Herd's words, on a line and key of their own */
        nl();
    }
    if (jget_int(j, "gpu_idle_flagged_at", 0) > 0) {   /* Herd's idle-GPU policy */
        char when[32];
        printf("IdleGPUFlagged=%s", when_str(jget_int(j, "gpu_idle_flagged_at", 0), when,
                                             sizeof when));
        nl();
    }
    printf("Requeue=%d Restarts=%lld BatchFlag=1 Reboot=0 ExitCode=%lld:%lld",
           jget_bool(j, "requeue", client_conf(PROG)->job_requeue),   /* JobRequeue: unset */
           (long long)jget_int(j, "restarts", 0),
           (long long)jget_int(j, "exit_code", 0), (long long)jget_int(j, "exit_signal", 0));
    nl();
    if (o->details) {
        printf("DerivedExitCode=%lld:%lld", (long long)jget_int(j, "exit_code", 0),
               (long long)jget_int(j, "exit_signal", 0));
        nl();
    }
}

static void job_times(const json_t *j)
{
    char a[64], b[64], c2[64];
    const char *st = jget_str(j, "state", "");
    bool pending = !strcmp(st, "PENDING"), running = !strcmp(st, "RUNNING");
    bool suspended = !strcmp(st, "SUSPENDED");
    int64_t start = jget_int(j, "start_time", 0), end = jget_int(j, "end_time", 0);
    int64_t limit = jget_int(j, "time_limit", -1), submit = jget_int(j, "submit_time", 0);
    /* as Slurm: the time suspended is not run time, and moves the end on */
    int64_t away = jget_int(j, "suspended_s", 0), pre = jget_int(j, "pre_suspend_s", 0);
    int64_t run = pending ? 0 : suspended ? pre : (running ? now : end) - start - away;
    printf("RunTime=%s TimeLimit=%s TimeMin=N/A", secs_str(run, a, sizeof a),
           mins_str(limit, b, sizeof b));
    nl();
    int64_t begin = jget_int(j, "begin_time", 0);
    /* a begin time (--begin, a requeue's) shows even while held, as Slurm's */
    int64_t elig = begin > submit ? begin : job_held(j) ? 0 : submit;
    printf("SubmitTime=%s EligibleTime=%s", when_str(submit, a, sizeof a),
           when_str(elig, b, sizeof b));
    nl();
    printf("AccrueTime=%s", when_str(elig && elig <= now ? elig : 0, a, sizeof a));
    nl();
    if (pending) {
        int64_t est = jget_int(j, "start_estimate", -1);
        start = est > 0 ? est : 0;
    }
    if (pending || running || suspended)
        end = start && limit >= 0 ? start + limit * 60 + away : 0;
    int64_t dl = jget_int(j, "deadline", 0);
    printf("StartTime=%s EndTime=%s Deadline=%s", when_str(start, a, sizeof a),
           when_str(end, b, sizeof b), dl ? when_str(dl, c2, sizeof c2) : "N/A");
    nl();
    if (json_object_get(j, "preempt_eligible_time")) {   /* preemption on, and it started */
        int64_t pt = jget_int(j, "preempt_time", 0);
        printf("PreemptEligibleTime=%s PreemptTime=%s",
               when_str(jget_int(j, "preempt_eligible_time", 0), a, sizeof a),
               pt ? when_str(pt, b, sizeof b) : "None");
        nl();
    }
    int64_t susp = jget_int(j, "suspend_time", 0);
    printf("SuspendTime=%s SecsPreSuspend=%lld LastSchedEval=%s Scheduler=Main",
           susp ? when_str(susp, b, sizeof b) : "None", (long long)pre,
           when_str(submit, a, sizeof a));
    nl();
}

static void job_place(const json_t *j)
{
    printf("Partition=%s AllocNode:Sid=%s:0", sget(j, "partition"), sget(j, "submit_host"));
    nl();
    printf("ReqNodeList=%s ExcNodeList=%s", sget(j, "req_nodes"), sget(j, "exc_nodes"));
    nl();
    printf("NodeList=%s", jget_str(j, "node_list", ""));   /* blank while pending, as Slurm's */
    nl();
    const char *list = jget_str(j, "node_list", "");
    struct hostlist *hl = *list ? hostlist_create(list) : NULL;
    if (hl && hostlist_count(hl)) {
        printf("BatchHost=%s", hostlist_nth(hl, 0));
        nl();
    }
    hostlist_destroy(hl);
}

/* The job's memory in MB over all nodes, and per node or CPU for MinMemory. */
static uint64_t job_mem(const json_t *j, int cpus, int gpus, uint64_t *min, bool *per_cpu)
{
    const struct conf *c = client_conf(PROG);
    int64_t nodes = jget_int(j, "num_nodes", 1);
    uint64_t node = (uint64_t)jget_int(j, "mem_per_node_mb", 0);
    uint64_t cpu = (uint64_t)jget_int(j, "mem_per_cpu_mb", 0);
    uint64_t gpu = (uint64_t)jget_int(j, "mem_per_gpu_mb", 0);
    if (!node && !cpu && !gpu)
        cpu = c->def_mem_per_cpu;
    *per_cpu = cpu && !node;
    *min = node ? node : cpu ? cpu : gpu;
    return node ? node * (uint64_t)nodes : cpu ? cpu * (uint64_t)cpus : gpu * (uint64_t)gpus;
}

/* Slurm 22.05's one TRES line: what a pending job asks, what a started one
 * holds; no mem= when none is counted. */
static void job_tres(const json_t *j, int cpus, uint64_t mem, int gpus)
{
    char m[32];
    printf("TRES=cpu=%d", cpus);
    if (mem)
        printf(",mem=%s", mem_str(mem, m, sizeof m));
    printf(",node=%d,billing=%d", (int)jget_int(j, "num_nodes", 1), cpus);
    if (gpus)
        printf(",gres/gpu=%d", gpus);
    nl();
}

/* GPU indices as Slurm's IDX: "0-1,3". */
static void idx_str(const json_t *idx, char *buf, size_t n)
{
    size_t k = 0, i = 0, len = json_array_size(idx);
    buf[0] = '\0';
    while (i < len && k + 24 < n) {
        json_int_t a = json_integer_value(json_array_get(idx, i)), z = a;
        while (i + 1 < len && json_integer_value(json_array_get(idx, i + 1)) == z + 1)
            z = json_integer_value(json_array_get(idx, ++i));
        k += (size_t)(a == z ? snprintf(buf + k, n - k, "%s%lld", k ? "," : "", (long long)a)
                             : snprintf(buf + k, n - k, "%s%lld-%lld", k ? "," : "",
                                        (long long)a, (long long)z));
        i++;
    }
}

/* -d: what the job holds on each node, as Slurm's JOB_GRES and Nodes=
 * lines (Herd counts CPUs, not which ones: CPU_IDs numbers them from 0). */
static void job_detail(const json_t *j, uint64_t mem, int gpus)
{
    const json_t *alloc = json_object_get(j, "gpus_alloc");
    size_t nodes = json_object_size(alloc);
    if (!nodes || !strcmp(jget_str(j, "state", ""), "PENDING"))
        return;
    if (gpus)
        printf("JOB_GRES=gpu:%d", gpus);
    else
        printf("JOB_GRES=(null)");
    nl();
    int per = (int)(jget_int(j, "num_cpus", 1) / (int64_t)nodes);
    const char *name;
    const json_t *idx;
    json_object_foreach((json_t *)alloc, name, idx) {
        char ix[128];
        idx_str(idx, ix, sizeof ix);
        printf("  Nodes=%s CPU_IDs=0", name);
        if (per > 1)
            printf("-%d", per - 1);
        printf(" Mem=%llu GRES=", (unsigned long long)(mem / nodes));
        if (json_array_size(idx))
            printf("gpu:%zu(IDX:%s)", json_array_size(idx), ix);
        nl();
    }
}

static void job_shape(const struct scontrol_opts *o, const json_t *j)
{
    int cpus = (int)jget_int(j, "num_cpus", 1), gpus = scontrol_job_gpus(j);
    int cpt = scontrol_job_cpus_per_task(j), tpn = (int)jget_int(j, "ntasks_per_node", 0);
    long long nn = (long long)jget_int(j, "num_nodes", 1);
    /* a pending job given -N shows its range: "1-1", "2-4" */
    if (!strcmp(jget_str(j, "state", ""), "PENDING") && jget_int(j, "max_nodes", 0) > 0)
        printf("NumNodes=%lld-%lld", nn, (long long)jget_int(j, "max_nodes", 0));
    else
        printf("NumNodes=%lld", nn);
    printf(" NumCPUs=%d NumTasks=%d CPUs/Task=%d ReqB:S:C:T=0:0:*:*", cpus, job_tasks(j), cpt);
    nl();
    uint64_t min;
    bool per_cpu;
    uint64_t mem = job_mem(j, cpus, gpus, &min, &per_cpu);
    job_tres(j, cpus, mem, gpus);
    printf("Socks/Node=* NtasksPerN:B:S:C=%d:0:*:* CoreSpec=*", tpn);
    nl();
    if (o->details)
        job_detail(j, mem, gpus);
    char m[32];
    printf("MinCPUsNode=%d MinMemory%s=%s MinTmpDiskNode=0", cpt * (tpn > 0 ? tpn : 1),
           per_cpu ? "CPU" : "Node", mem_str(min, m, sizeof m));
    nl();
    printf("Features=%s DelayBoot=00:00:00", sget(j, "constraint"));
    nl();
    if (*jget_str(j, "reservation", "")) {   /* Slurm prints the line only when set */
        printf("Reservation=%s", jget_str(j, "reservation", ""));
        nl();
    }
    printf("OverSubscribe=%s Contiguous=0 Licenses=(null) Network=(null)",
           jget_bool(j, "exclusive", false) ? "NO" : "OK");
    nl();
}

/* A pattern as show job prints it (common/fname.h), under WorkDir when
 * relative; "" is the default file. */
static char *io_path(const json_t *j, const char *pat)
{
    const json_t *task = json_object_get(j, "array_task_id");
    struct fname_vals v = {
        .job_id = jget_int(j, "job_id", 0), .array_job_id = jget_int(j, "array_job_id", 0),
        .array_task_id = json_is_integer(task) ? json_integer_value(task) : -1,
        .step_id = FNAME_BATCH_STEP, .user_name = jget_str(j, "user_name", ""),
        .job_name = jget_str(j, "name", ""),
    };
    char *name = fname_show(*pat ? pat : fname_default(&v), &v);
    if (name[0] == '/')
        return name;
    char *path = xasprintf("%s/%s", jget_str(j, "work_dir", ""), name);
    free(name);
    return path;
}

static void job_io(const json_t *j)
{
    printf("Command=%s", sget(j, "command"));
    nl();
    printf("WorkDir=%s", sget(j, "work_dir"));
    if (jget_str(j, "comment", NULL)) {
        nl();
        printf("Comment=%s ", jget_str(j, "comment", ""));
    }
    if (jget_str(j, "admin_comment", NULL)) {
        nl();
        printf("AdminComment=%s ", jget_str(j, "admin_comment", ""));
    }
    const char *out = jget_str(j, "stdout", "");
    const char *err = jget_str(j, "stderr", "");
    const char *in = jget_str(j, "stdin", "");
    char *po = io_path(j, out);
    char *pe = *err ? io_path(j, err) : xstrdup(po);
    nl();
    printf("StdErr=%s", pe);
    nl();
    printf("StdIn=%s", *in ? in : "/dev/null");
    nl();
    printf("StdOut=%s", po);
    free(po);
    free(pe);
    nl();
    printf("Power=");
    scontrol_job_tres(j, sep);
}

static void job_print(const struct scontrol_opts *o, const json_t *j)
{
    printf("JobId=%lld ", (long long)jget_int(j, "job_id", 0));
    const json_t *task = json_object_get(j, "array_task_id");
    if (jget_int(j, "array_job_id", 0) > 0 && json_is_integer(task))
        printf("ArrayJobId=%lld ArrayTaskId=%lld ", (long long)jget_int(j, "array_job_id", 0),
               (long long)json_integer_value(task));
    else if (jget_int(j, "array_job_id", 0) > 0) {   /* the pending tasks, "5-15%8" */
        char *show = taskset_show(jget_str(j, "array_task_str", ""));
        /* none left waiting (every task cancelled by name): Slurm's NO_VAL - 1 */
        printf("ArrayJobId=%lld ArrayTaskId=%s ", (long long)jget_int(j, "array_job_id", 0),
               *show ? show : "4294967294");
        free(show);
    }
    /* the throttle of "--array 4-15%8", which Slurm shows on every task */
    const char *pct = strchr(jget_str(j, "array", ""), '%');
    if (jget_int(j, "array_job_id", 0) > 0 && pct && atoi(pct + 1) > 0)
        printf("ArrayTaskThrottle=%d ", atoi(pct + 1));
    printf("JobName=%s", jget_str(j, "name", ""));
    nl();
    job_who(j);
    job_status(o, j);
    job_times(j);
    job_place(j);
    job_shape(o, j);
    job_io(j);
    nl();
    fputs(o->oneliner ? "\n" : "\n\n", stdout);
}

/* Whether a pending record's tasks ("4-15%8") hold task. */
static bool task_waits(const char *tasks, uint32_t task)
{
    char err[128];
    int throttle;
    struct taskset *t = *tasks ? taskset_parse(tasks, &throttle, err, sizeof err) : NULL;
    bool has = t && taskset_has(t, task);
    taskset_free(t);
    return has;
}

/* "123_4" names one task: its own record once it has started, else the
 * array's pending record while the task waits in it (Slurm shows that). */
static json_t *pick_task(const json_t *jobs, uint32_t task)
{
    json_t *out = json_array(), *j;
    size_t i;
    json_array_foreach(jobs, i, j)
        if (!*jget_str(j, "array_task_str", "") && jget_int(j, "array_task_id", -1) == task)
            json_array_append(out, j);
    json_array_foreach(jobs, i, j)
        if (!json_array_size(out) && task_waits(jget_str(j, "array_task_str", ""), task))
            json_array_append(out, j);
    return out;
}

static int show_job(const struct scontrol_opts *o, const char *id)
{
    char path[64];
    uint32_t array_id = 0, task = 0;
    bool one_task = id && cmd_parse_task_id(id, &array_id, &task);
    if (id && !one_task && !cmd_parse_job_id(id)) {
        fprintf(stderr, "slurm_load_jobs error: Invalid job id specified\n");
        return 1;
    }
    if (one_task)
        snprintf(path, sizeof path, PATH_JOB("%u"), array_id);
    else
        snprintf(path, sizeof path, id ? PATH_JOB("%s") : PATH_JOBS, id ? id : "");
    json_t *resp = fetch(path, "slurm_load_jobs");
    if (!resp)
        return 1;
    now = jget_int(resp, "now", client_now());
    json_t *jobs = one_task ? pick_task(json_object_get(resp, "jobs"), task)
                            : json_incref(json_object_get(resp, "jobs"));
    int rc = 0;
    if (one_task && json_array_size(jobs) == 0) {
        fprintf(stderr, "slurm_load_jobs error: Invalid job id specified\n");
        rc = 1;
    } else if (json_array_size(jobs) == 0) {
        printf("No jobs in the system\n");
    }
    size_t i;
    json_t *j;
    json_array_foreach(jobs, i, j) job_print(o, j);
    json_decref(jobs);
    json_decref(resp);
    return rc;
}

/* ---- nodes ---- */

static const char *owner_of(int64_t uid, char *buf, size_t n)
{
    struct passwd *pw = getpwuid((uid_t)uid);
    if (pw)
        snprintf(buf, n, "%s", pw->pw_name);
    else
        snprintf(buf, n, "%lld", (long long)uid);
    return buf;
}

/* The lines after Partitions=: times, TRES, power, and the reason. */
static void node_print_tail(const json_t *n, int cpus, int gpus, uint64_t mem)
{
    char m[32], t[64];
    printf("BootTime=None SlurmdStartTime=None");
    nl();
    printf("LastBusyTime=%s", when_str(jget_int(n, "last_seen", 0), t, sizeof t));
    nl();
    char gt_tres[32] = "";
    if (gpus)
        snprintf(gt_tres, sizeof gt_tres, ",gres/gpu=%d", gpus);
    printf("CfgTRES=cpu=%d,mem=%s,billing=%d%s", cpus, mem_str(mem, m, sizeof m), cpus, gt_tres);
    nl();
    int ac = (int)jget_int(n, "alloc_cpus", 0), ag = (int)jget_int(n, "alloc_gpus", 0);
    uint64_t am = (uint64_t)jget_int(n, "alloc_mem_mb", 0);
    printf("AllocTRES=");
    if (ac)
        printf("cpu=%d", ac);
    if (ac && am)
        printf(",mem=%s", mem_str(am, m, sizeof m));
    if (ac && ag)
        printf(",gres/gpu=%d", ag);
    nl();
    /* Slurm 22.05's power and sensor lines, as it prints them without plugins */
    printf("CapWatts=n/a");
    nl();
    printf("CurrentWatts=0 AveWatts=0");
    nl();
    printf("ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s");
    const char *reason = jget_str(n, "reason", "");
    if (*reason) {
        nl();
        int64_t rt = jget_int(n, "reason_time", 0);
        char who[32];
        printf("Reason=%s", reason);
        if (rt)
            printf(" [%s@%s]", owner_of(jget_int(n, "reason_uid", 0), who, sizeof who),
                   when_str(rt, t, sizeof t));
    }
}

/* Slurm 22.05's layout, its trailing blanks included (after CoresPerSocket,
 * OS and Partitions), which -o keeps as two blanks. */

/* The state with Slurm's reservation flags, in its order:
 * "IDLE+MAINTENANCE+RESERVED", "DOWN+MAINTENANCE+NOT_RESPONDING+RESERVED". */
static void node_state_full(const json_t *n, char *buf, size_t len)
{
    const char *state = jget_str(n, "state", "UNKNOWN");
    bool resv = *jget_str(n, "reservation", ""), maint = jget_bool(n, "maint", false);
    const char *nr = strstr(state, "+NOT_RESPONDING");
    int head = nr ? (int)(nr - state) : (int)strlen(state);
    snprintf(buf, len, "%.*s%s%s%s", head, state, maint ? "+MAINTENANCE" : "", state + head,
             resv ? "+RESERVED" : "");
}

static void node_print(const struct scontrol_opts *o, const json_t *n)
{
    struct utsname u;
    uname(&u);
    int cpus = (int)jget_int(n, "cpus", 1), gpus = (int)jget_int(n, "gpus", 0);
    const char *gt = jget_str(n, "gpu_type", ""), *feat = jget_str(n, "features", "");
    uint64_t mem = (uint64_t)jget_int(n, "mem_mb", 1);
    char g[64] = NUL;
    if (gpus)
        snprintf(g, sizeof g, "gpu:%s%s%d", gt, *gt ? ":" : "", gpus);
    printf("NodeName=%s Arch=%s CoresPerSocket=1 ", sget(n, "name"), u.machine);
    nl();
    printf("CPUAlloc=%lld CPUEfctv=%d CPUTot=%d CPULoad=N/A", (long long)jget_int(n, "alloc_cpus", 0),
           cpus, cpus);
    nl();
    printf("AvailableFeatures=%s", *feat ? feat : NUL);
    nl();
    printf("ActiveFeatures=%s", *feat ? feat : NUL);
    nl();
    printf("Gres=%s", g);
    nl();
    printf("NodeAddr=%s NodeHostName=%s Version=%s", sget(n, "addr"), sget(n, "name"),
           SLURM_COMPAT_VERSION);
    nl();
    printf("OS=%s %s %s ", u.sysname, u.release, u.version);
    nl();
    printf("RealMemory=%llu AllocMem=%lld FreeMem=N/A Sockets=%d Boards=1",
           (unsigned long long)mem, (long long)jget_int(n, "alloc_mem_mb", 0), cpus);
    nl();
    char st[128];
    node_state_full(n, st, sizeof st);
    printf("State=%s ThreadsPerCore=1 TmpDisk=0 Weight=%lld Owner=N/A MCS_label=N/A", st,
           (long long)jget_int(n, "weight", 1));
    nl();
    json_t *parts = json_object_get(n, "partitions");
    printf("Partitions=");
    for (size_t i = 0; i < json_array_size(parts); i++)
        printf("%s%s", i ? "," : "", json_string_value(json_array_get(parts, i)));
    putchar(' ');
    nl();
    node_print_tail(n, cpus, gpus, mem);
    fputs(o->oneliner ? "\n" : "\n\n", stdout);
}

static int show_named(const struct scontrol_opts *o, const char *path, const char *key,
                      const char *want, const char *what, void (*print)(const struct scontrol_opts *,
                                                                        const json_t *))
{
    char ctx[64];
    snprintf(ctx, sizeof ctx, "slurm_load_%s", key);
    json_t *resp = fetch(path, ctx);
    if (!resp)
        return 1;
    now = jget_int(resp, "now", client_now());
    json_t *all = json_object_get(resp, key);
    struct hostlist *hl = want && !strcmp(key, "nodes") ? hostlist_create(want) : NULL;
    int found = 0;
    size_t i;
    json_t *x;
    json_array_foreach(all, i, x) {
        const char *name = jget_str(x, "name", "");
        if (want && (hl ? hostlist_find(hl, name) < 0 : strcmp(want, name) != 0))
            continue;
        print(o, x);
        found++;
    }
    hostlist_destroy(hl);
    json_decref(resp);
    if (want && !found) {
        printf("%s %s not found\n", what, want);
        return 1;
    }
    return 0;
}

/* ---- partitions ---- */

static void part_totals(const json_t *p, uint64_t *mem, int *gpus)
{
    const struct conf *c = client_conf(PROG);
    json_t *names = json_object_get(p, "node_names");
    *mem = 0;
    *gpus = 0;
    for (size_t i = 0; i < json_array_size(names); i++) {
        const struct conf_node *cn = conf_node_find(c, json_string_value(json_array_get(names, i)));
        *mem += cn ? cn->mem_mb : 0;
        *gpus += cn ? cn->gpus : 0;
    }
}

static void part_print(const struct scontrol_opts *o, const json_t *p)
{
    const struct conf *c = client_conf(PROG);
    const struct conf_part *cp = conf_part_find(c, jget_str(p, "name", ""));
    char a[32], b[32], m[32], g[32] = "";
    int64_t dt = jget_int(p, "default_time", -1);
    int nodes = (int)json_array_size(json_object_get(p, "node_names"));
    int cpus = (int)jget_int(p, "total_cpus", 0), gpus;
    uint64_t mem;
    part_totals(p, &mem, &gpus);
    printf("PartitionName=%s", sget(p, "name"));
    nl();
    printf("AllowGroups=ALL AllowAccounts=ALL AllowQos=ALL");
    nl();
    printf("AllocNodes=ALL Default=%s QoS=N/A", jget_bool(p, "default", false) ? "YES" : "NO");
    nl();
    printf("DefaultTime=%s DisableRootJobs=NO ExclusiveUser=NO GraceTime=%d Hidden=NO",
           dt < 0 ? "NONE" : mins_str(dt, a, sizeof a), cp ? cp->grace_time : 0);
    nl();
    printf("MaxNodes=UNLIMITED MaxTime=%s MinNodes=0 LLN=NO MaxCPUsPerNode=UNLIMITED",
           mins_str(jget_int(p, "max_time", -1), b, sizeof b));
    nl();
    printf("Nodes=%s", sget(p, "nodes"));
    nl();
    printf("PriorityJobFactor=%d PriorityTier=%d RootOnly=NO ReqResv=NO OverSubscribe=NO",
           cp ? cp->priority_job_factor : 1, cp ? cp->priority_tier : 1);
    nl();
    /* a partition without its own PreemptMode shows the cluster's, as Slurm's */
    conf_preempt_mode_name(cp && cp->preempt_mode != CONF_PM_UNSET ? cp->preempt_mode
                                                                   : c->preempt_mode,
                           false, m, sizeof m);
    printf("OverTimeLimit=NONE PreemptMode=%s", m);
    nl();
    printf("State=%s TotalCPUs=%d TotalNodes=%d SelectTypeParameters=NONE",
           jget_bool(p, "up", true) ? "UP" : "DOWN", cpus, nodes);
    nl();
    printf("JobDefaults=(null)");
    nl();
    if (c->def_mem_per_cpu)
        printf("DefMemPerCPU=%llu MaxMemPerNode=UNLIMITED", (unsigned long long)c->def_mem_per_cpu);
    else
        printf("DefMemPerNode=UNLIMITED MaxMemPerNode=UNLIMITED");
    nl();
    if (gpus)
        snprintf(g, sizeof g, ",gres/gpu=%d", gpus);
    printf("TRES=cpu=%d,mem=%s,node=%d,billing=%d%s", cpus, mem_str(mem, m, sizeof m), nodes, cpus,
           g);
    fputs(o->oneliner ? "\n" : "\n\n", stdout);
}

/* ---- hostnames, hostlist (config: show_config.c) ---- */

static int show_hostnames(const char *list)
{
    if (!list)
        list = getenv("SLURM_JOB_NODELIST");
    if (!list) {
        fprintf(stderr, "No hostlist specified\n");
        return 1;
    }
    struct hostlist *hl = hostlist_create(list);
    if (!hl) {
        cmd_error(PROG, "Invalid hostlist: %s", list);
        return 1;
    }
    for (size_t i = 0; i < hostlist_count(hl); i++)
        printf("%s\n", hostlist_nth(hl, i));
    hostlist_destroy(hl);
    return 0;
}

/* Names separated by commas, blanks or newlines ("$(scontrol show hostnames)"). */
static int show_hostlist(int argc, char **argv, bool sorted)
{
    struct hostlist *hl = hostlist_create("");
    for (int i = 0; i < argc; i++) {
        char *copy = xstrdup(argv[i]), *save = NULL;
        for (char *tok = strtok_r(copy, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save))
            if (hostlist_push(hl, tok) < 0) {
                cmd_error(PROG, "Invalid hostlist: %s", tok);
                free(copy);
                hostlist_destroy(hl);
                return 1;
            }
        free(copy);
    }
    if (hostlist_count(hl) == 0) {
        fprintf(stderr, "No hostlist specified\n");
        hostlist_destroy(hl);
        return 1;
    }
    if (sorted)
        hostlist_uniq(hl);
    char *s = hostlist_ranged_string(hl);
    printf("%s\n", s);
    free(s);
    hostlist_destroy(hl);
    return 0;
}

int scontrol_show(const struct scontrol_opts *o, int argc, char **argv)
{
    sep = o->oneliner ? " " : "\n   ";
    const char *what = argc > 0 ? argv[0] : "";
    const char *arg = argc > 1 ? argv[1] : NULL;
    char word[64];
    const char *eq = strchr(what, '=');
    if (eq && !arg) {   /* "show reservation=NAME", as Slurm takes it */
        snprintf(word, sizeof word, "%.*s", (int)(eq - what), what);
        what = word;
        arg = eq + 1;
    }
    if (scontrol_word(what, "job", 1) || scontrol_word(what, "jobs", 1) ||
        !strcasecmp(what, "jobid"))
        return show_job(o, arg);
    if (scontrol_word(what, "steps", 1))
        return scontrol_show_step(o, arg);
    if (scontrol_word(what, "nodes", 1))
        return show_named(o, PATH_NODES, "nodes", arg, "Node", node_print);
    if (scontrol_word(what, "partitions", 1))
        return show_named(o, PATH_PARTITIONS, "partitions", arg, "Partition", part_print);
    if (scontrol_word(what, "config", 1))
        return scontrol_show_config();
    if (scontrol_word(what, "hostnames", 5))
        return show_hostnames(arg);
    if (scontrol_word(what, "hostlist", 5))
        return show_hostlist(argc - 1, argv + 1, false);
    if (scontrol_word(what, "hostlistsorted", 9))
        return show_hostlist(argc - 1, argv + 1, true);
    if (scontrol_word(what, "reservations", 3))
        return scontrol_show_resv(o, arg);
    fprintf(stderr, "invalid entity:%s for keyword:show \n", what);
    return 1;
}
