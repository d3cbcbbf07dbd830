#include "noded/jobspec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/rawstr.h"
#include "common/xmalloc.h"

enum field_type { F_STR, F_INT, F_BOOL, F_STRLIST, F_INTLIST };

struct field {
    const char *key;
    enum field_type type;
    size_t off;
    bool required;
    int64_t min, max, def;     /* F_INT only */
};

#define OFF(f) offsetof(struct job_spec, f)
#define STR(k, f) { k, F_STR, OFF(f), false, 0, 0, 0 }
#define INT(k, f, req, lo, hi, d) { k, F_INT, OFF(f), req, lo, hi, d }

static const struct field fields[] = {
    INT("job_id", job_id, true, 1, UINT32_MAX - 1, 0),
    { "script", F_STR, OFF(script), true, 0, 0, 0 },
    INT("user_id", uid, true, 0, UINT32_MAX - 1, 0),
    INT("group_id", gid, true, 0, UINT32_MAX - 1, 0),
    STR("name", name),
    STR("partition", partition),
    STR("node_name", node_name),
    STR("node_list", node_list),
    STR("user_name", user_name),
    STR("work_dir", work_dir),
    STR("submit_dir", submit_dir),
    STR("submit_host", submit_host),
    STR("stdout", std_out),
    STR("stderr", std_err),
    STR("stdin", std_in),
    STR("cluster_name", cluster_name),
    STR("tasks_per_node", tasks_per_node),
    { "environment", F_STRLIST, OFF(environment), false, 0, 0, 0 },
    { "argv", F_STRLIST, OFF(argv), false, 0, 0, 0 },
    { "rlimits", F_STRLIST, OFF(rlimits), false, 0, 0, 0 },
    { "node_gpus", F_INTLIST, OFF(gpus), false, 0, 0, 0 },
    INT("node_cpus", node_cpus, false, 0, INT32_MAX, 1),
    INT("node_mem_mb", node_mem_mb, false, 0, INT64_MAX, 0),
    INT("time_limit", time_limit, false, -1, INT32_MAX, -1),
    INT("start_time", start_time, false, 0, INT64_MAX, 0),
    INT("num_nodes", num_nodes, false, 0, INT32_MAX, 1),
    INT("ntasks", ntasks, false, 0, INT32_MAX, 1),
    INT("cpus_per_task", cpus_per_task, false, 0, INT32_MAX, 1),
    INT("ntasks_per_node", ntasks_per_node, false, 0, INT32_MAX, 0),
    INT("gpus_per_task", gpus_per_task, false, 0, INT32_MAX, 0),
    INT("cpus_per_gpu", cpus_per_gpu, false, 0, INT32_MAX, 0),
    INT("mem_per_gpu_mb", mem_per_gpu_mb, false, 0, INT64_MAX, 0),
    STR("gpu_type", gpu_type),
    STR("gpu_bind", gpu_bind),
    INT("gpus", gpus_total, false, 0, INT32_MAX, 0),
    INT("gpus_per_node", gpus_per_node, false, 0, INT32_MAX, 0),
    INT("gpus_per_socket", gpus_per_socket, false, 0, INT32_MAX, 0),
    INT("ntasks_per_gpu", ntasks_per_gpu, false, 0, INT32_MAX, 0),
    { "gpus_per_node_gres", F_BOOL, OFF(gpus_per_node_gres), false, 0, 0, 0 },
    { "cpus_per_task_set", F_BOOL, OFF(cpus_per_task_set), false, 0, 0, 0 },
    INT("umask", umask, false, -1, 0777, -1),
    STR("open_mode", open_mode),
    STR("signal", signal),
    { "herd_cpus", F_INTLIST, OFF(cpu_ids), false, 0, 0, 0 },
    { "herd_gpu_devs", F_STRLIST, OFF(gpu_devs), false, 0, 0, 0 },
    INT("array_job_id", array_job_id, false, 0, INT64_MAX, 0),
    INT("array_task_id", array_task_id, false, -1, UINT32_MAX, -1),
    INT("array_task_count", array_task_count, false, 0, UINT32_MAX, 0),
    INT("array_task_min", array_task_min, false, 0, UINT32_MAX, 0),
    INT("array_task_max", array_task_max, false, 0, UINT32_MAX, 0),
    INT("array_task_step", array_task_step, false, 0, UINT32_MAX, 1),
    INT("restart_count", restart_count, false, 0, INT32_MAX, 0),
};

/* The bytes a string carries (common/rawstr.h: a script, a name, a path or
 * an environment entry as the user gave them, UTF-8 or not); NULL when it
 * is not a string or holds a NUL, which C strings cannot carry. */
static char *spec_string(const json_t *v)
{
    return json_rawstr_value(v);
}

