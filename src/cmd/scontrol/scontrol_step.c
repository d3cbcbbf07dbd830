/*
 * scontrol show step [ID[.STEP]]: a running job's steps in Slurm 22.05's
 * layout, from the same job objects show job reads (client/jobsteps.h).
 * Herd does not keep which host and pid an srun has, nor a step's own
 * time limit: SrunHost:Pid is "(null):0" and TimeLimit the job's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "client/cmdutil.h"
#include "client/jobsteps.h"
#include "client/paths.h"
#include "cmd/scontrol/scontrol.h"
#include "common/timefmt.h"

static const char *limit_str(int64_t mins, char *buf, size_t n)
{
    if (mins < 0) {
        snprintf(buf, n, "UNLIMITED");
        return buf;
    }
    int64_t s = mins * 60;
    if (s >= 86400)
        snprintf(buf, n, "%lld-%02lld:%02lld:00", (long long)(s / 86400),
                 (long long)(s % 86400 / 3600), (long long)(s % 3600 / 60));
    else
        snprintf(buf, n, "%02lld:%02lld:00", (long long)(s / 3600), (long long)(s % 3600 / 60));
    return buf;
}

static void step_print(const struct scontrol_opts *o, const struct jobstep *st)
{
    const char *sep = o->oneliner ? " " : "\n   ";
    char start[64], limit[32];
    timefmt_iso(st->start, start, sizeof start);
    printf("StepId=%s UserId=%lld StartTime=%s TimeLimit=%s%s", st->id,
           (long long)jget_int(st->job, "user_id", 0), start,
           limit_str(jget_int(st->job, "time_limit", -1), limit, sizeof limit), sep);
    printf("State=RUNNING Partition=%s NodeList=%s%s", jget_str(st->job, "partition", ""),
           st->node_list, sep);
    printf("Nodes=%d CPUs=%d Tasks=%d Name=%s Network=(null)%s", st->nnodes, st->cpus,
           st->ntasks, st->name, sep);
    if (st->kind == JOBSTEP_SRUN)
        printf("TRES=cpu=%d,mem=0,node=%d%s", st->cpus, st->nnodes, sep);
    else
        printf("TRES=(null)%s", sep);
    printf("ResvPorts=(null)%s", sep);
    printf("CPUFreqReq=Default%s%s", st->kind == JOBSTEP_SRUN ? " Dist=Cyclic" : "", sep);
    printf("SrunHost:Pid=(null):0");
    fputs(o->oneliner ? "\n" : "\n\n", stdout);
}

/* "12.0", "12.batch", "12.extern" or "12": which steps of the answer. */
static bool wanted(const struct jobstep *st, const char *step)
{
    if (!step)
        return true;
    const char *suffix = strchr(st->id, '.') + 1;
    return !strcmp(suffix, step);
}

static json_t *fetch_jobs(const char *job)
{
    char path[64];
    snprintf(path, sizeof path, job ? PATH_JOB("%s") : PATH_JOBS, job ? job : "");
    json_t *resp = NULL;
    char err[256];
    int st = client_call(SCONTROL_PROG, "GET", path, NULL, &resp, err, sizeof err);
    if (st == 200) {
        cmd_json_clean(resp);
        return resp;
    }
    fprintf(stderr, "slurm_get_job_steps error: %s\n",
            st < 0 ? err : client_error_text(resp, st));
    json_decref(resp);
    return NULL;
}

int scontrol_show_step(const struct scontrol_opts *o, const char *arg)
{
    char job[32] = "";
    const char *dot = arg ? strchr(arg, '.') : NULL;
    if (arg)
        snprintf(job, sizeof job, "%.*s", (int)(dot ? dot - arg : (long)strlen(arg)), arg);
    if (arg && !cmd_parse_job_id(job)) {
        fprintf(stderr, "slurm_get_job_steps error: Invalid job id specified\n");
        return 1;
    }
    json_t *resp = fetch_jobs(arg ? job : NULL);
    if (!resp)
        return 1;
    struct jobsteps steps = { 0 };
    size_t i, shown = 0;
    const json_t *j;
    json_array_foreach(json_object_get(resp, "jobs"), i, j) jobsteps_add(&steps, j);
    for (i = 0; i < steps.n; i++)
        if (wanted(&steps.v[i], dot ? dot + 1 : NULL)) {
            step_print(o, &steps.v[i]);
            shown++;
        }
    if (!shown && arg)
        fprintf(stderr, "slurm_get_job_steps error: Invalid job id specified\n");
    else if (!shown)
        printf("No job steps in the system\n");
    jobsteps_free(&steps);
    json_decref(resp);
    return !shown && arg;
}
