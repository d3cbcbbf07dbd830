#include "common/http_guard.h"

#include <arpa/inet.h>
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>

#include "common/log.h"
#include "common/xmalloc.h"

/* Defaults when slurm.conf says nothing. Connections: Slurm's conmgr keeps
 * 150 by default with its threads; one event loop holds more, but no more
 * than the descriptors it may open. Bodies in flight: 16 job scripts of
 * Slurm's 4 MB max_script_size at once. */
#define DEF_MAX_CONNS      1024
#define DEF_PER_PEER       256
#define DEF_IN_FLIGHT      (64 * 1024 * 1024)
#define FD_RESERVE         64

enum gstate {
    G_HEAD,        /* reading a request's header block */
    G_BODY,        /* counting its body's bytes */
    G_CHECK,       /* its credential is being checked: its body is not read */
};

enum verdict { V_PENDING, V_VALID, V_INVALID, V_BUSY };

struct guard;

/* One credential check in flight. It outlives its guard when the
 * connection goes first: the answer then finds no guard and is dropped. */
struct check {
    struct guard *g;
};

struct guard {
    struct http_guards *gs;
    struct bufferevent *bev;       /* evhttp's connection's */
    struct evbuffer_cb_entry *watch;
    struct event *admit;
    struct guard *prev, *next;
    char peer[64];                 /* "ip:ADDR" or "uid:N" */
    bool held;                     /* our reference, until guard_attach */
    bool tcp, admitted, refused;
    enum gstate state;
    time_t waiting_since;          /* admitted, or began its current header block */
    char *head;                    /* the header block so far (G_HEAD) */
    size_t head_len, head_cap;
    size_t body_left;
    size_t reserved;               /* body bytes counted in gs->in_flight */
    /* G_CHECK: the body's length, what was read after the header block
     * (held back from evhttp), the check and its answer */
    size_t want;
    unsigned check_req;
    struct evbuffer *withheld;
    struct check *check;
    enum verdict verdict;
    struct event *wake;            /* acts on the answer, from the loop */
    /* requests counted as their header blocks end and as the server takes
     * them: the proven caller goes with request number proven_req */
    unsigned nheads, ntaken, proven_req;
    bool proven;
    struct auth_id who;
};

struct http_guards {
    struct http_limits lim;
    struct guard *list;
    int nlive;                     /* admitted, not refused */
    size_t in_flight;
    time_t last_log;
    unsigned refused_since_log;
    char *munge_socket;
    int auth_timeout_ms;
};

/* The parts of a request's header block the caps depend on. */
struct head {
    size_t len;                    /* bytes up to and with the empty line */
    bool has_body_len, auth_ok, bad;
    bool may_have_body;            /* a method evhttp reads a body for */
    size_t body_len;
    const char *cred;              /* the credential, in the header block */
    size_t cred_len;
    const char *why;               /* when bad */
};

static time_t loop_now(const struct guard *g)
{
    struct timeval tv;
    event_base_gettimeofday_cached(bufferevent_get_base(g->bev), &tv);
    return tv.tv_sec;
}

/* At most one line a second: the loop's cached time is fine grained enough,
 * and the daemon's clock stays the only reader of the system's. */
static void guard_log(struct http_guards *gs, const struct guard *g, const char *why)
{
    struct timeval tv;
    event_base_gettimeofday_cached(bufferevent_get_base(g->bev), &tv);
    time_t now = tv.tv_sec;
    gs->refused_since_log++;
    if (now == gs->last_log)
        return;
    log_warnx("refused a connection from %s: %s (%u refused since the last such message)",
              g->peer[0] ? g->peer : "an unknown peer", why, gs->refused_since_log);
    gs->last_log = now;
    gs->refused_since_log = 0;
}

/* Answers (best effort: the socket buffer takes it or not), drops what
 * evhttp has not read yet and closes the socket's reading side, so that
 * evhttp sees the end and frees the connection; the rest of what the peer
 * sends is never read. */
