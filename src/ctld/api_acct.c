/*
 * api_acct: GET /v1/accounting, the job records sacct reads, straight from
 * the store (every job ever submitted, finished or not). The store selects
 * by its indexed columns; this file only turns the query string into a
 * filter, applies the node filter, which needs the record, and streams the
 * answer record by record so that a query over everything never becomes one
 * tree in memory.
 */
#include <event2/buffer.h>
#include <event2/event.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hostlist.h"
#include "common/http.h"
#include "common/json_keep.h"
#include "common/slurm_errno.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "ctld/api.h"
#include "ctld/ctld.h"
#include "ctld/store.h"

#define ACCT_MAX_LIST 10000    /* items in one filter list (SQLite binds each) */

/* A comma list of the query string, split in place. */
struct acct_list {
    char *buf;
    char **items;
    size_t n;
};

struct acct_query {
    struct acct_list ids, users, names, parts, states;
    uint64_t *idv;
    int64_t *uidv;
    int *statev;
    struct hostlist *nodes;
    struct api_viewer viewer;   /* PrivateData=jobs */
    struct store_acct_filter f;
};

static void list_split(struct acct_list *l, char *buf)
{
    l->buf = buf;
    for (char *save = NULL, *tok = buf ? strtok_r(buf, ",", &save) : NULL; tok;
         tok = strtok_r(NULL, ",", &save)) {
        l->items = xrealloc(l->items, (l->n + 1) * sizeof *l->items);
        l->items[l->n++] = tok;
    }
}

static void list_free(struct acct_list *l)
{
    free(l->buf);
    free(l->items);
}

static void query_free(struct acct_query *q)
{
    list_free(&q->ids);
    list_free(&q->users);
    list_free(&q->names);
    list_free(&q->parts);
    list_free(&q->states);
    free(q->idv);
    free(q->uidv);
    free(q->statev);
    hostlist_destroy(q->nodes);
    api_viewer_free(&q->viewer);
}

static int parse_int(const char *s, int64_t *v)
{
    char *end;
    long long x = strtoll(s, &end, 10);
    if (!*s || *end)
        return -1;
    *v = x;
    return 0;
}

/* Numbers of a list; -1 with err naming the bad item. With by_name, an
 * item that is not a number may be a user name (slurmrestd's users=). */
static int list_ints(const struct acct_list *l, const char *what, int64_t *out, bool by_name,
                     char *err, size_t errlen)
{
    for (size_t i = 0; i < l->n; i++) {
        struct passwd *pw = NULL;
        if (parse_int(l->items[i], &out[i]) == 0 && out[i] >= 0)
            continue;
        if (by_name && (pw = getpwnam(l->items[i]))) {
            out[i] = (int64_t)pw->pw_uid;
            continue;
        }
        snprintf(err, errlen, "Invalid %s: %s", what, l->items[i]);
        return -1;
    }
    return 0;
}

static int query_numbers(struct acct_query *q, char *err, size_t errlen)
{
    q->idv = xcalloc(q->ids.n + 1, sizeof *q->idv);
    q->uidv = xcalloc(q->users.n + 1, sizeof *q->uidv);
    q->statev = xcalloc(q->states.n + 1, sizeof *q->statev);
    int64_t *tmp = xcalloc(q->ids.n + 1, sizeof *tmp);
    int rc = list_ints(&q->ids, "job id", tmp, false, err, errlen);
    for (size_t i = 0; i < q->ids.n; i++)
        q->idv[i] = (uint64_t)tmp[i];
    free(tmp);
    if (rc == 0)
        rc = list_ints(&q->users, "user", q->uidv, true, err, errlen);
    /* a Slurm state herd never enters (SUSPENDED...) matches no job */
    for (size_t i = 0; i < q->states.n; i++)
        q->statev[i] = job_state_parse(q->states.items[i]);
    return rc;
}

const struct api_acct_keys api_acct_v1_keys = { "ids",    "users", "names", "partitions",
                                                 "states", "start", "end",   "nodes" };

/* The query string's value of key; NULL when absent or the key has none. */
static char *query_get(struct http_req *r, const char *key)
{
    return key ? http_query_get(r, key) : NULL;
}

/* PrivateData=jobs: a user who is no operator reads their own records
 * only (slurm.conf: it "prevents users from viewing job records belonging
 * to other users" in sacct too); a users= filter naming only others then
 * matches nothing (uid -1). uidv has room for one. A coordinator reads
 * their accounts' records too: the store is asked as for anyone, and
 * api_acct_row_visible sorts the rows. */