static char **parse_strlist(const json_t *v, size_t *n, bool need_eq)
{
    char **out = xcalloc(json_array_size(v) + 1, sizeof *out);
    size_t i;
    json_t *e;
    json_array_foreach(v, i, e) {
        char *s = spec_string(e);
        if (!s || (need_eq && (!strchr(s, '=') || s[0] == '='))) {
            free(s);
            for (size_t k = 0; k < i; k++)
                free(out[k]);
            free(out);
            return NULL;
        }
        out[i] = s;
    }
    *n = json_array_size(v);
    return out;
}

static int *parse_intlist(const json_t *v, size_t *n, int max)
{
    int *out = xcalloc(json_array_size(v) + 1, sizeof *out);
    size_t i;
    json_t *e;
    json_array_foreach(v, i, e) {
        if (!json_is_integer(e) || json_integer_value(e) < 0 || json_integer_value(e) > max) {
            free(out);
            return NULL;
        }
        out[i] = (int)json_integer_value(e);
    }
    *n = json_array_size(v);
    return out;
}

static bool parse_list(struct job_spec *js, const struct field *f, const json_t *v)
{
    if (!json_is_array(v))
        return false;
    void *p = (char *)js + f->off;
    if (f->off == OFF(gpus))
        return (*(int **)p = parse_intlist(v, &js->ngpus, 1023)) != NULL;
    if (f->off == OFF(cpu_ids))
        return (*(int **)p = parse_intlist(v, &js->ncpu_ids, INT32_MAX - 1)) != NULL;
    size_t *n = f->off == OFF(environment) ? &js->nenv
              : f->off == OFF(gpu_devs) ? &js->ngpu_devs
              : f->off == OFF(rlimits) ? &js->nrlimits : &js->nargv;
    bool need_eq = f->off == OFF(environment) || f->off == OFF(rlimits);
    return (*(char ***)p = parse_strlist(v, n, need_eq)) != NULL;
}

/* One field; false when present with the wrong type or out of range. */
static bool parse_field(struct job_spec *js, const struct field *f, const json_t *v)
{
    void *p = (char *)js + f->off;
    switch (f->type) {
    case F_STR: {
        char *s = v ? spec_string(v) : xstrdup("");
        if (!s || (f->required && !s[0])) {
            free(s);
            return false;
        }
        *(char **)p = s;
        return true;
    }
    case F_INT:
        if (!v) {
            *(int64_t *)p = f->def;
            return true;
        }
        if (!json_is_integer(v) || json_integer_value(v) < f->min
            || json_integer_value(v) > f->max)
            return false;
        *(int64_t *)p = json_integer_value(v);
        return true;
    case F_BOOL:
        if (v && !json_is_boolean(v))
            return false;
        *(bool *)p = v && json_is_true(v);
        return true;
    default:
        return v ? parse_list(js, f, v) : true;
    }
}

/* Fills what the controller may leave out. */
static void apply_defaults(struct job_spec *js)
{
    if (!js->environment)
        js->environment = xcalloc(1, sizeof(char *));
    if (!js->argv)
        js->argv = xcalloc(1, sizeof(char *));
    if (!js->gpus)
        js->gpus = xcalloc(1, sizeof(int));
    if (!js->cpu_ids)
        js->cpu_ids = xcalloc(1, sizeof(int));
    if (!js->gpu_devs)
        js->gpu_devs = xcalloc(1, sizeof(char *));
    if (!js->work_dir[0]) {
        free(js->work_dir);
        js->work_dir = xstrdup(js->submit_dir[0] ? js->submit_dir : "/");
    }
    if (!js->submit_dir[0]) {
        free(js->submit_dir);
        js->submit_dir = xstrdup(js->work_dir);
    }
    if (js->time_limit == 0)
        js->time_limit = -1;
}

struct job_spec *job_spec_from_json(const json_t *o, char *err, size_t errlen)
{
    if (!json_is_object(o)) {
        snprintf(err, errlen, "job is not a JSON object");
        return NULL;
    }
    struct job_spec *js = xcalloc(1, sizeof *js);
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        const json_t *v = json_object_get(o, fields[i].key);
        if (!v && fields[i].required) {
            snprintf(err, errlen, "job has no \"%s\"", fields[i].key);
            job_spec_destroy(js);
            return NULL;
        }
        if (!parse_field(js, &fields[i], v)) {
            snprintf(err, errlen, "invalid value for \"%s\"", fields[i].key);
            job_spec_destroy(js);
            return NULL;
        }
    }
    /* kept by the controller as submitted, unchecked: a bad one must not
     * make the node refuse the job, it only leaves SLURM_JOB_ACCOUNT out */
    char *account = spec_string(json_object_get(o, "account"));
    js->account = account ? account : xstrdup("");
    apply_defaults(js);
    return js;
}

static void free_strv(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

void job_spec_destroy(struct job_spec *js)
{
    if (!js)
        return;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (fields[i].type == F_STR)
            free(*(char **)((char *)js + fields[i].off));
    free(js->account);
    free_strv(js->environment);
    free_strv(js->argv);
    free_strv(js->rlimits);
    free(js->gpus);
    free(js->cpu_ids);
    free_strv(js->gpu_devs);
    free(js);
}