static void guard_refuse(struct guard *g, int status, const char *reason, const char *msg)
{
    if (g->refused)
        return;
    g->refused = true;
    if (g->admitted)
        g->gs->nlive--;
    free(g->head);
    g->head = NULL;
    g->head_len = g->head_cap = 0;
    evbuffer_drain(g->withheld, evbuffer_get_length(g->withheld));
    guard_log(g->gs, g, msg);
    struct evbuffer *in = bufferevent_get_input(g->bev);
    evbuffer_drain(in, evbuffer_get_length(in));
    int fd = bufferevent_getfd(g->bev);
    if (fd < 0)
        return;
    char body[256], resp[512];
    int blen = snprintf(body, sizeof body, "{\"error\":\"%s\",\"code\":0}\n", msg);
    int n = snprintf(resp, sizeof resp, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\n"
                     "Content-Length: %d\r\nConnection: close\r\n\r\n%s",
                     status, reason, blen, body);
    if (n > 0 && (size_t)n < sizeof resp)
        (void)!send(fd, resp, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
    shutdown(fd, SHUT_RDWR);
}

static bool cred_well_formed(const char *v, size_t n)
{
    /* "Munge MUNGE:<base64>:" as auth_munge_encode writes it */
    if (n < 14 || strncmp(v, "Munge MUNGE:", 12) != 0 || v[n - 1] != ':')
        return false;
    for (size_t i = 12; i < n - 1; i++)
        if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=",
                    v[i]) || !v[i])
            return false;
    return true;
}

static bool parse_len(const char *v, size_t n, size_t *out)
{
    size_t x = 0;
    if (n == 0 || n > 12)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (v[i] < '0' || v[i] > '9')
            return false;
        x = x * 10 + (size_t)(v[i] - '0');
    }
    *out = x;
    return true;
}

/* One header line (no line end). Refuses what evhttp could read otherwise
 * than this does: folded lines, a second length, chunked bodies. */
static void head_line(struct head *h, const char *l, size_t n)
{
    const char *colon = memchr(l, ':', n);
    if (l[0] == ' ' || l[0] == '\t' || !colon) {
        h->bad = true;
        h->why = "malformed header";
        return;
    }
    size_t klen = (size_t)(colon - l);
    const char *v = colon + 1;
    size_t vlen = n - klen - 1;
    while (vlen && (*v == ' ' || *v == '\t'))
        v++, vlen--;
    while (vlen && (v[vlen - 1] == ' ' || v[vlen - 1] == '\t'))
        vlen--;
    if (klen == 14 && strncasecmp(l, "Content-Length", 14) == 0) {
        if (h->has_body_len || !parse_len(v, vlen, &h->body_len)) {
            h->bad = true;
            h->why = "invalid Content-Length";
        }
        h->has_body_len = true;
    } else if (klen == 17 && strncasecmp(l, "Transfer-Encoding", 17) == 0) {
        h->bad = true;
        h->why = "chunked request bodies are not accepted";
    } else if (klen == 13 && strncasecmp(l, "Authorization", 13) == 0) {
        h->auth_ok = cred_well_formed(v, vlen);
        h->cred = v + 6;           /* after "Munge " */
        h->cred_len = h->auth_ok ? vlen - 6 : 0;
    }
}

/* Lines end in LF or CRLF, as evhttp reads them. false: not complete yet. */
static bool head_parse(const char *d, size_t n, struct head *h)
{
    size_t pos = 0;
    bool first = true;
    while (pos < n) {
        const char *nl = memchr(d + pos, '\n', n - pos);
        if (!nl)
            return false;
        size_t end = (size_t)(nl - d);
        size_t llen = end - pos;
        if (llen && d[end - 1] == '\r')
            llen--;
        if (llen == 0) {
            h->len = end + 1;
            return true;
        }
        if (first)
            /* evhttp (2.1) reads no body after these: what follows their
             * header block is the next request */
            h->may_have_body = !(llen > 5 && strncmp(d + pos, "HEAD ", 5) == 0) &&
                               !(llen > 6 && strncmp(d + pos, "TRACE ", 6) == 0);
        else if (!h->bad)
            head_line(h, d + pos, llen);
        first = false;
        pos = end + 1;
    }
    return false;
}