static void query_private(struct http_req *r, struct acct_query *q)
{
    api_viewer_init(r, &q->viewer);
    if (!q->viewer.private || q->viewer.coord)
        return;
    int64_t me = (int64_t)r->who.uid;
    bool named = q->users.n == 0;
    for (size_t i = 0; i < q->users.n; i++)
        named = named || q->uidv[i] == me;
    q->uidv[0] = named ? me : -1;
    q->users.n = 1;
}

/* The filter of the request's query string; -1 with err on a bad value. */
static int query_parse(struct http_req *r, const struct api_acct_keys *k, struct acct_query *q,
                       char *err, size_t errlen)
{
    list_split(&q->ids, query_get(r, k->ids));
    list_split(&q->users, query_get(r, k->users));
    list_split(&q->names, query_get(r, k->names));
    list_split(&q->parts, query_get(r, k->parts));
    list_split(&q->states, query_get(r, k->states));
    size_t most = q->ids.n + q->users.n + q->names.n + q->parts.n + q->states.n;
    if (most > ACCT_MAX_LIST) {
        snprintf(err, errlen, "Too many filter values (at most %d)", ACCT_MAX_LIST);
        return -1;
    }
    if (query_numbers(q, err, errlen) < 0)
        return -1;
    query_private(r, q);
    char *start = query_get(r, k->start), *end = query_get(r, k->end);
    char *nodes = query_get(r, k->nodes);
    int rc = 0;
    q->f.start = -1;
    q->f.end = ctld_now();
    if ((start && parse_int(start, &q->f.start) < 0) || (end && parse_int(end, &q->f.end) < 0)) {
        snprintf(err, errlen, "Invalid time: %s", start ? start : end);
        rc = -1;
    } else if (nodes && !(q->nodes = hostlist_create(nodes))) {
        snprintf(err, errlen, "Invalid node list: %s", nodes);
        rc = -1;
    }
    free(start);
    free(end);
    free(nodes);
    q->f.ids = q->idv;
    q->f.nids = q->ids.n;
    q->f.uids = q->uidv;
    q->f.nuids = q->users.n;
    q->f.names = (const char *const *)q->names.items;
    q->f.nnames = q->names.n;
    q->f.parts = (const char *const *)q->parts.items;
    q->f.nparts = q->parts.n;
    q->f.states = q->statev;
    q->f.nstates = q->states.n;
    return rc;
}

/* Whether the job ran on one of the wanted nodes. */
static bool ran_on(const struct hostlist *want, const char *rec)
{
    json_t *o = json_loads(rec, 0, NULL);
    json_t *a;
    size_t i;
    bool hit = false;
    json_array_foreach(json_object_get(o, "allocs"), i, a) {
        const char *node = json_string_value(json_object_get(a, "node"));
        if (node && hostlist_find(want, node) >= 0) {
            hit = true;
            break;
        }
    }
    json_decref(o);
    return hit;
}

bool api_acct_row_visible(const struct ctld *c, const struct api_viewer *v, const char *rec)
{
    if (!v || !v->private || !v->coord)
        return true;
    json_t *o = json_loads(rec, 0, NULL);
    bool sees = o && api_viewer_sees(c, v, (uid_t)json_integer_value(json_object_get(o, "uid")),
                                     json_string_value(json_object_get(json_object_get(o, "spec"),
                                                                       "account")),
                                     json_string_value(json_object_get(o, "user_name")));
    json_decref(o);
    return sees;
}

struct acct_out {
    const struct ctld *c;
    const struct api_viewer *viewer;
    struct evbuffer *buf;
    const struct hostlist *nodes;
    const char *sep;   /* before the next job: "" first, then "," or "\n" */
    const char *next_sep;
    struct store *runs;   /* sacct -D: each job's runs that a requeue ended first */
    api_acct_row_fn fn;   /* api_acct_run's caller's, instead of the buffer */
    void *fn_arg;
    struct acct_list keys;        /* &keys=: the members of each record sent */
    struct json_keep_buf line;    /* acct_emit's, reused */
};

/* api_acct_run's rows: the node filter, then the caller's. */
static int acct_filtered(uint64_t id, const char *rec, void *arg)
{
    struct acct_out *o = arg;
    if ((o->nodes && !ran_on(o->nodes, rec)) || !api_acct_row_visible(o->c, o->viewer, rec))
        return 0;
    return o->fn(id, rec, o->fn_arg);
}

