/*
 * rest_acct: slurmrestd's accounting endpoints, GET /slurmdb/v0.0.40/jobs
 * and /slurmdb/v0.0.40/job/{id}, answered from the controller's own store
 * (Herd keeps the accounting records slurmdbd would): the query is
 * /v1/accounting's (api_acct_run, under slurmrestd's parameter names), each
 * stored record written as a v0.0.40 job.
 */
#include <event2/buffer.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/hostlist.h"
#include "common/slurm_errno.h"
#include "ctld/api.h"
#include "ctld/ctld.h"
#include "ctld/rest.h"
#include "ctld/rest_int.h"
#include "ctld/store.h"

/* slurmrestd's /slurmdb/v0.0.40/jobs parameters that Herd filters by */
static const struct api_acct_keys db_keys = { NULL,         "users",      "job_name", "partition",
                                              "state",      "start_time", "end_time", "node" };

static json_t *tres(const char *type, const char *name, int id, json_int_t count)
{
    return json_pack("{s:s, s:s, s:i, s:I}", "type", type, "name", name, "id", id, "count",
                     count);
}

/* Slurm's TRES list: cpu (id 1), mem (2, MB), node (4), billing (5), gres/gpu. */
static json_t *tres_list(json_int_t cpus, json_int_t mem, json_int_t nodes, json_int_t gpus)
{
    json_t *a = json_pack("[o, o, o, o]", tres("cpu", "", 1, cpus), tres("mem", "", 2, mem),
                          tres("node", "", 4, nodes), tres("billing", "", 5, cpus));
    if (gpus)
        json_array_append_new(a, tres("gres", "gpu", 1001, gpus));
    return a;
}

/* What the allocation held, and its nodes as a host list; "" before it ran. */
static json_t *allocated(json_t *rec, char **nodes, json_int_t *nnodes)
{
    json_t *allocs = json_object_get(rec, "allocs"), *a;
    json_int_t cpus = 0, mem = 0, gpus = 0;
    struct hostlist *hl = hostlist_create("");
    size_t i;
    json_array_foreach(allocs, i, a) {
        cpus += rest_num(a, "cpus", 0);
        mem += rest_num(a, "mem_mb", 0);
        gpus += __builtin_popcountll((unsigned long long)rest_num(a, "gpu_mask", 0));
        hostlist_push(hl, rest_str(a, "node"));
    }
    *nodes = hostlist_ranged_string(hl);
    hostlist_destroy(hl);
    *nnodes = (json_int_t)json_array_size(allocs);
    return *nnodes ? tres_list(cpus, mem, *nnodes, gpus) : json_array();
}

static json_t *requested(json_t *spec)
{
    json_int_t nodes = rest_num(spec, "nodes", 1), tasks = rest_num(spec, "ntasks", 0);
    if (!tasks)
        tasks = rest_num(spec, "ntasks_per_node", 1) * nodes;
    json_int_t cpus = tasks * rest_num(spec, "cpus_per_task", 1);
    json_int_t mem = rest_num(spec, "mem_per_node_mb", 0) * nodes;
    if (!mem)
        mem = rest_num(spec, "mem_per_cpu_mb", 0) * cpus;
    json_int_t gpus = rest_num(spec, "gpus", 0);
    if (!gpus)
        gpus = rest_num(spec, "gpus_per_node", 0) * nodes;
    return tres_list(cpus, mem, nodes, gpus);
}

static json_t *db_time(const struct ctld *c, json_t *rec)
{
    json_int_t submit = rest_num(rec, "submit_time", 0), start = rest_num(rec, "start_time", 0);
    json_int_t end = rest_num(rec, "end_time", 0), limit = rest_num(rec, "time_limit", -1);
    json_int_t elapsed = start ? (end ? end : ctld_now()) - start : 0;
    (void)c;
    json_t *cpu = json_pack("{s:i, s:i}", "seconds", 0, "microseconds", 0);
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:i, s:o, s:O, s:O, s:o}", "elapsed",
                     elapsed < 0 ? 0 : elapsed, "eligible", submit, "submission", submit, "start",
                     start, "end", end, "suspended", 0, "limit",
                     limit < 0 ? rest_noval_infinite() : rest_noval(limit), "system", cpu,
                     "user", cpu, "total", cpu);
}

/* One stored record (its JSON text) as slurmdb's v0.0.40_job (new); NULL
 * for a record that is not JSON. */
