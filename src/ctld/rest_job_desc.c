/*
 * rest_job_desc: slurmrestd's v0.0.40_job_desc_msg, the "job" of POST
 * /slurm/v0.0.40/job/submit, turned into the job spec sbatch sends (docs/
 * protocol.md), so that a job submitted over REST is built, checked and
 * admitted by the one submission path. Who the job runs as is never the
 * body's: user_id and group_id are ignored (with a warning), the caller's
 * credential decides.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctld/rest.h"

/* A number as v0.0.40 writes one: plain, or {"set", "infinite",
 * "number"}. 1 set (in *v), 0 unset, 2 infinite, -1 not a number. */
static int noval_get(json_t *v, json_int_t *out)
{
    if (json_is_integer(v)) {
        *out = json_integer_value(v);
        return 1;
    }
    if (!json_is_object(v))
        return -1;
    if (json_is_true(json_object_get(v, "infinite")))
        return 2;
    json_t *set = json_object_get(v, "set"), *n = json_object_get(v, "number");
    if (set && !json_is_true(set))
        return 0;
    if (!json_is_integer(n))
        return -1;
    *out = json_integer_value(n);
    return 1;
}

/* "gres/gpu:2", "gres/gpu:a100:2", "gpu:2" (several, comma-separated:
 * only the GPU one counts). 0 with count and type; -1 when it names no GPUs. */
static int gpu_tres_parse(const char *s, long *count, char *type, size_t typelen)
{
    const char *g = strstr(s, "gpu");
    if (!g)
        return -1;
    g += 3;
    type[0] = '\0';
    *count = 1;
    if (*g == '=' || *g == ':') {
        const char *p = g + 1, *colon = strchr(p, ':');
        size_t end = strcspn(p, ",");
        if (colon && (size_t)(colon - p) < end) {   /* gpu:TYPE:N */
            snprintf(type, typelen, "%.*s", (int)(colon - p), p);
            p = colon + 1;
        }
        char *stop;
        *count = strtol(p, &stop, 10);
        if (stop == p || *count < 0 || (*stop && *stop != ','))
            return -1;
    }
    return 0;
}

/* Each job_desc key Herd takes: its spec key and how it is read. */
enum kind { K_STR, K_INT, K_BOOL, K_NOVAL, K_STRLIST, K_CSV };
struct field {
    const char *rest, *spec;
    enum kind kind;
};

static const struct field fields[] = {
    { "name", "name", K_STR },
    { "partition", "partition", K_STR },
    { "account", "account", K_STR },
    { "qos", "qos", K_STR },
    { "comment", "comment", K_STR },
    { "wckey", "wckey", K_STR },
    { "dependency", "dependency", K_STR },
    { "array", "array", K_STR },
    { "constraints", "constraint", K_STR },
    { "current_working_directory", "work_dir", K_STR },
    { "standard_output", "stdout", K_STR },
    { "standard_error", "stderr", K_STR },
    { "standard_input", "stdin", K_STR },
    { "tasks", "ntasks", K_INT },
    { "tasks_per_node", "ntasks_per_node", K_INT },
    { "cpus_per_task", "cpus_per_task", K_INT },
    { "minimum_nodes", "nodes", K_INT },
    { "nice", "nice", K_INT },
    { "hold", "hold", K_BOOL },
    { "requeue", "requeue", K_BOOL },
    { "time_limit", "time_limit", K_NOVAL },
    { "memory_per_node", "mem_per_node_mb", K_NOVAL },
    { "memory_per_cpu", "mem_per_cpu_mb", K_NOVAL },
    { "begin_time", "begin_time", K_NOVAL },
    { "deadline", "deadline", K_NOVAL },
    { "environment", "environment", K_STRLIST },
    { "argv", "argv", K_STRLIST },
    { "required_nodes", "req_nodes", K_CSV },
    { "excluded_nodes", "exc_nodes", K_CSV },
};

/* Fields a client sends that change nothing here, taken without a word. */
static const char *const quiet[] = { "script", "user_id", "group_id", "nodes",
                                     "tres_per_node", "tres_per_job", "exclusive" };

static bool in(const char *const *list, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(list[i], key))
            return true;
    return false;
}

/* A comma list as a string or an array of strings: "a,b". */
static json_t *csv_value(json_t *v)
{
    if (json_is_string(v))
        return json_incref(v);
    if (!json_is_array(v))
        return NULL;
    char buf[4096] = "";
    size_t len = 0, i;
    json_t *s;
    json_array_foreach(v, i, s) {
        if (!json_is_string(s))
            return NULL;
        int n = snprintf(buf + len, sizeof buf - len, "%s%s", i ? "," : "", json_string_value(s));
        if (n < 0 || (size_t)n >= sizeof buf - len)
            return NULL;
        len += (size_t)n;
    }
    return json_string(buf);
}