/* The record is the store's JSON text, copied as it is, or only the
 * members &keys= names. The line is put together in o->line and added to
 * the answer at once: a printf and three adds to the answer per record
 * were a third of a 100,000-record query. */
static int acct_emit(uint64_t id, const char *rec, void *arg)
{
    struct acct_out *o = arg;
    if (o->nodes && !ran_on(o->nodes, rec))
        return 0;
    char head[64];
    int n = snprintf(head, sizeof head, "%s{\"job_id\":%llu,\"record\":", o->sep,
                     (unsigned long long)id);
    o->line.len = 0;
    json_keep_put(&o->line, head, (size_t)n);
    size_t len = strlen(rec);
    if (!o->keys.n || json_keep(rec, len, (const char *const *)o->keys.items, o->keys.n,
                                &o->line) < 0)
        json_keep_put(&o->line, rec, len);
    json_keep_put(&o->line, "}", 1);
    evbuffer_add(o->buf, o->line.p, o->line.len);
    o->sep = o->next_sep;
    return 0;
}

static int acct_row(uint64_t id, const char *rec, void *arg)
{
    struct acct_out *o = arg;
    if (!api_acct_row_visible(o->c, o->viewer, rec))
        return 0;
    if (o->runs)
        store_runs_each(o->runs, id, acct_emit, o);
    return acct_emit(id, rec, o);
}

/* &keys=state,spec.account: names of members, or of members of a member's
 * object; -1 with err naming the first that is none. */
static int keys_check(const struct acct_list *k, char *err, size_t errlen)
{
    if (k->n > JSON_KEEP_MAX_PATHS) {
        snprintf(err, errlen, "Too many keys (at most %d)", JSON_KEEP_MAX_PATHS);
        return -1;
    }
    for (size_t i = 0; i < k->n; i++) {
        const char *s = k->items[i];
        size_t n = strlen(s);
        if (n > 64 || strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_.") != n || *s == '.' ||
            s[n - 1] == '.' || strstr(s, "..")) {
            snprintf(err, errlen, "Invalid key: %.64s", s);
            return -1;
        }
    }
    return 0;
}

/* GET /v1/accounting[?ids=&users=&names=&partitions=&states=&start=&end=&nodes=
 * &duplicates=1&keys=]: (duplicates: a requeued job's earlier runs, state
 * REQUEUED, before its record, as sacct -D; keys: the members of each
 * record to send, "spec.account" a member of its spec, as json_keep.h)
 * {"now": T, "jobs": [{"job_id": N, "record": {...}}, ...]} by ascending id;
 * with &format=lines, {"now": T} and then each job on a line of its own
 * (what sacct reads: a record at a time, never one tree of them all). */
int api_acct_run(struct http_req *r, const struct api_acct_keys *k, api_acct_row_fn fn,
                 void *arg, int *status, char *err, size_t errlen)
{
    struct ctld *c = r->ctx;
    struct acct_query q = {0};
    if (query_parse(r, k, &q, err, errlen) < 0) {
        query_free(&q);
        *status = 400;
        return -1;
    }
    struct acct_out o = { c, &q.viewer, NULL, q.nodes, "", "", NULL, fn, arg, {0}, {0} };
    int rc = store_acct_query(c->store, &q.f, acct_filtered, &o);
    query_free(&q);
    if (rc < 0) {
        *status = 500;
        snprintf(err, errlen, "Accounting query failed");
    }
    return rc;
}

/* A large answer goes out in batches: the query is run again for the rows
 * after the last id sent, one batch a turn of the loop, and the next waits
 * while the client is behind. A query over every record then neither holds
 * the controller nor sits in its memory whole, and the client reads the
 * first rows while the controller reads the next. */
#define ACCT_BATCH 4096
#define ACCT_BACKLOG (2L << 20)   /* unsent bytes above which the next batch waits */

static const struct timeval acct_now = { 0, 0 }, acct_wait = { 0, 2000 };

struct acct_stream {
    struct acct_stream *prev, *next;   /* in c->acct_streams while it streams */
    struct ctld *c;
    struct http_req *r;
    struct acct_query q;
    struct acct_out o;
    struct event *ev;
    size_t rows;          /* what the last batch read */
    bool lines;
};

