/*
 * sacct_json: sacct --json, in the shape of Slurm's data_parser (v0.0.40):
 * {"jobs": [...], "meta": {...}, "errors": [], "warnings": []}, each job
 * with the fields herd keeps and its batch, extern and srun steps under
 * "steps".
 * Strings come from the same field code as the table, so both agree.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/cmdutil.h"
#include "cmd/sacct/sacct.h"
#include "common/taskset.h"
#include "common/xmalloc.h"

/* A field's table value as a JSON string ("" for none). */
static json_t *fv(const char *field, const struct sacct_row *r, const struct sacct_ctx *x)
{
    char *v = sacct_field_find(field)->value(r, x);
    json_t *s = json_string(v ? v : "");
    free(v);
    return s;
}

static json_t *number(bool set, json_int_t n)
{
    return json_pack("{s:b, s:b, s:I}", "set", set, "infinite", false, "number", n);
}

static json_t *exit_code_json(int code, int sig)
{
    const char *status = sig ? "SIGNALED" : code ? "ERROR" : "SUCCESS";
    const char *abbrev = sig ? sigabbrev_np(sig) : NULL;
    char name[32] = "";
    if (abbrev)
        snprintf(name, sizeof name, "SIG%s", abbrev);
    return json_pack("{s:[s], s:o, s:{s:o, s:s}}", "status", status, "return_code",
                     number(true, code), "signal", "id", number(sig != 0, sig), "name", name);
}

static json_t *cpu_time(const json_t *usage, const char *key)
{
    int64_t ms = jget_int(usage, key, 0);
    return json_pack("{s:I, s:I}", "seconds", (json_int_t)(ms / 1000), "microseconds",
                     (json_int_t)(ms % 1000 * 1000));
}

/* billing < 0: none (a step's). */
static json_t *tres_json(int cpus, uint64_t mem_mb, int nodes, int gpus, long long billing)
{
    json_t *a = json_pack("[{s:s, s:s, s:i, s:i}, {s:s, s:s, s:i, s:I}, {s:s, s:s, s:i, s:i}]",
                          "type", "cpu", "name", "", "id", 1, "count", cpus, "type", "mem",
                          "name", "", "id", 2, "count", (json_int_t)mem_mb, "type", "node",
                          "name", "", "id", 4, "count", nodes);
    if (billing >= 0)
        json_array_append_new(a, json_pack("{s:s, s:s, s:i, s:I}", "type", "billing", "name", "",
                                           "id", 5, "count", (json_int_t)billing));
    if (gpus)
        json_array_append_new(a, json_pack("{s:s, s:s, s:i, s:i}", "type", "gres", "name", "gpu",
                                           "id", 1001, "count", gpus));
    return a;
}

static json_t *state_json(const struct sacct_row *r, const struct sacct_ctx *x)
{
    char *st = sacct_field_find("State")->value(r, x);
    char *sp = strchr(st, ' ');   /* "CANCELLED by 0": the state alone */
    if (sp)
        *sp = '\0';
    json_t *a = json_pack("[s]", st);
    free(st);
    return a;
}

static json_t *step_json(const struct sacct_row *r, const struct sacct_ctx *x)
{
    const json_t *rec = r->rec;
    /* the batch shell and srun's steps have their usage and exit; extern none */
    bool batch = r->kind == SACCT_BATCH, own = batch || r->kind == SACCT_STEP;
    const json_t *usage = own ? json_object_get(rec, "usage") : NULL;
    const json_t *a0 = json_array_get(json_object_get(rec, "allocs"), 0);
    int cpus = batch ? (int)jget_int(a0, "cpus", 0) : sacct_alloc_cpus(rec);
    uint64_t mem = batch ? (uint64_t)jget_int(a0, "mem_mb", 0) : sacct_alloc_mem(rec);
    int nodes = batch ? 1 : sacct_alloc_nodes(rec);
    json_t *nl = fv("NodeList", r, x);
    return json_pack(
        "{s:{s:o, s:o}, s:o, s:o, s:{s:i, s:o}, s:{s:I, s:I, s:I, s:o, s:o, s:o}, s:{s:o}}",
        "step", "id", fv("JobID", r, x), "name", fv("JobName", r, x), "state", state_json(r, x),
        "exit_code",
        own ? exit_code_json((int)jget_int(rec, "exit_code", 0), (int)jget_int(rec, "exit_signal", 0))
            : exit_code_json(0, 0),
        "nodes", "count", nodes, "range", nl, "time", "elapsed",
        (json_int_t)sacct_elapsed(rec, x->now), "start", (json_int_t)jget_int(rec, "start_time", 0),
        "end", (json_int_t)jget_int(rec, "end_time", 0), "total", cpu_time(usage, "total_cpu_ms"),
        "user", cpu_time(usage, "user_cpu_ms"), "system", cpu_time(usage, "system_cpu_ms"), "tres",
        "allocated", tres_json(cpus, mem, nodes, batch ? 0 : sacct_gpus(rec),
                                        batch ? -1 : sacct_billing(rec, cpus)));
}

