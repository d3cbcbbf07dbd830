#include "common/http.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/listener.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include "common/http_guard.h"
#include "common/json_fast.h"
#include "common/log.h"
#include "common/xmalloc.h"

/* Bodies above this are refused before they are read: a job script and its
 * environment fit easily, and a peer cannot make us buffer gigabytes. */
#define HTTP_MAX_BODY   (16 * 1024 * 1024)
#define HTTP_IDLE_S     30
/* How long a request may wait on munged (either way) before it is answered
 * 503 (a request in) or given up (a call out, status 0). munged answers in
 * milliseconds when it is well. */
#define HTTP_AUTH_TIMEOUT_MS 2500
#define HTTP_ENCODE_RETRY_MS 20

struct http_server {
    struct event_base *base;
    struct evhttp *http;
    const struct http_route *routes;
    size_t nroutes;
    void *ctx;
    char *munge_socket;
    struct http_guards *guards;
    struct http_observer obs;
    http_token_check token_check;   /* NULL: tokens are not taken */
    void *token_arg;
    bool has_service_uid;           /* a uid besides 0 for the root routes */
    uid_t service_uid;
    int auth_timeout_ms;            /* how long a credential's check may wait */
};

static const char *method_name(enum evhttp_cmd_type t)
{
    switch (t) {
    case EVHTTP_REQ_GET: return "GET";
    case EVHTTP_REQ_POST: return "POST";
    case EVHTTP_REQ_DELETE: return "DELETE";
    case EVHTTP_REQ_PUT: return "PUT";
    case EVHTTP_REQ_HEAD: return "HEAD";
    default: return "OTHER";
    }
}

/* Matches "/v1/jobs/{}" against a path; fills r->args from r->argbuf. */
static bool route_match(const char *pattern, const char *path, struct http_req *r)
{
    size_t used = 0, nargs = 0;
    while (*pattern && *path) {
        if (pattern[0] == '{' && pattern[1] == '}') {
            const char *end = strchr(path, '/');
            size_t len = end ? (size_t)(end - path) : strlen(path);
            if (len == 0 || nargs == 4 || used + len + 1 > sizeof r->argbuf)
                return false;
            memcpy(r->argbuf + used, path, len);
            r->argbuf[used + len] = '\0';
            r->args[nargs++] = r->argbuf + used;
            used += len + 1;
            path += len;
            pattern += 2;
            continue;
        }
        if (*pattern++ != *path++)
            return false;
    }
    return *pattern == '\0' && *path == '\0';
}

static json_t *read_body(struct evhttp_request *ev, char *err, size_t errlen)
{
    struct evbuffer *in = evhttp_request_get_input_buffer(ev);
    size_t n = evbuffer_get_length(in);
    if (n == 0)
        return json_object();
    const char *data = (const char *)evbuffer_pullup(in, -1);
    json_error_t jerr;
    json_t *body = json_fast_loadb(data, n, &jerr);
    if (!body) {
        snprintf(err, errlen, "invalid JSON body: %s", jerr.text);
        return NULL;
    }
    if (!json_is_object(body)) {
        json_decref(body);
        snprintf(err, errlen, "invalid JSON body: not an object");
        return NULL;
    }
    return body;
}

/* A request between its arrival and its handler: the credential's check
 * runs off the loop meanwhile. r comes first: handlers free it as an
 * http_req (req_free). */
struct pending {
    struct http_req r;
    struct http_server *s;
    const struct http_route *route;
    bool path_known;
    size_t reserved;       /* body bytes counted against the server's bound */
};

static void observe_end(struct http_server *s, int route, const char *method, int status,
                        int64_t token)
{
    if (s->obs.end)
        s->obs.end(s->obs.arg, route, method, status, token);
}

static void req_free(struct http_req *r)
{
    struct pending *p = (struct pending *)r;
    if (p->route)
        observe_end(p->s, r->route, p->route->method, r->status, r->obs_token);
    json_decref(r->body);
    free(r);
}