static void acct_stream_free(struct acct_stream *st)
{
    if (st->ev) {   /* it streamed: in the list */
        event_free(st->ev);
        if (st->prev)
            st->prev->next = st->next;
        else
            st->c->acct_streams = st->next;
        if (st->next)
            st->next->prev = st->prev;
    }
    query_free(&st->q);
    list_free(&st->o.keys);
    json_keep_buf_free(&st->o.line);
    if (st->o.buf)
        evbuffer_free(st->o.buf);
    free(st);
}

static int acct_batch_row(uint64_t id, const char *rec, void *arg)
{
    struct acct_stream *st = arg;
    st->q.f.after = id;
    st->rows++;
    return acct_row(id, rec, &st->o);
}

/* The next batch into st->o.buf, and the answer's end after the last;
 * true when that was the last. -1 when the store fails. */
static int acct_batch(struct acct_stream *st)
{
    st->rows = 0;
    if (store_acct_query(st->o.c->store, &st->q.f, acct_batch_row, st) < 0)
        return -1;
    if (st->rows == ACCT_BATCH)
        return 0;
    evbuffer_add(st->o.buf, st->lines ? "\n" : "]}\n", st->lines ? 1 : 3);
    return 1;
}

static void acct_next(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct acct_stream *st = arg;
    long backlog = http_stream_backlog(st->r);
    if (backlog > ACCT_BACKLOG) {
        evtimer_add(st->ev, &acct_wait);
        return;
    }
    int last = backlog < 0 ? 1 : acct_batch(st);
    if (last < 0) {
        log_warnx("accounting query: the store failed after %llu; answer cut short",
                  (unsigned long long)st->q.f.after);
        http_stream_abort(st->r);
    } else if (!http_stream_write_buffer(st->r, st->o.buf) || last) {
        http_stream_end(st->r);
    } else {
        evtimer_add(st->ev, &acct_now);
        return;
    }
    acct_stream_free(st);
}

/* The query string's &keys=, &format= and &duplicates= into st; -1 with
 * err when &keys= is bad. */
static int acct_stream_init(struct acct_stream *st, struct http_req *r, char *err,
                            size_t errlen)
{
    struct ctld *c = r->ctx;
    char *format = http_query_get(r, "format"), *dups = http_query_get(r, "duplicates");
    st->lines = format && !strcmp(format, "lines");
    st->o = (struct acct_out){ c, &st->q.viewer, evbuffer_new(), st->q.nodes,
                               st->lines ? "\n" : "", st->lines ? "\n" : ",",
                               dups && !strcmp(dups, "1") ? c->store : NULL, NULL, NULL,
                               {0}, {0} };
    free(format);
    free(dups);
    list_split(&st->o.keys, http_query_get(r, "keys"));
    return keys_check(&st->o.keys, err, errlen);
}

void api_accounting(struct http_req *r)
{
    struct ctld *c = r->ctx;
    struct acct_stream *st = xcalloc(1, sizeof *st);
    char err[256];
    st->c = c;
    st->r = r;
    if (query_parse(r, &api_acct_v1_keys, &st->q, err, sizeof err) < 0 ||
        acct_stream_init(st, r, err, sizeof err) < 0) {
        http_reply_error(r, 400, SLURM_ERROR, "%s", err);
        acct_stream_free(st);
        return;
    }
    evbuffer_add_printf(st->o.buf, st->lines ? "{\"now\":%lld}" : "{\"now\":%lld,\"jobs\":[",
                        (long long)ctld_now());
    st->q.f.limit = ACCT_BATCH;
    st->q.f.plan = store_acct_plan(c->store, &st->q.f);
    int last = acct_batch(st);
    if (last < 0) {
        http_reply_error(r, 500, SLURM_ERROR, "Accounting query failed");
    } else if (last) {
        http_reply_buffer(r, 200, st->o.buf);   /* one batch: a plain answer */
    } else if (http_stream_start(r, "application/json") &&
               http_stream_write_buffer(r, st->o.buf)) {
        st->ev = evtimer_new(c->base, acct_next, st);
        evtimer_add(st->ev, &acct_now);
        st->next = c->acct_streams;
        if (st->next)
            st->next->prev = st;
        c->acct_streams = st;
        return;
    } else {
        http_stream_end(r);
    }
    acct_stream_free(st);
}

void api_acct_streams_free(struct ctld *c)
{
    while (c->acct_streams) {
        http_stream_abort(c->acct_streams->r);   /* the answer cut short, its connection closed */
        acct_stream_free(c->acct_streams);
    }
}