/* Counts the body's bytes against max_in_flight before it is read; false
 * when it is refused for them. */
static bool guard_reserve(struct guard *g, size_t body)
{
    struct http_guards *gs = g->gs;
    if (gs->in_flight + body > gs->lim.max_in_flight) {
        guard_refuse(g, 503, "Service Unavailable", "too many request bodies in flight");
        return false;
    }
    gs->in_flight += body;
    g->reserved += body;
    g->body_left = body;
    g->state = G_BODY;
    return true;
}

/* Moves the input's last n bytes to g->withheld, where evhttp does not see
 * them. The watch is off meanwhile: these moves are not the peer's bytes. */
static void guard_hold(struct guard *g, size_t n)
{
    struct evbuffer *in = bufferevent_get_input(g->bev);
    size_t len = evbuffer_get_length(in);
    struct evbuffer *front = evbuffer_new();
    if (!front)
        fatalx("out of memory");
    evbuffer_cb_clear_flags(in, g->watch, EVBUFFER_CB_ENABLED);
    evbuffer_remove_buffer(in, front, len - (n < len ? n : len));
    evbuffer_add_buffer(g->withheld, in);
    evbuffer_prepend_buffer(in, front);
    evbuffer_cb_set_flags(in, g->watch, EVBUFFER_CB_ENABLED);
    evbuffer_free(front);
}

/* The credential is valid: the body goes through, the bytes held back
 * first (the watch counts them, and stops at a next request's header block
 * again if that one needs a check too), then the socket. */
static void guard_resume(struct guard *g)
{
    struct evbuffer *in = bufferevent_get_input(g->bev);
    g->proven = true;
    g->proven_req = g->check_req;
    bufferevent_enable(g->bev, EV_READ);
    evbuffer_prepend_buffer(in, g->withheld);
    /* evhttp reads what came already now: no socket event will tell it;
     * it may free the connection, and the guard with it */
    if (!g->refused && evbuffer_get_length(in))
        bufferevent_trigger(g->bev, EV_READ, BEV_TRIG_IGNORE_WATERMARKS);
}

/* Acts on the check's answer once evhttp has read the request's header
 * block, so that evhttp waits for the body (or the end) when it comes, and
 * its answers to earlier requests on the connection are sent first. Until
 * then the input holds that block and the watch calls again. */
static void guard_settle(struct guard *g)
{
    if (g->state != G_CHECK || g->refused || g->verdict == V_PENDING)
        return;
    if (evbuffer_get_length(bufferevent_get_input(g->bev)))
        return;
    if (g->verdict == V_VALID && guard_reserve(g, g->want)) {
        guard_resume(g);
        return;
    }
    if (g->verdict == V_BUSY)
        guard_refuse(g, 503, "Service Unavailable",
                     "Protocol authentication error: MUNGE did not answer");
    else if (g->verdict == V_INVALID)
        guard_refuse(g, 401, "Unauthorized", "Authentication failure");
    bufferevent_enable(g->bev, EV_READ);     /* evhttp reads the end */
}

static void guard_wake(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    guard_settle(arg);
}

static void checked(const struct auth_result *res, void *arg)
{
    struct check *c = arg;
    struct guard *g = c->g;
    free(c);
    if (!g)
        return;                    /* the connection went meanwhile */
    g->check = NULL;
    if (res->rc == 0) {
        g->verdict = V_VALID;
        g->who = res->who;
    } else {
        g->verdict = res->busy ? V_BUSY : V_INVALID;
    }
    guard_settle(g);
}