static json_t *job_time(const struct sacct_row *r, const struct sacct_ctx *x)
{
    const json_t *rec = r->rec, *usage = json_object_get(rec, "usage");
    int64_t limit = jget_int(rec, "time_limit", -1);
    return json_pack("{s:I, s:I, s:I, s:o, s:I, s:I, s:i, s:o, s:o, s:o}", "elapsed",
                     (json_int_t)sacct_elapsed(rec, x->now), "eligible",
                     (json_int_t)jget_int(rec, "submit_time", 0), "end",
                     (json_int_t)jget_int(rec, "end_time", 0), "limit",
                     limit < 0 ? json_pack("{s:b, s:b, s:i}", "set", false, "infinite", true,
                                           "number", 0)
                               : number(true, limit),
                     "start", (json_int_t)jget_int(rec, "start_time", 0), "submission",
                     (json_int_t)jget_int(rec, "submit_time", 0), "suspended", 0, "total",
                     cpu_time(usage, "total_cpu_ms"), "user", cpu_time(usage, "user_cpu_ms"),
                     "system", cpu_time(usage, "system_cpu_ms"));
}

/* The rows the table prints under the job: ID.batch (not for an srun or
 * salloc allocation), ID.extern, then srun's ID.0 and on, as Slurm's
 * data_parser lists them in the job's "steps". */
static json_t *steps_json(const struct sacct_row *r, const struct sacct_ctx *x)
{
    json_t *steps = json_array();
    const json_t *rec = r->rec;
    if (jget_int(rec, "start_time", 0) <= 0 || sacct_alloc_nodes(rec) <= 0)
        return steps;
    struct sacct_row s = *r;
    bool batch = !jget_bool(json_object_get(rec, "spec"), "allocation", false);
    for (s.kind = batch ? SACCT_BATCH : SACCT_EXTERN; s.kind <= SACCT_EXTERN; s.kind++)
        if (sacct_has_step(rec, s.kind))
            json_array_append_new(steps, step_json(&s, x));
    size_t i;
    const json_t *step;
    json_array_foreach(json_object_get(rec, "steps"), i, step) {
        struct sacct_row t = { step, r->id, SACCT_STEP, (int)jget_int(step, "id", 0),
                               r->array_id, r->task };
        json_array_append_new(steps, step_json(&t, x));
    }
    return steps;
}

/* Bit t set for each task t of spec ("8-9%2" -> "0x300"), as Slurm 22.05
 * writes a pending record's tasks; NULL when none. */
static char *task_bitmap(const char *spec, int *throttle)
{
    char err[128];
    struct taskset *set = taskset_parse(spec, throttle, err, sizeof err);
    int64_t last = set ? taskset_last(set) : -1;
    if (last < 0) {
        taskset_free(set);
        return NULL;
    }
    size_t ndigits = (size_t)last / 4 + 1;
    char *hex = xmalloc(ndigits + 3);
    memcpy(hex, "0x", 2);
    for (size_t d = 0; d < ndigits; d++) {   /* d: digits from the highest */
        unsigned v = 0;
        for (unsigned b = 0; b < 4; b++)
            v |= taskset_has(set, (uint32_t)((ndigits - 1 - d) * 4 + b)) ? 1u << b : 0;
        hex[2 + d] = "0123456789abcdef"[v];
    }
    hex[2 + ndigits] = '\0';
    taskset_free(set);
    return hex;
}