static void send_json(struct evhttp_request *ev, int status, json_t *body)
{
    struct evbuffer *out = evbuffer_new();
    char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
    evbuffer_add_printf(out, "%s\n", text ? text : "{}");
    free(text);
    json_decref(body);
    evhttp_add_header(evhttp_request_get_output_headers(ev), "Content-Type",
                      "application/json");
    evhttp_send_reply(ev, status, status < 400 ? "OK" : "Error", out);
    evbuffer_free(out);
}

static void plain_error(struct evhttp_request *ev, int status, const char *msg)
{
    send_json(ev, status, json_pack("{s:s, s:i}", "error", msg, "code", 0));
}

static void refuse(struct pending *p, int status, const char *msg)
{
    struct evhttp_request *ev = p->r.ev;
    observe_end(p->s, p->route ? p->r.route : -1, method_name(evhttp_request_get_command(ev)),
                status, 0);
    guards_release(p->s->guards, p->reserved);
    free(p);
    /* a caller without a credential keeps no connection: one request each,
     * so that it cannot hold places idle after its answer (http_guard.c
     * makes room by closing idle connections, but not a served one) */
    if (status == 401)
        evhttp_add_header(evhttp_request_get_output_headers(ev), "Connection", "close");
    plain_error(ev, status, msg);
}

/* The caller is known: route, role, body, handler. */
static void proceed(struct pending *p)
{
    struct http_req *r = &p->r;
    if (!p->route) {
        refuse(p, p->path_known ? 405 : 404, p->path_known ? "Method not allowed" : "Not found");
        return;
    }
    if (p->route->role == HTTP_ROLE_ROOT && r->who.uid != 0 &&
        !(p->s->has_service_uid && r->who.uid == p->s->service_uid)) {
        refuse(p, 403, "Access/permission denied");
        return;
    }
    char err[300];
    /* an anonymous route's body, if any, is nobody's: never parsed */
    r->body = p->route->role == HTTP_ROLE_ANON ? json_object() : read_body(r->ev, err, sizeof err);
    if (!r->body) {
        refuse(p, 400, err);
        return;
    }
    guards_release(p->s->guards, p->reserved);
    p->reserved = 0;
    r->obs_token = p->s->obs.start ? p->s->obs.start(p->s->obs.arg) : 0;
    p->route->fn(r);
}

static void decoded(const struct auth_result *res, void *arg)
{
    struct pending *p = arg;
    if (res->rc < 0) {
        log_warnx("refused a TCP request: %s", res->err);
        /* MUNGE's reason (a different key, a clock minutes off) tells the
         * caller's admin what to fix and nothing about anyone else */
        char msg[300];
        snprintf(msg, sizeof msg, "Authentication failure: %s", res->err);
        if (res->busy)
            refuse(p, 503, "Protocol authentication error: MUNGE did not answer");
        else
            refuse(p, 401, msg);
        return;
    }
    p->r.who = res->who;
    proceed(p);
}