/* A large body's credential is checked before any of the body is read: the
 * socket is not read until munged answers (guard_settle), and what came
 * with the header block is held back (guard_watch). */
static void guard_check(struct guard *g, const char *cred, size_t len, size_t body)
{
    struct http_guards *gs = g->gs;
    char *c = xstrndup(cred, len);
    g->state = G_CHECK;
    g->want = body;
    g->verdict = V_PENDING;
    g->check_req = g->nheads - 1;
    g->check = xcalloc(1, sizeof *g->check);
    g->check->g = g;
    bufferevent_disable(g->bev, EV_READ);
    auth_munge_decode_async(bufferevent_get_base(g->bev), gs->munge_socket, c,
                            gs->auth_timeout_ms, checked, g->check);
    free(c);
}

/* A complete header block: decides what its request may bring. */
static void guard_head(struct guard *g, const struct head *h)
{
    struct http_guards *gs = g->gs;
    size_t body = h->has_body_len && h->may_have_body ? h->body_len : 0;
    bool authed = !g->tcp || h->auth_ok;
    g->nheads++;
    if (h->bad)
        guard_refuse(g, 400, "Bad Request", h->why);
    else if (!authed && body > HTTP_GUARD_UNAUTH_BODY)
        guard_refuse(g, 401, "Unauthorized", "Authentication failure");
    else if (body > gs->lim.max_body)
        /* Slurm's words for what is too long to take (ESLURM_PATHNAME_TOO_LONG) */
        guard_refuse(g, 413, "Payload Too Large",
                     "Pathname of a file, directory or other parameter too long");
    else if (g->tcp && body > HTTP_GUARD_UNAUTH_BODY)
        guard_check(g, h->cred, h->cred_len, body);
    else if (body)
        guard_reserve(g, body);
    /* h points into the block: freed last */
    free(g->head);
    g->head = NULL;
    g->head_len = g->head_cap = 0;
}

/* Header bytes: kept until the empty line that ends the block. Returns
 * how many of the n bytes belong to the header block. */
static size_t guard_head_bytes(struct guard *g, const char *p, size_t n)
{
    size_t i = 0;
    if (n && g->head_len == 0 && g->nheads)
        g->waiting_since = loop_now(g);
    while (i < n) {
        if (g->head_len == g->head_cap) {
            if (g->head_cap == HTTP_GUARD_HEADER) {
                guard_refuse(g, 431, "Request Header Fields Too Large", "header too large");
                return n;
            }
            /* grown as it comes: most header blocks are a few hundred bytes */
            g->head_cap = g->head_cap ? 4 * g->head_cap : 1024;
            if (g->head_cap > HTTP_GUARD_HEADER)
                g->head_cap = HTTP_GUARD_HEADER;
            g->head = xrealloc(g->head, g->head_cap);
        }
        char c = p[i++];
        g->head[g->head_len++] = c;
        if (c != '\n')
            continue;
        size_t l = g->head_len;
        /* an empty line ("\n" or "\r\n" right after the previous one) */
        if (l == 1 || g->head[l - 2] == '\n' || (l >= 3 && g->head[l - 2] == '\r' &&
                                                  g->head[l - 3] == '\n') ||
            (l == 2 && g->head[0] == '\r')) {
            struct head h = { 0 };
            head_parse(g->head, g->head_len, &h);
            guard_head(g, &h);
            return i;
        }
    }
    return i;
}

/* While a credential is checked: bytes read (evhttp let the socket be read
 * to finish an earlier request) are held back too and the socket left
 * unread again; once evhttp has read the header block, the answer, if in,
 * is acted on (from the loop: evhttp is in the middle of reading here). */