static json_t *db_job(const struct ctld *c, uint64_t id, const char *text)
{
    json_t *rec = json_loads(text, 0, NULL);
    if (!rec)
        return NULL;
    json_t *spec = json_object_get(rec, "spec");
    const char *state = rest_str(rec, "state");
    bool ended = strcmp(state, "PENDING") && strcmp(state, "RUNNING") && strcmp(state, "SUSPENDED");
    struct group *gr = getgrgid((gid_t)rest_num(rec, "gid", 0));
    char gid[24], *nodes = NULL;
    snprintf(gid, sizeof gid, "%lld", (long long)rest_num(rec, "gid", 0));
    json_int_t nnodes = 0;
    json_t *alloc = allocated(rec, &nodes, &nnodes);
    json_t *o = json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:{s:[s], s:s}}",
                          "job_id", (json_int_t)id, "name", rest_str(rec, "name"), "user",
                          rest_str(rec, "user_name"), "group", gr ? gr->gr_name : gid, "account",
                          rest_str(spec, "account"), "partition", rest_str(rec, "partition"), "qos",
                          *rest_str(spec, "qos") ? rest_str(spec, "qos") : "normal", "cluster",
                          c->conf->cluster_name, "nodes", *nodes ? nodes : "None assigned",
                          "allocation_nodes", nnodes, "state", "current", state, "reason",
                          *rest_str(rec, "reason") ? rest_str(rec, "reason") : "None");
    free(nodes);
    json_object_set_new(o, "time", db_time(c, rec));
    json_object_set_new(o, "exit_code", rest_exit_code(ended, (int)rest_num(rec, "exit_code", 0),
                                                       (int)rest_num(rec, "exit_signal", 0)));
    json_object_set_new(o, "derived_exit_code",
                        rest_exit_code(ended, (int)rest_num(rec, "exit_code", 0), 0));
    json_object_set_new(o, "tres", json_pack("{s:o, s:o}", "requested", requested(spec),
                                             "allocated", alloc));
    json_object_set_new(o, "association",
                        json_pack("{s:s, s:s, s:s, s:s}", "account", rest_str(spec, "account"),
                                  "cluster", c->conf->cluster_name, "partition",
                                  rest_str(rec, "partition"), "user", rest_str(rec, "user_name")));
    json_object_set_new(o, "working_directory", json_string(rest_str(spec, "work_dir")));
    json_object_set_new(o, "submit_line", json_string(rest_str(spec, "command")));
    json_object_set_new(o, "comment", json_pack("{s:s, s:s, s:s}", "job", rest_str(spec, "comment"),
                                                "administrator", "", "system", ""));
    json_object_set_new(o, "hold", json_boolean(json_is_true(json_object_get(rec, "held_user")) ||
                                                json_is_true(json_object_get(rec, "held_admin"))));
    json_object_set_new(o, "wckey", json_pack("{s:s, s:[]}", "wckey", rest_str(spec, "wckey"),
                                              "flags"));
    json_object_set_new(o, "steps", json_array());
    json_object_set_new(o, "flags", json_array());
    json_decref(rec);
    return o;
}

struct db_out {
    const struct ctld *c;
    struct evbuffer *items;
    const struct api_viewer *viewer;   /* rows to sort out here; NULL: none */
};

static int db_row(uint64_t id, const char *rec, void *arg)
{
    struct db_out *o = arg;
    if (!api_acct_row_visible(o->c, o->viewer, rec))
        return 0;
    json_t *j = db_job(o->c, id, rec);
    if (j)
        rest_list_add(o->items, j);
    return 0;
}

/* GET /slurmdb/v0.0.40/jobs[?users=&job_name=&partition=&state=&start_time=
 * &end_time=&node=]: every job the store holds that matches, written record
 * by record (a query over everything never becomes one tree). */
void rest_db_jobs(struct http_req *r)
{
    struct db_out o = { r->ctx, evbuffer_new(), NULL };
    int status = 400;
    char err[256];
    if (api_acct_run(r, &db_keys, db_row, &o, &status, err, sizeof err) < 0)
        rest_error(r, status == 400 ? 9000 : SLURM_ERROR, "Invalid query", "slurmdb_jobs_get",
                   "%s", err);
    else
        rest_reply_list(r, "jobs", o.items, json_object());
    evbuffer_free(o.items);
}

/* GET /slurmdb/v0.0.40/job/{id} */
void rest_db_job(struct http_req *r)
{
    struct ctld *c = r->ctx;
    char *end;
    unsigned long long id = strtoull(r->args[0], &end, 10);
    struct api_viewer v;   /* PrivateData=jobs: one the caller may not read is as none */
    api_viewer_init(r, &v);
    struct db_out o = { c, evbuffer_new(), &v };
    struct store_acct_filter f = { .start = -1, .end = ctld_now() };
    uint64_t ids[1] = { (uint64_t)id };
    f.ids = ids;
    f.nids = 1;
    int64_t me[1] = { (int64_t)r->who.uid };
    if (v.private && !v.coord) {
        f.uids = me;
        f.nuids = 1;
    }
    if (*end || !id || store_acct_query(c->store, &f, db_row, &o) < 0 ||
        !evbuffer_get_length(o.items))
        rest_error(r, ESLURM_INVALID_JOB_ID, "Invalid job id specified", "slurmdb_jobs_get",
                   "Unable to query JobId=%s", r->args[0]);
    else
        rest_reply_list(r, "jobs", o.items, json_object());
    evbuffer_free(o.items);
    api_viewer_free(&v);
}