/* One field into the spec; -1 with err naming it. */
static int take(json_t *spec, const struct field *f, json_t *v, char *err, size_t errlen)
{
    json_int_t n = 0;
    json_t *out = NULL;
    int got;
    switch (f->kind) {
    case K_STR:
        out = json_is_string(v) ? json_incref(v) : NULL;
        break;
    case K_INT:
        got = noval_get(v, &n);
        out = got == 1 ? json_integer(n) : NULL;
        break;
    case K_BOOL:
        out = json_is_boolean(v) ? json_incref(v) : NULL;
        break;
    case K_NOVAL:
        got = noval_get(v, &n);
        if (got == 0)
            return 0;
        /* an infinite time limit is Herd's -1 (UNLIMITED) */
        out = got == 1 ? json_integer(n) : got == 2 && !strcmp(f->spec, "time_limit") ?
                                          json_integer(-1) : NULL;
        break;
    case K_STRLIST:
        out = json_is_array(v) ? json_incref(v) : NULL;
        break;
    case K_CSV:
        out = csv_value(v);
        break;
    }
    if (!out) {
        snprintf(err, errlen, "job.%s: not a valid value", f->rest);
        return -1;
    }
    json_object_set_new(spec, f->spec, out);
    return 0;
}

/* "2" or "1-4" (min[-max]): the minimum, which is what Herd allocates. */
static int nodes_take(json_t *spec, json_t *v, char *err, size_t errlen)
{
    json_int_t n = 0;
    if (json_is_string(v)) {
        char *end;
        n = strtoll(json_string_value(v), &end, 10);
        if (end == json_string_value(v) || (*end && *end != '-'))
            n = -1;
    } else if (noval_get(v, &n) != 1) {
        n = -1;
    }
    if (n < 1) {
        snprintf(err, errlen, "job.nodes: not a node count");
        return -1;
    }
    json_object_set_new(spec, "nodes", json_integer(n));
    return 0;
}

static int gpus_take(json_t *spec, json_t *desc, char *err, size_t errlen)
{
    static const char *const keys[] = { "tres_per_node", "tres_per_job" };
    for (size_t i = 0; i < 2; i++) {
        const char *s = json_string_value(json_object_get(desc, keys[i]));
        if (!json_object_get(desc, keys[i]) || (s && !*s))
            continue;
        long count;
        char type[64];
        if (!s || gpu_tres_parse(s, &count, type, sizeof type) < 0) {
            snprintf(err, errlen, "job.%s: only gres/gpu[:type]:N is understood", keys[i]);
            return -1;
        }
        json_object_set_new(spec, i == 0 ? "gpus_per_node" : "gpus", json_integer(count));
        if (*type)
            json_object_set_new(spec, "gpu_type", json_string(type));
    }
    return 0;
}

json_t *rest_job_desc_spec(json_t *desc, json_t *script, json_t *warnings, char *err,
                           size_t errlen)
{
    if (!json_is_object(desc)) {
        snprintf(err, errlen, "job: not an object");
        return NULL;
    }
    json_t *spec = json_object(), *v;
    const char *key;
    json_object_foreach(desc, key, v) {
        const struct field *f = NULL;
        for (size_t i = 0; i < sizeof fields / sizeof *fields && !f; i++)
            if (!strcmp(fields[i].rest, key))
                f = &fields[i];
        if (f && take(spec, f, v, err, errlen) < 0)
            goto bad;
        if (!f && !in(quiet, sizeof quiet / sizeof *quiet, key))
            json_array_append_new(warnings,
                                  rest_warning("job_desc_msg", "Field job.%s is ignored by Herd",
                                               key));
    }
    if ((v = json_object_get(desc, "nodes")) && nodes_take(spec, v, err, errlen) < 0)
        goto bad;
    if (gpus_take(spec, desc, err, errlen) < 0)
        goto bad;
    v = json_object_get(desc, "exclusive");   /* true, or ["true"]/["user"] in v0.0.40 */
    if (json_is_true(v) || (json_is_array(v) && json_array_size(v)))
        json_object_set_new(spec, "exclusive", json_true());
    if (json_object_get(desc, "user_id") || json_object_get(desc, "group_id"))
        json_array_append_new(warnings, rest_warning("job_desc_msg",
                                                     "user_id and group_id are ignored: the "
                                                     "job runs as the authenticated user"));
    if (!script)
        script = json_object_get(desc, "script");
    if (script)
        json_object_set(spec, "script", script);
    const char *wd = json_string_value(json_object_get(spec, "work_dir"));
    if (wd)   /* sbatch's submit dir is its cwd; a REST client's is the one it names */
        json_object_set_new(spec, "submit_dir", json_string(wd));
    return spec;
bad:
    json_decref(spec);
    return NULL;
}