static void guard_checking(struct guard *g, struct evbuffer *buf,
                           const struct evbuffer_cb_info *info)
{
    if (info->n_added) {
        guard_hold(g, info->n_added);
        bufferevent_disable(g->bev, EV_READ);
    }
    if (info->n_deleted && g->verdict != V_PENDING && evbuffer_get_length(buf) == 0)
        event_active(g->wake, EV_TIMEOUT, 1);
}

/* Bytes the socket has just read, before evhttp looks at them: header
 * bytes are copied and parsed, body bytes only counted. */
static void guard_watch(struct evbuffer *buf, const struct evbuffer_cb_info *info, void *arg)
{
    struct guard *g = arg;
    if (g->refused) {
        /* what the socket still gives before its end (bytes queued before
         * the shutdown) is dropped, not left for evhttp to read */
        if (info->n_added)
            evbuffer_drain(buf, evbuffer_get_length(buf));
        return;
    }
    if (g->state == G_CHECK) {
        guard_checking(g, buf, info);
        return;
    }
    if (!info->n_added)
        return;
    size_t len = evbuffer_get_length(buf);
    size_t n = info->n_added <= len ? info->n_added : len;
    struct evbuffer_ptr pos;
    if (evbuffer_ptr_set(buf, &pos, len - n, EVBUFFER_PTR_SET) < 0)
        return;
    char chunk[4096];
    while (n && !g->refused) {
        size_t used;
        if (g->state == G_BODY) {
            used = n < g->body_left ? n : g->body_left;
            g->body_left -= used;
            if (g->body_left == 0)
                g->state = G_HEAD;
        } else {
            size_t take = n < sizeof chunk ? n : sizeof chunk;
            if (evbuffer_copyout_from(buf, &pos, chunk, take) != (ev_ssize_t)take)
                return;
            used = guard_head_bytes(g, chunk, take);
        }
        n -= used;
        if (g->state == G_CHECK) {
            if (n)
                guard_hold(g, n);     /* the body waits for the credential */
            return;
        }
        if (n && !g->refused && evbuffer_ptr_set(buf, &pos, used, EVBUFFER_PTR_ADD) < 0)
            return;
    }
}

/* The peer's key: "ip:ADDR" on TCP, "uid:N" on the Unix socket. */
static bool guard_peer(struct guard *g, int fd)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
        return false;
    if (ss.ss_family == AF_UNIX) {
        struct ucred uc;
        socklen_t ulen = sizeof uc;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &ulen) < 0)
            return false;
        snprintf(g->peer, sizeof g->peer, "uid:%u", (unsigned)uc.uid);
        return true;
    }
    g->tcp = true;
    len = sizeof ss;
    char ip[INET6_ADDRSTRLEN] = "";
    if (getpeername(fd, (struct sockaddr *)&ss, &len) < 0)
        return false;
    if (ss.ss_family == AF_INET)
        inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, ip, sizeof ip);
    else if (ss.ss_family == AF_INET6)
        inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, ip, sizeof ip);
    snprintf(g->peer, sizeof g->peer, "ip:%s", ip);
    return true;
}

static void guard_free(struct guard *g)
{
    struct http_guards *gs = g->gs;
    event_free(g->admit);
    gs->in_flight -= g->reserved;
    if (g->admitted && !g->refused)
        gs->nlive--;
    if (g->prev)
        g->prev->next = g->next;
    else
        gs->list = g->next;
    if (g->next)
        g->next->prev = g->prev;
    evbuffer_remove_cb_entry(bufferevent_get_input(g->bev), g->watch);
    if (g->held)
        bufferevent_decref(g->bev);
    if (g->check)
        g->check->g = NULL;
    event_free(g->wake);
    evbuffer_free(g->withheld);
    free(g->head);
    free(g);
}

/* evhttp frees the connection: the guard goes with it. */
static void guard_closed(struct evhttp_connection *evcon, void *arg)
{
    (void)evcon;
    guard_free(arg);
}

/* Runs once evhttp has made the connection around the bufferevent (its
 * callbacks' argument), given it its socket and not failed at that. */
