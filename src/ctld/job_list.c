/*
 * job_list: GET /v1/jobs?fields=... written straight as JSON text. squeue
 * asks only for what its format shows; the common fields are written from
 * the job record without building a jansson tree (which with 10,000 jobs
 * was most of the answer's cost), and any other field is taken from the
 * whole job object, built only for the jobs that need it.
 */
#include "ctld/job_list.h"

#include <event2/buffer.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/decimal.h"
#include "common/xmalloc.h"

enum key {
    K_OTHER, K_JOB_ID, K_USER_ID, K_GROUP_ID, K_USER_NAME, K_NAME, K_PARTITION, K_STATE,
    K_REASON, K_SUBMIT, K_START, K_END, K_TIME_LIMIT, K_PRIORITY, K_NUM_NODES, K_NODE_LIST,
    K_START_ESTIMATE, K_ARRAY, K_SUSPENDED, K_PRE_SUSPEND,
};

static const struct {
    const char *name;
    enum key key;
} fast[] = {
    { "job_id", K_JOB_ID }, { "user_id", K_USER_ID }, { "group_id", K_GROUP_ID },
    { "user_name", K_USER_NAME }, { "name", K_NAME }, { "partition", K_PARTITION },
    { "state", K_STATE }, { "reason", K_REASON }, { "submit_time", K_SUBMIT },
    { "start_time", K_START }, { "end_time", K_END }, { "time_limit", K_TIME_LIMIT },
    { "priority", K_PRIORITY }, { "num_nodes", K_NUM_NODES }, { "node_list", K_NODE_LIST },
    { "start_estimate", K_START_ESTIMATE }, { "array_job_id", K_ARRAY },
    { "array_task_id", K_ARRAY }, { "array_task_str", K_ARRAY },
    { "suspended_s", K_SUSPENDED }, { "pre_suspend_s", K_PRE_SUSPEND },
};

struct job_keys {
    char **names;
    enum key *keys;
    size_t n;
};

static enum key key_of(const char *name)
{
    for (size_t i = 0; i < sizeof fast / sizeof *fast; i++)
        if (strcmp(fast[i].name, name) == 0)
            return fast[i].key;
    return K_OTHER;
}

struct job_keys *job_keys_parse(const char *fields)
{
    struct job_keys *k = xcalloc(1, sizeof *k);
    for (const char *p = fields; *p;) {
        size_t n = strcspn(p, ",");
        /* names go into the answer as they are: Slurm-ish keys only */
        if (n > 0 && n < 64 && strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789_") >= n) {
            k->names = xrealloc(k->names, (k->n + 1) * sizeof *k->names);
            k->keys = xrealloc(k->keys, (k->n + 1) * sizeof *k->keys);
            k->names[k->n] = xasprintf("%.*s", (int)n, p);
            k->keys[k->n] = key_of(k->names[k->n]);
            k->n++;
        }
        p += n + (p[n] == ',');
    }
    return k;
}

void job_keys_free(struct job_keys *k)
{
    for (size_t i = 0; k && i < k->n; i++)
        free(k->names[i]);
    if (k) {
        free(k->names);
        free(k->keys);
    }
    free(k);
}

/* A JSON string: the text came in as JSON (valid UTF-8), so only quotes,
 * backslashes and control characters need escaping; the runs between them
 * go in whole. */
static void put_str(struct evbuffer *b, const char *s)
{
    evbuffer_add(b, "\"", 1);
    for (const char *p = s; *p;) {
        size_t run = 0;
        while (p[run] && p[run] != '"' && p[run] != '\\' && (unsigned char)p[run] >= 0x20)
            run++;
        evbuffer_add(b, p, run);
        p += run;
        if (!*p)
            break;
        if (*p == '"' || *p == '\\')
            evbuffer_add_printf(b, "\\%c", *p);
        else
            evbuffer_add_printf(b, "\\u%04x", (unsigned char)*p);
        p++;
    }
    evbuffer_add(b, "\"", 1);
}

/* A TSV row being written: its cells gather here and go into the answer
 * in one piece (an evbuffer call, or a printf, per cell was most of the
 * cost of a 10,000-job table). */
struct line {
    struct evbuffer *b;
    size_t n;
    char buf[8192];
};

static void line_flush(struct line *l)
{
    evbuffer_add(l->b, l->buf, l->n);
    l->n = 0;
}

static void line_add(struct line *l, const char *s, size_t n)
{
    if (l->n + n > sizeof l->buf) {
        line_flush(l);
        if (n > sizeof l->buf) {
            evbuffer_add(l->b, s, n);
            return;
        }
    }
    memcpy(l->buf + l->n, s, n);
    l->n += n;
}

static void line_int(struct line *l, long long v)
{
    char t[DECIMAL_MAX];
    size_t n;
    const char *d = decimal(v, t, &n);
    line_add(l, d, n);
}

/* The bytes a cell escapes (and the NUL that ends it). */
static const bool cell_special[256] = {
    ['\0'] = true, ['\\'] = true, ['\t'] = true, ['\n'] = true, ['\r'] = true,
};

/* A cell (job_list.h): backslash, tab, newline and CR escaped. The runs
 * between them are found with a table and copied whole: a strcspn per
 * cell cost more than the copy, most cells being a few bytes. */
static void line_cell(struct line *l, const char *s)
{
    for (const char *p = s;;) {
        size_t run = 0;
        while (!cell_special[(unsigned char)p[run]])
            run++;
        line_add(l, p, run);
        p += run;
        if (!*p)
            return;
        char esc[2] = { '\\', *p == '\t' ? 't' : *p == '\n' ? 'n' : *p == '\r' ? 'r' : '\\' };
        line_add(l, esc, 2);
        p++;
    }
}

