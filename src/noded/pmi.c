/*
 * pmi: PMI-1 and PMI-2 served to one step's tasks on this node. See pmi.h.
 */
#include "noded/pmi.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "common/log.h"
#include "common/xmalloc.h"

#define MAX_MSG 65536          /* a longer message is garbage: the task is cut off */
#define MAX_PENDING (1 << 20)  /* answers a task does not read */
#define MAX_PAIRS 16
#define VALLEN_MAX 1024

struct pconn {
    struct pmi *p;
    struct bufferevent *bev;
    int rank;
    int version;               /* 1 until a PMI-2 init */
    bool in_fence;
    char *wait_key;            /* PMI-2 info-getnodeattr wait=TRUE, not put yet */
};

struct pmi {
    struct pmi_info info;
    struct pmi_hooks hooks;
    struct event_base *base;
    struct pconn *conns;
    json_t *kvs;               /* every node's puts, as of the last fence */
    json_t *puts;              /* this node's since then */
    json_t *nodeattr;          /* PMI-2 node attributes: this node only */
    int in_fence;
};

struct msg {
    char *key[MAX_PAIRS], *val[MAX_PAIRS];
    int n;
};

static const char *msg_get(const struct msg *m, const char *k)
{
    for (int i = 0; i < m->n; i++)
        if (strcmp(m->key[i], k) == 0)
            return m->val[i];
    return NULL;
}

/* PMI-1: "cmd=put kvsname=a key=b value=c", split in place. */
static void parse_v1(char *s, struct msg *m)
{
    m->n = 0;
    for (char *save = NULL, *tok = strtok_r(s, " \n", &save); tok && m->n < MAX_PAIRS;
         tok = strtok_r(NULL, " \n", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq)
            continue;
        *eq = '\0';
        m->key[m->n] = tok;
        m->val[m->n++] = eq + 1;
    }
}

/* PMI-2: "cmd=kvs-put;key=b;value=c;" where ";;" stands for a ';'. */
static void parse_v2(char *s, struct msg *m)
{
    m->n = 0;
    char *w = s, *start = s;
    for (char *r = s; *r && m->n < MAX_PAIRS; r++) {
        if (*r == ';' && r[1] == ';') {
            *w++ = ';';
            r++;
            continue;
        }
        if (*r != ';') {
            *w++ = *r;
            continue;
        }
        *w++ = '\0';
        char *eq = strchr(start, '=');
        if (eq) {
            *eq = '\0';
            m->key[m->n] = start;
            m->val[m->n++] = eq + 1;
        }
        start = w;
    }
}