static bool guard_attach(struct guard *g)
{
    bufferevent_event_cb ecb = NULL;
    void *cbarg = NULL;
    bufferevent_getcb(g->bev, NULL, NULL, &ecb, &cbarg);
    if (!ecb || !cbarg) {
        guard_free(g);
        return false;
    }
    evhttp_connection_set_closecb(cbarg, guard_closed, g);
    g->held = false;
    bufferevent_decref(g->bev);
    return true;
}

/* A connection that holds a place without asking anything: it has sent no
 * complete header block yet (idle since it connected), or is part way
 * through its next one (a slow client, "slowloris"). One whose request is
 * being answered, or whose body is coming, is never such. */
static bool guard_idle(const struct guard *g)
{
    return g->admitted && !g->refused && g->state == G_HEAD &&
           (g->nheads == 0 || g->head_len > 0);
}

/* The server is full: the connection idle the longest is closed to make
 * room, so that thousands of idle or slow connections (from more hosts
 * than the per-host cap stops) cannot lock out everyone else, local
 * commands on the Unix socket included; each newcomer that asks at once is
 * served, and an idle one loses its place only to a newer one. */
static void guard_evict_idle(struct http_guards *gs)
{
    struct guard *oldest = NULL;
    for (struct guard *o = gs->list; o; o = o->next)
        if (guard_idle(o) && (!oldest || o->waiting_since < oldest->waiting_since))
            oldest = o;
    if (oldest)
        guard_refuse(oldest, 503, "Service Unavailable",
                     "idle connection closed: the server is full");
}

/* Runs once evhttp has given the new connection its socket. */
static void guard_admit(evutil_socket_t unused, short what, void *arg)
{
    (void)unused;
    (void)what;
    struct guard *g = arg;
    struct http_guards *gs = g->gs;
    if (!guard_attach(g))
        return;
    int fd = bufferevent_getfd(g->bev);
    if (fd < 0 || !guard_peer(g, fd)) {
        guard_refuse(g, 400, "Bad Request", "cannot identify the peer");
        return;
    }
    int same = 0;
    for (struct guard *o = gs->list; o; o = o->next)
        if (o != g && o->admitted && !o->refused && strcmp(o->peer, g->peer) == 0)
            same++;
    g->waiting_since = loop_now(g);
    if (gs->nlive >= gs->lim.max_conns && same < gs->lim.max_conns_per_peer)
        guard_evict_idle(gs);
    if (gs->nlive >= gs->lim.max_conns) {
        guard_refuse(g, 503, "Service Unavailable", "too many connections");
        return;
    }
    if (same >= gs->lim.max_conns_per_peer) {
        guard_refuse(g, 503, "Service Unavailable", "too many connections from this host");
        return;
    }
    g->admitted = true;
    gs->nlive++;
}

/* evhttp's connections get their bufferevent here. Until evhttp has made
 * the connection around it (guard_attach, before any byte is read), a
 * reference of ours keeps it; from then on the connection's close callback
 * tells the guard when it goes. */
struct bufferevent *guards_bevcb(struct event_base *base, void *arg)
{
    struct http_guards *gs = arg;
    struct bufferevent *bev = bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
    if (!bev)
        return NULL;
    struct guard *g = xcalloc(1, sizeof *g);
    bufferevent_incref(bev);
    g->held = true;
    g->gs = gs;
    g->bev = bev;
    g->watch = evbuffer_add_cb(bufferevent_get_input(bev), guard_watch, g);
    g->next = gs->list;
    if (gs->list)
        gs->list->prev = g;
    gs->list = g;
    g->admit = event_new(base, -1, 0, guard_admit, g);
    g->wake = event_new(base, -1, 0, guard_wake, g);
    g->withheld = evbuffer_new();
    if (!g->admit || !g->wake || !g->withheld)
        fatalx("out of memory");
    event_active(g->admit, EV_TIMEOUT, 1);
    return bev;
}