/* "array": the array's id (0 outside one), a task's id, a pending
 * record's tasks and its throttle, as Slurm 22.05's sacct --json. */
static json_t *array_json(const struct sacct_row *r)
{
    int throttle = 0;
    char *tasks = NULL;
    if (sacct_is_pending_array(r->rec))
        tasks = task_bitmap(jget_str(r->rec, "array_task_str", ""), &throttle);
    json_t *a = json_pack("{s:I, s:{s:{s:{s:i}}}, s:o, s:o}", "job_id", (json_int_t)r->array_id,
                          "limits", "max", "running", "tasks", throttle > 0 ? throttle : 0,
                          "task", tasks ? json_string(tasks) : json_null(), "task_id",
                          r->task >= 0 ? json_integer(r->task) : json_null());
    free(tasks);
    return a;
}

static json_t *job_json(const struct sacct_row *r, const struct sacct_ctx *x)
{
    const json_t *rec = r->rec;
    json_t *o = json_pack(
        "{s:o, s:i, s:o, s:{s:s, s:o, s:s}, s:o, s:o, s:o, s:I, s:o, s:o, s:o, s:o,"
        " s:{s:o, s:o}, s:o, s:o, s:o, s:o}",
        "account", fv("Account", r, x), "allocation_nodes", sacct_alloc_nodes(rec), "cluster",
        fv("Cluster", r, x), "comment", "administrator", "", "job", fv("Comment", r, x), "system",
        "", "derived_exit_code", exit_code_json(0, 0), "exit_code",
        exit_code_json((int)jget_int(rec, "exit_code", 0), (int)jget_int(rec, "exit_signal", 0)),
        "group", fv("Group", r, x), "job_id", (json_int_t)r->id, "name", fv("JobName", r, x),
        "nodes", fv("NodeList", r, x), "partition", fv("Partition", r, x), "qos", fv("QOS", r, x),
        "state", "current", state_json(r, x), "reason", fv("Reason", r, x), "time", job_time(r, x),
        "user", fv("User", r, x), "working_directory", fv("WorkDir", r, x), "tres",
        json_pack("{s:o, s:o}", "allocated",
                  sacct_alloc_nodes(rec)
                      ? tres_json(sacct_alloc_cpus(rec), sacct_alloc_mem(rec),
                                  sacct_alloc_nodes(rec), sacct_gpus(rec),
                                  sacct_billing(rec, sacct_alloc_cpus(rec)))
                      : json_array(),
                  "requested", json_array()));
    json_object_set_new(o, "steps", steps_json(r, x));
    json_object_set_new(o, "array", array_json(r));
    json_object_set_new(o, "reservation",
                        json_pack("{s:I, s:s}", "id",
                                  (json_int_t)jget_int(r->rec, "reservation_id", 0), "name",
                                  sacct_resv_name(r)));
    return o;
}

void sacct_json_add(json_t *jobs, const json_t *job, const struct sacct_ctx *x,
                    const struct sacct_want *want, size_t nwant)
{
    struct sacct_row r = sacct_job_row(job);
    if (r.rec && sacct_wanted(want, nwant, &r))   /* -j 123_4: that task alone */
        json_array_append_new(jobs, job_json(&r, x));
}

void sacct_print_json(FILE *out, json_t *jobs, const struct sacct_ctx *x)
{
    json_t *doc = json_pack("{s:O, s:{s:{s:s, s:s}, s:{s:s}}, s:[], s:[]}", "jobs", jobs, "meta",
                            "plugin", "type", "openapi/slurmctld", "data_parser",
                            "data_parser/v0.0.40", "slurm", "cluster",
                            x->cluster ? x->cluster : "", "errors", "warnings");
    json_dumpf(doc, out, JSON_INDENT(2));
    fputc('\n', out);
    json_decref(doc);
}
