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
#include "common/xmalloc.h"

enum key {
    K_OTHER, K_JOB_ID, K_USER_ID, K_GROUP_ID, K_USER_NAME, K_NAME, K_PARTITION, K_STATE,
    K_REASON, K_SUBMIT, K_START, K_END, K_TIME_LIMIT, K_PRIORITY, K_NUM_NODES, K_NODE_LIST,
    K_START_ESTIMATE, K_ARRAY,
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
 * backslashes and control characters need escaping. */
static void put_str(struct evbuffer *b, const char *s)
{
    evbuffer_add(b, "\"", 1);
    for (const char *p = s; *p; p++) {
        unsigned char ch = (unsigned char)*p;
        if (ch == '"' || ch == '\\')
            evbuffer_add_printf(b, "\\%c", ch);
        else if (ch < 0x20)
            evbuffer_add_printf(b, "\\u%04x", ch);
        else
            evbuffer_add(b, p, 1);
    }
    evbuffer_add(b, "\"", 1);
}

/* One key written from the record; false when it is not one of them. */
static bool put_fast(struct evbuffer *b, const struct ctld *c, const struct job *j,
                     enum key k)
{
    long long v;
    switch (k) {
    case K_USER_NAME: put_str(b, j->user_name); return true;
    case K_NAME: put_str(b, j->name); return true;
    case K_PARTITION: put_str(b, c->conf->parts[j->part].name); return true;
    case K_STATE: put_str(b, job_state_name(j->state)); return true;
    case K_REASON: put_str(b, job_reason_name(c, j)); return true;
    case K_NODE_LIST: {
        char *nl = job_node_list(c, j);
        put_str(b, nl ? nl : "");
        free(nl);
        return true;
    }
    case K_JOB_ID: v = (long long)j->id; break;
    case K_USER_ID: v = (long long)j->uid; break;
    case K_GROUP_ID: v = (long long)j->gid; break;
    case K_SUBMIT: v = (long long)j->submit_time; break;
    case K_START: v = (long long)j->start_time; break;
    case K_END: v = (long long)j->end_time; break;
    case K_TIME_LIMIT: v = (long long)j->time_limit; break;
    case K_START_ESTIMATE: v = (long long)j->start_estimate; break;
    case K_PRIORITY: v = (long long)(j->priority ? j->priority : 4294901760ULL - j->id); break;
    case K_NUM_NODES: v = j->nallocs ? (long long)j->nallocs : j->req.min_nodes; break;
    default: return false;
    }
    evbuffer_add_printf(b, "%lld", v);
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