void guards_take(struct http_guards *gs, struct bufferevent *bev, struct guard_claim *out)
{
    memset(out, 0, sizeof *out);
    for (struct guard *g = gs->list; g; g = g->next) {
        if (g->bev != bev)
            continue;
        out->reserved = g->reserved;
        g->reserved = 0;
        if (g->proven && g->proven_req == g->ntaken) {
            out->proven = true;
            out->who = g->who;
            g->proven = false;
        }
        g->ntaken++;
        return;
    }
}

void guards_release(struct http_guards *gs, size_t bytes)
{
    gs->in_flight -= bytes;
}

static int nofile_cap(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY ||
        rl.rlim_cur > DEF_MAX_CONNS + FD_RESERVE)
        return DEF_MAX_CONNS;
    return rl.rlim_cur > 2 * FD_RESERVE ? (int)rl.rlim_cur - FD_RESERVE : FD_RESERVE;
}

struct http_guards *guards_create(size_t max_body, const char *munge_socket, int auth_timeout_ms)
{
    struct http_guards *gs = xcalloc(1, sizeof *gs);
    gs->munge_socket = xstrdup(munge_socket);
    gs->auth_timeout_ms = auth_timeout_ms;
    gs->lim.max_conns = nofile_cap();
    gs->lim.max_conns_per_peer = DEF_PER_PEER;
    gs->lim.max_body = max_body;
    gs->lim.max_in_flight = DEF_IN_FLIGHT;
    return gs;
}

void guards_destroy(struct http_guards *gs)
{
    if (!gs)
        return;
    while (gs->list)
        guard_free(gs->list);
    free(gs->munge_socket);
    free(gs);
}

/* "16M", "4096", "64K": bytes; -1 when not a size. */
static long long parse_size(const char *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (errno || end == v || x < 0)
        return -1;
    long long mult = 1;
    if (*end == 'K' || *end == 'k')
        mult = 1024, end++;
    else if (*end == 'M' || *end == 'm')
        mult = 1024 * 1024, end++;
    else if (*end == 'G' || *end == 'g')
        mult = 1024LL * 1024 * 1024, end++;
    if (*end || x > (1LL << 40) / mult)
        return -1;
    return x * mult;
}

static int set_param(struct http_limits *l, const char *key, const char *val, char *err,
                     size_t errlen)
{
    long long x = parse_size(val);
    if (strcasecmp(key, "conmgr_max_connections") == 0 && x > 0 && x <= 1000000)
        l->max_conns = (int)x;
    else if (strcasecmp(key, "max_connections_per_host") == 0 && x > 0 && x <= 1000000)
        l->max_conns_per_peer = (int)x;
    else if (strcasecmp(key, "max_body_in_flight") == 0 && x >= HTTP_GUARD_UNAUTH_BODY)
        l->max_in_flight = (size_t)x;
    else {
        snprintf(err, errlen, "invalid %s=%s", key, val);
        return -1;
    }
    return 0;
}

void guards_set_auth_timeout(struct http_guards *gs, int ms)
{
    gs->auth_timeout_ms = ms;
}

int guards_set_params(struct http_guards *gs, const char *params, char *err, size_t errlen)
{
    if (!params)
        return 0;
    char *copy = xstrdup(params), *save = NULL;
    struct http_limits l = gs->lim;
    int rc = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok && rc == 0;
         tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq)
            continue;
        *eq = '\0';
        if (strcasecmp(tok, "conmgr_max_connections") == 0 ||
            strcasecmp(tok, "max_connections_per_host") == 0 ||
            strcasecmp(tok, "max_body_in_flight") == 0)
            rc = set_param(&l, tok, eq + 1, err, errlen);
    }
    free(copy);
    if (rc == 0)
        gs->lim = l;
    return rc;
}