/* The connection's socket: Unix (the kernel names the caller) or TCP. */
static int conn_fd(struct evhttp_request *ev, bool *is_unix)
{
    struct evhttp_connection *evcon = evhttp_request_get_connection(ev);
    struct bufferevent *bev = evcon ? evhttp_connection_get_bufferevent(evcon) : NULL;
    int fd = bev ? bufferevent_getfd(bev) : -1;
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    if (fd < 0 || getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
        return -1;
    *is_unix = ss.ss_family == AF_UNIX;
    return fd;
}

static void route_find(struct http_server *s, struct pending *p)
{
    const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(p->r.ev);
    const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
    const char *method = method_name(evhttp_request_get_command(p->r.ev));
    p->r.query = uri ? evhttp_uri_get_query(uri) : NULL;
    for (size_t i = 0; path && i < s->nroutes && !p->route; i++) {
        if (!route_match(s->routes[i].pattern, path, &p->r))
            continue;
        p->path_known = true;
        if (strcmp(s->routes[i].method, method) == 0) {
            p->route = &s->routes[i];
            p->r.route = (int)i;
        }
    }
}

/* Slurm's alternative: a JWT and the user it speaks for, in
 * X-SLURM-USER-TOKEN and X-SLURM-USER-NAME. Checked here, on the loop: an
 * HMAC and a passwd lookup. A refusal is logged with the peer's address. */
static void token_auth(struct http_server *s, struct pending *p, const char *tok)
{
    const char *name = evhttp_find_header(evhttp_request_get_input_headers(p->r.ev),
                                          "X-SLURM-USER-NAME");
    char why[200] = "";
    if (s->token_check(s->token_arg, name, tok, &p->r.who, why, sizeof why) == 0) {
        proceed(p);
        return;
    }
    char *peer = NULL;
    ev_uint16_t port = 0;
    struct evhttp_connection *evcon = evhttp_request_get_connection(p->r.ev);
    if (evcon)
        evhttp_connection_get_peer(evcon, &peer, &port);
    log_warnx("token refused from %s (user %s): %s", peer ? peer : "?", name ? name : "(none)",
              why);
    refuse(p, 401, "Authentication failure");
}

void http_server_set_token_check(struct http_server *s, http_token_check check, void *arg)
{
    s->token_check = check;
    s->token_arg = arg;
}

/* evhttp has the whole request. The caller is identified before anything
 * else (401 first); on TCP that waits for munged, off the loop, unless the
 * guard checked the credential before letting the body in. */
static void dispatch(struct evhttp_request *ev, void *arg)
{
    struct http_server *s = arg;
    struct pending *p = xcalloc(1, sizeof *p);
    p->s = s;
    p->r.ev = ev;
    p->r.ctx = s->ctx;
    p->r.route = -1;
    struct evhttp_connection *evcon = evhttp_request_get_connection(ev);
    struct guard_claim claim = { 0 };
    if (evcon)
        guards_take(s->guards, evhttp_connection_get_bufferevent(evcon), &claim);
    p->reserved = claim.reserved;
    route_find(s, p);
    bool is_unix = false;
    int fd = conn_fd(ev, &is_unix);
    if (fd >= 0 && is_unix) {
        if (auth_peercred(fd, &p->r.who) < 0)
            refuse(p, 401, "Authentication failure");
        else
            proceed(p);
        return;
    }
    p->r.via_tcp = true;
    if (claim.proven) {
        /* checked before its body was read: a second decode would be
         * refused as a replay */
        p->r.who = claim.who;
        proceed(p);
        return;
    }
    const char *hdr = evhttp_find_header(evhttp_request_get_input_headers(ev), "Authorization");
    if (!hdr && p->route && p->route->role == HTTP_ROLE_ANON &&
        strcmp(p->route->method, "GET") == 0) {
        p->r.anon = true;
        p->r.who.uid = (uid_t)-1;
        p->r.who.gid = (gid_t)-1;
        proceed(p);
        return;
    }
    const char *tok = evhttp_find_header(evhttp_request_get_input_headers(ev),
                                         "X-SLURM-USER-TOKEN");
    if (fd >= 0 && !hdr && tok && s->token_check) {
        token_auth(s, p, tok);
        return;
    }
    if (fd < 0 || !hdr || strncmp(hdr, "Munge ", 6) != 0) {
        refuse(p, 401, "Authentication failure");
        return;
    }
    auth_munge_decode_async(s->base, s->munge_socket, hdr + 6, s->auth_timeout_ms, decoded, p);
}

struct http_server *http_server_create(struct event_base *base, const struct http_route *routes,
                                       size_t nroutes, void *ctx, const char *munge_socket)
{
    struct http_server *s = xcalloc(1, sizeof *s);
    s->base = base;
    s->routes = routes;
    s->nroutes = nroutes;
    s->ctx = ctx;
    s->munge_socket = xstrdup(munge_socket);
    s->auth_timeout_ms = HTTP_AUTH_TIMEOUT_MS;
    s->http = evhttp_new(base);
    if (!s->http)
        fatalx("evhttp_new failed");
    s->guards = guards_create(HTTP_MAX_BODY, munge_socket, HTTP_AUTH_TIMEOUT_MS);
    evhttp_set_bevcb(s->http, guards_bevcb, s->guards);
    evhttp_set_max_body_size(s->http, HTTP_MAX_BODY);
    evhttp_set_max_headers_size(s->http, HTTP_GUARD_HEADER);
    evhttp_set_timeout(s->http, HTTP_IDLE_S);
    evhttp_set_allowed_methods(s->http, EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_DELETE |
                                            EVHTTP_REQ_PUT | EVHTTP_REQ_HEAD);
    evhttp_set_gencb(s->http, dispatch, s);
    return s;
}

void http_server_destroy(struct http_server *s)
{
    if (!s)
        return;
    evhttp_free(s->http);     /* frees the connections, and so their guards */
    guards_destroy(s->guards);
    free(s->munge_socket);
    free(s);
}

void http_server_set_auth_timeout(struct http_server *s, int ms)
{
    s->auth_timeout_ms = ms > 0 ? ms : HTTP_AUTH_TIMEOUT_MS;
    guards_set_auth_timeout(s->guards, s->auth_timeout_ms);
}

void http_server_set_service_uid(struct http_server *s, uid_t uid)
{
    s->has_service_uid = true;
    s->service_uid = uid;
}

void http_server_observe(struct http_server *s, const struct http_observer *obs)
{
    s->obs = *obs;
}

int http_server_set_params(struct http_server *s, const char *params, char *err, size_t errlen)
{
    return guards_set_params(s->guards, params, err, errlen);
}

static int bind_listener(struct http_server *s, int fd)
{
    struct evconnlistener *l = evconnlistener_new(s->base, NULL, NULL,
                                                  LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC,
                                                  128, fd);
    if (!l) {
        close(fd);
        return -1;
    }
    if (!evhttp_bind_listener(s->http, l)) {
        evconnlistener_free(l);
        return -1;
    }
    return 0;
}

int http_server_listen_unix(struct http_server *s, const char *path)
{
    struct sockaddr_un sun = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof sun.sun_path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(sun.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -1;
    unlink(path);
    if (bind(fd, (struct sockaddr *)&sun, sizeof sun) < 0 || chmod(path, 0666) < 0 ||
        listen(fd, 128) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return bind_listener(s, fd);
}

int http_server_listen_tcp(struct http_server *s, const char *addr, int port)
{
    struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    if (inet_pton(AF_INET, addr ? addr : "0.0.0.0", &sin.sin_addr) != 1) {
        errno = EINVAL;
        return -1;
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -1;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    socklen_t len = sizeof sin;
    if (bind(fd, (struct sockaddr *)&sin, sizeof sin) < 0 || listen(fd, 512) < 0 ||
        getsockname(fd, (struct sockaddr *)&sin, &len) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    if (bind_listener(s, fd) < 0)
        return -1;
    return ntohs(sin.sin_port);
}

void http_reply(struct http_req *r, int status, json_t *body)
{
    r->status = status;
    send_json(r->ev, status, body);
    req_free(r);
}

void http_reply_buffer(struct http_req *r, int status, struct evbuffer *buf)
{
    http_reply_buffer_type(r, status, buf, "application/json");
}

void http_reply_buffer_type(struct http_req *r, int status, struct evbuffer *buf,
                            const char *content_type)
{
    r->status = status;
    if (content_type)
        evhttp_add_header(evhttp_request_get_output_headers(r->ev), "Content-Type",
                          content_type);
    evhttp_send_reply(r->ev, status, status < 400 ? "OK" : "Error", buf);
    req_free(r);
}

void http_reply_error(struct http_req *r, int status, int code, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    http_reply(r, status, json_pack("{s:s, s:i}", "error", msg, "code", code));
}

char *http_query_get(const struct http_req *r, const char *key)
{
    if (!r->query)
        return NULL;
    struct evkeyvalq q;
    if (evhttp_parse_query_str(r->query, &q) < 0)
        return NULL;
    char *v = xstrdup(evhttp_find_header(&q, key));
    evhttp_clear_headers(&q);
    return v;
}

/* ---- client ---- */

struct call {
    http_done done;
    void *arg;
    struct evhttp_connection *evcon;   /* set once sent; freed when over */
};

/* libevent 2.1 frees a connection marked free_on_completion only when its
 * request was answered: one that could not connect stayed for ever, and a
 * node agent retrying a controller that is down grew with every try. The
 * connection is ours, freed once its request is over, from the loop (never
 * inside libevent's callback, which still uses it), or by
 * http_calls_settle when the loop has stopped. */
struct conn_gone {
    struct evhttp_connection *evcon;
    struct conn_gone *next;
};
static struct conn_gone *conns_gone;

void http_calls_settle(struct event_base *base)
{
    for (struct conn_gone **p = &conns_gone; *p;) {
        struct conn_gone *g = *p;
        if (evhttp_connection_get_base(g->evcon) != base) {
            p = &g->next;
            continue;
        }
        *p = g->next;
        evhttp_connection_free(g->evcon);
        free(g);
    }
}

static void conns_free_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    http_calls_settle(arg);
}

static void conn_free_later(struct evhttp_connection *evcon)
{
    static const struct timeval now = { 0, 0 };
    if (!evcon)
        return;
    struct conn_gone *g = xmalloc(sizeof *g);
    struct event_base *base = evhttp_connection_get_base(evcon);
    g->evcon = evcon;
    g->next = conns_gone;
    conns_gone = g;
    if (event_base_once(base, -1, EV_TIMEOUT, conns_free_cb, base, &now) < 0)
        log_warnx("cannot schedule an HTTP connection's release");
}

static void call_finish(struct evhttp_request *ev, void *arg)
{
    struct call *c = arg;
    int status = ev ? evhttp_request_get_response_code(ev) : 0;
    json_t *body = NULL;
    if (ev && status > 0) {
        struct evbuffer *in = evhttp_request_get_input_buffer(ev);
        size_t n = evbuffer_get_length(in);
        if (n)
            body = json_loadb((const char *)evbuffer_pullup(in, -1), n, 0, NULL);
    }
    if (!body)
        body = json_object();
    c->done(status, body, c->arg);
    json_decref(body);
    conn_free_later(c->evcon);
    free(c);
}

/* An outgoing request waiting for its credential: munged is asked off the
 * loop, and the request goes out when the credential comes back. */
struct outgoing {
    struct event_base *base;
    char *addr, *path, *munge_socket;
    int port, timeout_s;
    int busy_tries;                /* a busy credential is asked again this many times more */
    enum evhttp_cmd_type type;
    json_t *body;
    struct evhttp_request *ev;     /* made by the caller, with its callbacks */
    void (*fail)(void *arg);       /* no answer will come */
    void *arg;
    struct evhttp_connection **evcon;   /* the caller's: where the connection goes */
};

static void outgoing_free(struct outgoing *o)
{
    free(o->addr);
    free(o->path);
    free(o->munge_socket);
    json_decref(o->body);
    free(o);
}

/* Sends o's request with cred; false when it could not be sent (o->ev is
 * freed then). */
static bool outgoing_send(struct outgoing *o, const char *cred)
{
    struct evhttp_connection *evcon =
        evhttp_connection_base_new(o->base, NULL, o->addr, (uint16_t)o->port);
    if (!evcon) {
        evhttp_request_free(o->ev);
        return false;
    }
    evhttp_connection_set_timeout(evcon, o->timeout_s);
    struct evkeyvalq *h = evhttp_request_get_output_headers(o->ev);
    char *auth = xasprintf("Munge %s", cred);
    evhttp_add_header(h, "Authorization", auth);
    evhttp_add_header(h, "Host", o->addr);
    evhttp_add_header(h, "Content-Type", "application/json");
    evhttp_add_header(h, "Connection", "close");
    free(auth);
    if (o->body) {
        char *text = json_dumps(o->body, JSON_COMPACT);
        evbuffer_add(evhttp_request_get_output_buffer(o->ev), text, strlen(text));
        free(text);
    }
    if (evhttp_make_request(evcon, o->ev, o->type, o->path) < 0) {
        /* evhttp_make_request frees the request on failure */
        evhttp_connection_free(evcon);
        return false;
    }
    *o->evcon = evcon;
    return true;
}

static void encoded(const struct auth_result *res, void *arg);

static void encode_again(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct outgoing *o = arg;
    auth_munge_encode_async(o->base, o->munge_socket, HTTP_AUTH_TIMEOUT_MS, encoded, o);
}

static void encoded(const struct auth_result *res, void *arg)
{
    struct outgoing *o = arg;
    bool sent = false;
    /* Our own credential queue full (many calls at once: a scheduling pass
     * that starts thousands of jobs) says nothing of the peer: the call
     * waits its turn, within its timeout, rather than fail as if the peer
     * were down. Counted in tries, not read off a clock (the daemons'
     * clock modules own time): a refusal takes no time, so the tries
     * together wait about the call's timeout. */
    static const struct timeval later = { 0, HTTP_ENCODE_RETRY_MS * 1000 };
    if (res->rc < 0 && res->refused && o->busy_tries-- > 0 &&
        event_base_once(o->base, -1, EV_TIMEOUT, encode_again, o, &later) == 0)
        return;
    if (res->rc < 0) {
        log_warnx("cannot call %s:%d%s: %s", o->addr, o->port, o->path, res->err);
        evhttp_request_free(o->ev);
    } else {
        sent = outgoing_send(o, res->cred);
    }
    if (!sent)
        o->fail(o->arg);
    outgoing_free(o);
}

/* Sends method path to addr:port with body (stolen) and a fresh MUNGE
 * credential, or calls fail(arg) (the credential or the connection failed);
 * either way later, from the loop. */
static void send_request(struct event_base *base, const char *munge_socket, const char *addr,
                         int port, const char *method, const char *path, json_t *body,
                         int timeout_s, struct evhttp_request *ev, void (*fail)(void *),
                         void *arg, struct evhttp_connection **evcon)
{
    struct outgoing *o = xcalloc(1, sizeof *o);
    o->base = base;
    o->addr = xstrdup(addr);
    o->path = xstrdup(path);
    o->port = port;
    o->timeout_s = timeout_s;
    o->munge_socket = munge_socket ? xstrdup(munge_socket) : NULL;
    o->busy_tries = timeout_s * 1000 / HTTP_ENCODE_RETRY_MS;
    o->type = strcmp(method, "GET") == 0 ? EVHTTP_REQ_GET
            : strcmp(method, "DELETE") == 0 ? EVHTTP_REQ_DELETE : EVHTTP_REQ_POST;
    o->body = body;
    o->ev = ev;
    o->fail = fail;
    o->arg = arg;
    o->evcon = evcon;
    auth_munge_encode_async(base, munge_socket, HTTP_AUTH_TIMEOUT_MS, encoded, o);
}

static void call_fail(void *arg)
{
    struct call *c = arg;
    json_t *empty = json_object();
    c->done(0, empty, c->arg);
    json_decref(empty);
    free(c);
}

void http_call(struct event_base *base, const char *munge_socket, const char *addr, int port,
               const char *method, const char *path, json_t *body, int timeout_s,
               http_done done, void *arg)
{
    struct call *c = xcalloc(1, sizeof *c);
    c->done = done;
    c->arg = arg;
    struct evhttp_request *ev = evhttp_request_new(call_finish, c);
    send_request(base, munge_socket, addr, port, method, path, body, timeout_s, ev, call_fail, c,
                 &c->evcon);
}

/* ---- streams: a reply sent and read in chunks ---- */

struct stream_call {
    http_stream_chunk_cb chunk;
    http_done done;
    void *arg;
    int status;
    struct evhttp_connection *evcon;
};

static void stream_chunk(struct evhttp_request *ev, void *arg)
{
    struct stream_call *c = arg;
    struct evbuffer *in = evhttp_request_get_input_buffer(ev);
    size_t n = evbuffer_get_length(in);
    c->status = evhttp_request_get_response_code(ev);
    if (n && c->status == 200)
        c->chunk((const char *)evbuffer_pullup(in, -1), n, c->arg);
    if (c->status == 200)
        evbuffer_drain(in, n);
}

static void stream_finish(struct evhttp_request *ev, void *arg)
{
    struct stream_call *c = arg;
    int status = ev ? evhttp_request_get_response_code(ev) : 0;
    json_t *body = NULL;
    if (ev && status > 0 && status != 200) {   /* an error answer comes whole */
        struct evbuffer *in = evhttp_request_get_input_buffer(ev);
        size_t n = evbuffer_get_length(in);
        body = n ? json_loadb((const char *)evbuffer_pullup(in, -1), n, 0, NULL) : NULL;
    }
    if (!body)
        body = json_object();
    c->done(status, body, c->arg);
    json_decref(body);
    conn_free_later(c->evcon);
    free(c);
}

static void stream_fail(void *arg)
{
    struct stream_call *c = arg;
    json_t *empty = json_object();
    c->done(0, empty, c->arg);
    json_decref(empty);
    free(c);
}

void http_stream(struct event_base *base, const char *munge_socket, const char *addr, int port,
                 const char *path, json_t *body, int timeout_s, http_stream_chunk_cb chunk,
                 http_done done, void *arg)
{
    struct stream_call *c = xcalloc(1, sizeof *c);
    c->chunk = chunk;
    c->done = done;
    c->arg = arg;
    struct evhttp_request *ev = evhttp_request_new(stream_finish, c);
    evhttp_request_set_chunked_cb(ev, stream_chunk);
    send_request(base, munge_socket, addr, port, "POST", path, body, timeout_s, ev, stream_fail,
                 c, &c->evcon);
}

bool http_stream_start(struct http_req *r, const char *content_type)
{
    if (!evhttp_request_get_connection(r->ev))
        return false;
    evhttp_add_header(evhttp_request_get_output_headers(r->ev), "Content-Type", content_type);
    r->status = 200;
    evhttp_send_reply_start(r->ev, 200, "OK");
    return true;
}

bool http_stream_write_buffer(struct http_req *r, struct evbuffer *buf)
{
    /* a client gone away leaves the request without its connection */
    if (!evhttp_request_get_connection(r->ev))
        return false;
    if (evbuffer_get_length(buf))   /* an empty chunk would say the end */
        evhttp_send_reply_chunk(r->ev, buf);
    return evhttp_request_get_connection(r->ev) != NULL;
}

bool http_stream_write(struct http_req *r, const void *data, size_t len)
{
    struct evbuffer *b = evbuffer_new();
    evbuffer_add(b, data, len);
    bool ok = http_stream_write_buffer(r, b);
    evbuffer_free(b);
    return ok;
}

long http_stream_backlog(struct http_req *r)
{
    struct evhttp_connection *evcon = evhttp_request_get_connection(r->ev);
    if (!evcon)
        return -1;
    return (long)evbuffer_get_length(
        bufferevent_get_output(evhttp_connection_get_bufferevent(evcon)));
}

void http_stream_abort(struct http_req *r)
{
    struct evhttp_connection *evcon = evhttp_request_get_connection(r->ev);
    if (evcon)
        evhttp_connection_free(evcon);   /* frees r->ev with it */
    else
        evhttp_send_reply_end(r->ev);    /* without a connection: frees it */
    req_free(r);
}

void http_stream_end(struct http_req *r)
{
    evhttp_send_reply_end(r->ev);
    req_free(r);
}