static void send_v1(struct pconn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void send_v1(struct pconn *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    evbuffer_add_vprintf(bufferevent_get_output(c->bev), fmt, ap);
    va_end(ap);
}

/* PMI-2 answers: pairs, a value's ';' doubled, behind a 6-byte length. */
static void send_v2(struct pconn *c, const char *const *kv, int npairs)
{
    struct evbuffer *b = evbuffer_new();
    for (int i = 0; i < npairs; i++) {
        evbuffer_add_printf(b, "%s=", kv[2 * i]);
        for (const char *v = kv[2 * i + 1]; *v; v++)
            evbuffer_add(b, *v == ';' ? ";;" : v, *v == ';' ? 2 : 1);
        evbuffer_add(b, ";", 1);
    }
    char head[8];
    snprintf(head, sizeof head, "%-6zu", evbuffer_get_length(b));
    struct evbuffer *out = bufferevent_get_output(c->bev);
    evbuffer_add(out, head, 6);
    evbuffer_add_buffer(out, b);
    evbuffer_free(b);
}

static const char *lookup(struct pmi *p, json_t *where, const char *key)
{
    const char *v = json_string_value(json_object_get(where, key));
    if (!v && where == p->kvs)
        v = json_string_value(json_object_get(p->puts, key));
    return v;
}

static bool put(json_t *where, const char *key, const char *val)
{
    if (!key || !val || strlen(val) > VALLEN_MAX)
        return false;
    json_object_set_new(where, key, json_string(val));
    return true;
}

/* ---- fences ---- */

static void fence_enter(struct pconn *c)
{
    struct pmi *p = c->p;
    if (c->in_fence)
        return;
    c->in_fence = true;
    if (++p->in_fence < p->info.ntasks)
        return;
    char *s = json_dumps(p->puts, JSON_COMPACT);
    json_object_clear(p->puts);
    p->hooks.fence_out(p->hooks.arg, s, strlen(s));
    free(s);
}

void pmi_fence_in(struct pmi *p, json_t *kvs)
{
    if (p->in_fence < p->info.ntasks)
        return;    /* no fence of ours is open: a stray or repeated answer */
    json_object_update(p->kvs, kvs);
    p->in_fence = 0;
    for (int i = 0; i < p->info.ntasks; i++) {
        struct pconn *c = &p->conns[i];
        if (!c->in_fence || !c->bev)
            continue;
        c->in_fence = false;
        if (c->version == 2)
            send_v2(c, (const char *const[]){ "cmd", "kvs-fence-response", "rc", "0" }, 2);
        else
            send_v1(c, "cmd=barrier_out rc=0\n");
    }
}

/* ---- PMI-1 ---- */

static void handle_v1(struct pconn *c, struct msg *m)
{
    struct pmi *p = c->p;
    const char *cmd = msg_get(m, "cmd"), *key = msg_get(m, "key");
    if (!cmd)
        cmd = msg_get(m, "mcmd") ? "spawn" : "";
    if (strcmp(cmd, "init") == 0) {
        const char *v = msg_get(m, "pmi_version");
        c->version = v && atoi(v) == 2 ? 2 : 1;
        send_v1(c, "cmd=response_to_init pmi_version=%d pmi_subversion=%d rc=0\n", c->version,
                c->version == 2 ? 0 : 1);
    } else if (strcmp(cmd, "initack") == 0) {
        send_v1(c, "cmd=initack rc=0\ncmd=set size=%d\ncmd=set rank=%d\ncmd=set debug=0\n",
                p->info.size, c->rank);
    } else if (strcmp(cmd, "get_maxes") == 0) {
        send_v1(c, "cmd=maxes rc=0 kvsname_max=256 keylen_max=256 vallen_max=%d\n", VALLEN_MAX);
    } else if (strcmp(cmd, "get_appnum") == 0) {
        send_v1(c, "cmd=appnum rc=0 appnum=0\n");
    } else if (strcmp(cmd, "get_my_kvsname") == 0) {
        send_v1(c, "cmd=my_kvsname rc=0 kvsname=%s\n", p->info.jobid);
    } else if (strcmp(cmd, "get_universe_size") == 0) {
        send_v1(c, "cmd=universe_size rc=0 size=%d\n", p->info.size);
    } else if (strcmp(cmd, "put") == 0) {
        bool ok = put(p->puts, key, msg_get(m, "value"));
        send_v1(c, "cmd=put_result rc=%d msg=%s\n", ok ? 0 : -1, ok ? "success" : "bad_put");
    } else if (strcmp(cmd, "get") == 0) {
        const char *v = key ? lookup(p, p->kvs, key) : NULL;
        if (v)
            send_v1(c, "cmd=get_result rc=0 msg=success value=%s\n", v);
        else
            send_v1(c, "cmd=get_result rc=-1 msg=key_%s_not_found value=unknown\n",
                    key ? key : "");
    } else if (strcmp(cmd, "barrier_in") == 0) {
        fence_enter(c);
    } else if (strcmp(cmd, "finalize") == 0) {
        send_v1(c, "cmd=finalize_ack rc=0\n");
    } else if (strcmp(cmd, "abort") == 0) {
        const char *code = msg_get(m, "exitcode");
        p->hooks.abort(p->hooks.arg, c->rank, code ? atoi(code) : 1, "PMI_Abort");
    } else {
        send_v1(c, "cmd=%s_result rc=-1 msg=unsupported_command\n", cmd);
    }
}

/* ---- PMI-2 ---- */

#define SEND2(c, ...)                                                                  \
    send_v2((c), (const char *const[]){ __VA_ARGS__ },                                  \
            (int)(sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(char *) / 2))

static void get_attr(struct pconn *c, const char *resp, const char *v)
{
    if (v)
        SEND2(c, "cmd", resp, "found", "TRUE", "value", v, "rc", "0");
    else
        SEND2(c, "cmd", resp, "found", "FALSE", "rc", "0");
}

static void wake_waiters(struct pmi *p, const char *key)
{
    for (int i = 0; i < p->info.ntasks; i++) {
        struct pconn *c = &p->conns[i];
        if (c->wait_key && strcmp(c->wait_key, key) == 0) {
            get_attr(c, "info-getnodeattr-response", lookup(p, p->nodeattr, key));
            xfree(c->wait_key);
        }
    }
}

static void handle_v2(struct pconn *c, struct msg *m)
{
    struct pmi *p = c->p;
    const char *cmd = msg_get(m, "cmd"), *key = msg_get(m, "key");
    char num[3][16];
    if (!cmd)
        cmd = "";
    if (strcmp(cmd, "fullinit") == 0) {
        snprintf(num[0], sizeof num[0], "%d", c->rank);
        snprintf(num[1], sizeof num[1], "%d", p->info.size);
        SEND2(c, "cmd", "fullinit-response", "pmi-version", "2", "pmi-subversion", "0", "rank",
              num[0], "size", num[1], "appnum", "0", "spawner-jobid", "", "debugged", "FALSE",
              "pmiverbose", "FALSE", "rc", "0");
    } else if (strcmp(cmd, "job-getid") == 0) {
        SEND2(c, "cmd", "job-getid-response", "jobid", p->info.jobid, "rc", "0");
    } else if (strcmp(cmd, "info-getjobattr") == 0) {
        bool map = key && strcmp(key, "PMI_process_mapping") == 0;
        get_attr(c, "info-getjobattr-response", map ? p->info.mapping : NULL);
    } else if (strcmp(cmd, "kvs-put") == 0) {
        bool ok = put(p->puts, key, msg_get(m, "value"));
        SEND2(c, "cmd", "kvs-put-response", "rc", ok ? "0" : "-1");
    } else if (strcmp(cmd, "kvs-get") == 0) {
        get_attr(c, "kvs-get-response", key ? lookup(p, p->kvs, key) : NULL);
    } else if (strcmp(cmd, "kvs-fence") == 0) {
        fence_enter(c);
    } else if (strcmp(cmd, "info-putnodeattr") == 0) {
        bool ok = put(p->nodeattr, key, msg_get(m, "value"));
        SEND2(c, "cmd", "info-putnodeattr-response", "rc", ok ? "0" : "-1");
        if (ok)
            wake_waiters(p, key);
    } else if (strcmp(cmd, "info-getnodeattr") == 0) {
        const char *wait = msg_get(m, "wait"), *v = key ? lookup(p, p->nodeattr, key) : NULL;
        if (!v && key && wait && strcmp(wait, "TRUE") == 0 && !c->wait_key)
            c->wait_key = xstrdup(key);
        else
            get_attr(c, "info-getnodeattr-response", v);
    } else if (strcmp(cmd, "finalize") == 0) {
        SEND2(c, "cmd", "finalize-response", "rc", "0");
    } else if (strcmp(cmd, "abort") == 0) {
        const char *why = msg_get(m, "message");
        p->hooks.abort(p->hooks.arg, c->rank, 1, why ? why : "PMI2_Abort");
    } else {
        char resp[64];
        snprintf(resp, sizeof resp, "%.40s-response", cmd);
        SEND2(c, "cmd", resp, "rc", "-1", "errmsg", "unsupported command");
    }
}

/* ---- the sockets ---- */

static void conn_close(struct pconn *c)
{
    if (!c->bev)
        return;
    bufferevent_free(c->bev);
    c->bev = NULL;
    xfree(c->wait_key);
}

/* One whole message off the input, handled; false when none is complete. */
static bool next_message(struct pconn *c, struct evbuffer *in)
{
    struct msg m;
    if (c->version == 2) {
        char head[7] = "";
        if (evbuffer_copyout(in, head, 6) < 6)
            return false;
        char *end;
        long len = strtol(head, &end, 10);
        if (len <= 0 || len > MAX_MSG) {
            log_warnx("pmi: rank %d: bad PMI-2 length '%.6s'; closing", c->rank, head);
            conn_close(c);
            return false;
        }
        if (evbuffer_get_length(in) < (size_t)len + 6)
            return false;
        char *s = xmalloc((size_t)len + 1);
        evbuffer_drain(in, 6);
        evbuffer_remove(in, s, (size_t)len);
        s[len] = '\0';
        parse_v2(s, &m);
        handle_v2(c, &m);
        free(s);
        return true;
    }
    size_t n;
    char *line = evbuffer_readln(in, &n, EVBUFFER_EOL_LF);
    if (!line) {
        if (evbuffer_get_length(in) > MAX_MSG) {
            log_warnx("pmi: rank %d: message over %d bytes; closing", c->rank, MAX_MSG);
            conn_close(c);
        }
        return false;
    }
    parse_v1(line, &m);
    handle_v1(c, &m);
    free(line);
    return true;
}

static void on_read(struct bufferevent *bev, void *arg)
{
    struct pconn *c = arg;
    while (c->bev && next_message(c, bufferevent_get_input(bev)))
        ;
    if (c->bev && evbuffer_get_length(bufferevent_get_output(c->bev)) > MAX_PENDING) {
        log_warnx("pmi: rank %d reads none of its answers; closing", c->rank);
        conn_close(c);
    }
}

static void on_event(struct bufferevent *bev, short what, void *arg)
{
    (void)bev;
    if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
        conn_close(arg);
}

int pmi_task_socket(struct pmi *p, int local)
{
    int sv[2];
    if (local < 0 || local >= p->info.ntasks || p->conns[local].bev) {
        errno = EINVAL;
        return -1;
    }
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
        return -1;
    struct pconn *c = &p->conns[local];
    evutil_make_socket_nonblocking(sv[0]);
    c->bev = bufferevent_socket_new(p->base, sv[0], BEV_OPT_CLOSE_ON_FREE);
    bufferevent_setcb(c->bev, on_read, NULL, on_event, c);
    bufferevent_enable(c->bev, EV_READ);
    return sv[1];
}

struct pmi *pmi_new(struct event_base *base, const struct pmi_info *info,
                    struct pmi_hooks hooks)
{
    struct pmi *p = xcalloc(1, sizeof *p);
    p->base = base;
    p->info = *info;
    p->info.jobid = xstrdup(info->jobid);
    p->info.mapping = xstrdup(info->mapping);
    p->hooks = hooks;
    p->conns = xcalloc((size_t)info->ntasks + 1, sizeof *p->conns);
    for (int i = 0; i < info->ntasks; i++)
        p->conns[i] = (struct pconn){ .p = p, .rank = info->first_rank + i, .version = 1 };
    p->kvs = json_object();
    p->puts = json_object();
    p->nodeattr = json_object();
    return p;
}

void pmi_free(struct pmi *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->info.ntasks; i++)
        conn_close(&p->conns[i]);
    free(p->conns);
    free((char *)p->info.jobid);
    free((char *)p->info.mapping);
    json_decref(p->kvs);
    json_decref(p->puts);
    json_decref(p->nodeattr);
    free(p);
}

char *pmi_mapping(const int *counts, int nnodes)
{
    struct evbuffer *b = evbuffer_new();
    evbuffer_add_printf(b, "(vector");
    for (int i = 0; i < nnodes;) {
        int j = i;
        while (j < nnodes && counts[j] == counts[i])
            j++;
        evbuffer_add_printf(b, ",(%d,%d,%d)", i, j - i, counts[i]);
        i = j;
    }
    evbuffer_add(b, ")", 2);
    char *s = xstrdup((const char *)evbuffer_pullup(b, -1));
    evbuffer_free(b);
    return s;
}