/* One key's value from the record, a string (*s, in *own when made here)
 * or a number (*v); false when it is not one of those keys. */
static bool fast_value(const struct ctld *c, const struct job *j, enum key k, const char **s,
                       char **own, long long *v)
{
    *s = NULL;
    *own = NULL;
    switch (k) {
    case K_USER_NAME: *s = j->user_name; return true;
    case K_NAME: *s = j->name; return true;
    case K_PARTITION: *s = c->conf->parts[j->part].name; return true;
    case K_STATE: *s = job_state_name(j->state); return true;
    case K_REASON: *s = job_reason_name(c, j); return true;
    case K_NODE_LIST:
        /* a pending job has none: no hostlist to build for it */
        *own = j->nallocs ? job_node_list(c, j) : NULL;
        *s = *own ? *own : "";
        return true;
    default: break;
    }
    switch (k) {
    case K_JOB_ID: *v = (long long)j->id; return true;
    case K_USER_ID: *v = (long long)j->uid; return true;
    case K_GROUP_ID: *v = (long long)j->gid; return true;
    case K_SUBMIT: *v = (long long)j->submit_time; return true;
    case K_START: *v = (long long)j->start_time; return true;
    case K_END: *v = (long long)j->end_time; return true;
    case K_SUSPENDED: *v = (long long)j->suspended_s; return true;
    case K_PRE_SUSPEND: *v = (long long)j->pre_suspend_s; return true;
    case K_TIME_LIMIT: *v = (long long)j->time_limit; return true;
    case K_START_ESTIMATE: *v = (long long)j->start_estimate; return true;
    case K_PRIORITY: *v = (long long)(j->priority ? j->priority : 4294901760ULL - j->id); return true;
    case K_NUM_NODES: *v = j->nallocs ? (long long)j->nallocs : j->req.min_nodes; return true;
    default: return false;
    }
}

/* One key written from the record as JSON; false when it is not one of them. */
static bool put_fast(struct evbuffer *b, const struct ctld *c, const struct job *j,
                     enum key k)
{
    const char *s;
    char *own;
    long long v = 0;
    if (!fast_value(c, j, k, &s, &own, &v))
        return false;
    if (s)
        put_str(b, s);
    else
        evbuffer_add_printf(b, "%lld", v);
    free(own);
    return true;
}


/* What job_to_json leaves out, this leaves out too: a start estimate only
 * while pending, the array keys only for an array's jobs. */
static bool present(const struct job *j, enum key k)
{
    if (k == K_START_ESTIMATE)
        return j->state == JOB_PENDING;
    return k != K_ARRAY || j->array;
}

void job_list_write(struct evbuffer *b, const struct ctld *c, const struct job *j,
                    const struct job_keys *k)
{
    json_t *whole = NULL;
    bool first = true;
    evbuffer_add(b, "{", 1);
    for (size_t i = 0; i < k->n; i++) {
        enum key key = k->keys[i];
        bool slow = key == K_OTHER || key == K_ARRAY;
        json_t *v = NULL;
        if (!present(j, key))
            continue;
        if (slow) {
            if (!whole)
                whole = job_to_json(c, j);
            if (!(v = json_object_get(whole, k->names[i])))
                continue;
        }
        evbuffer_add_printf(b, "%s\"%s\":", first ? "" : ",", k->names[i]);
        first = false;
        if (!slow) {
            put_fast(b, c, j, key);
            continue;
        }
        char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        evbuffer_add(b, text, strlen(text));
        free(text);
    }
    evbuffer_add(b, "}", 1);
    json_decref(whole);
}

void job_list_tsv_head(struct evbuffer *b, const struct job_keys *k, int64_t now)
{
    evbuffer_add_printf(b, "now\t%lld\n", (long long)now);
    for (size_t i = 0; i < k->n; i++)
        evbuffer_add_printf(b, "%s%s", i ? "\t" : "", k->names[i]);
    evbuffer_add(b, "\n", 1);
}

/* A value of the whole job object as a cell: text as it is, true/false,
 * numbers, \N for null; anything else as its JSON text. */
static void line_json(struct line *l, json_t *v)
{
    if (json_is_string(v))
        line_cell(l, json_string_value(v));
    else if (json_is_integer(v))
        line_int(l, (long long)json_integer_value(v));
    else if (json_is_boolean(v))
        line_cell(l, json_is_true(v) ? "true" : "false");
    else if (!v || json_is_null(v))
        line_add(l, "\\N", 2);
    else {
        char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        line_cell(l, text);
        free(text);
    }
}

/* One key from the record as a cell. */
static void line_fast(struct line *l, const struct ctld *c, const struct job *j, enum key k)
{
    const char *s;
    char *own;
    long long v = 0;
    fast_value(c, j, k, &s, &own, &v);
    if (s)
        line_cell(l, s);
    else
        line_int(l, v);
    free(own);
}

void job_list_write_tsv(struct evbuffer *b, const struct ctld *c, const struct job *j,
                        const struct job_keys *k)
{
    struct line l;
    l.b = b;
    l.n = 0;
    json_t *whole = NULL;
    for (size_t i = 0; i < k->n; i++) {
        enum key key = k->keys[i];
        if (i)
            line_add(&l, "\t", 1);
        if (!present(j, key))
            line_add(&l, "\\N", 2);
        else if (key != K_OTHER && key != K_ARRAY)
            line_fast(&l, c, j, key);
        else {
            if (!whole)
                whole = job_to_json(c, j);
            line_json(&l, json_object_get(whole, k->names[i]));
        }
    }
    line_add(&l, "\n", 1);
    line_flush(&l);
    json_decref(whole);
}
