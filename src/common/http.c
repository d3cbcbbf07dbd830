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

#include "common/log.h"
#include "common/xmalloc.h"

/* Bodies above this are refused before they are read: a job script and its
 * environment fit easily, and a peer cannot make us buffer gigabytes. */
#define HTTP_MAX_BODY   (16 * 1024 * 1024)
#define HTTP_MAX_HEADER (64 * 1024)
#define HTTP_IDLE_S     30

struct http_server {
    struct event_base *base;
    struct evhttp *http;
    const struct http_route *routes;
    size_t nroutes;
    void *ctx;
    char *munge_socket;
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

static int identify(struct http_server *s, struct evhttp_request *ev, struct http_req *r)
{
    struct evhttp_connection *evcon = evhttp_request_get_connection(ev);
    struct bufferevent *bev = evcon ? evhttp_connection_get_bufferevent(evcon) : NULL;
    int fd = bev ? bufferevent_getfd(bev) : -1;
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    if (fd < 0 || getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
        return -1;
    if (ss.ss_family == AF_UNIX) {
        r->via_tcp = false;
        return auth_peercred(fd, &r->who);
    }
    r->via_tcp = true;
    const char *hdr = evhttp_find_header(evhttp_request_get_input_headers(ev), "Authorization");
    if (!hdr || strncmp(hdr, "Munge ", 6) != 0)
        return -1;
    char err[256];
    if (auth_munge_decode(s->munge_socket, hdr + 6, &r->who, err, sizeof err) < 0) {
        log_warnx("refused a TCP request: %s", err);
        return -1;
    }
    return 0;
}

static json_t *read_body(struct evhttp_request *ev, char *err, size_t errlen)
{
    struct evbuffer *in = evhttp_request_get_input_buffer(ev);
    size_t n = evbuffer_get_length(in);
    if (n == 0)
        return json_object();
    const char *data = (const char *)evbuffer_pullup(in, -1);
    json_error_t jerr;
    json_t *body = json_loadb(data, n, 0, &jerr);
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

static void req_free(struct http_req *r)
{
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

static void dispatch(struct evhttp_request *ev, void *arg)
{
    struct http_server *s = arg;
    const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(ev);
    const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
    const char *method = method_name(evhttp_request_get_command(ev));
    struct http_req *r = xcalloc(1, sizeof *r);
    r->ev = ev;
    r->ctx = s->ctx;
    r->query = uri ? evhttp_uri_get_query(uri) : NULL;

    const struct http_route *route = NULL;
    bool path_known = false;
    for (size_t i = 0; path && i < s->nroutes && !route; i++) {
        if (!route_match(s->routes[i].pattern, path, r))
            continue;
        path_known = true;
        if (strcmp(s->routes[i].method, method) == 0)
            route = &s->routes[i];
    }
    char err[300];
    if (identify(s, ev, r) < 0) {
        free(r);
        plain_error(ev, 401, "Authentication failure");
        return;
    }
    if (!route) {
        free(r);
        plain_error(ev, path_known ? 405 : 404, path_known ? "Method not allowed" : "Not found");
        return;
    }
    if (route->role == HTTP_ROLE_ROOT && r->who.uid != 0) {
        free(r);
        plain_error(ev, 403, "Access/permission denied");
        return;
    }
    r->body = read_body(ev, err, sizeof err);
    if (!r->body) {
        free(r);
        plain_error(ev, 400, err);
        return;
    }
    route->fn(r);
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
    s->http = evhttp_new(base);
    if (!s->http)
        fatalx("evhttp_new failed");
    evhttp_set_max_body_size(s->http, HTTP_MAX_BODY);
    evhttp_set_max_headers_size(s->http, HTTP_MAX_HEADER);
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
    evhttp_free(s->http);
    free(s->munge_socket);
    free(s);
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
    evhttp_add_header(evhttp_request_get_output_headers(r->ev), "Content-Type", content_type);
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
    struct evhttp_connection *evcon;
};

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
    free(c);
}

/* A request to addr:port with a fresh MUNGE credential and body (stolen):
 * sent, or NULL (the credential or the connection failed). */
static struct evhttp_connection *send_request(struct event_base *base, const char *munge_socket,
                                              const char *addr, int port, const char *method,
                                              const char *path, json_t *body, int timeout_s,
                                              struct evhttp_request *ev)
{
    char err[256];
    char *cred = auth_munge_encode(munge_socket, err, sizeof err);
    if (!cred) {
        log_warnx("cannot call %s:%d%s: %s", addr, port, path, err);
        json_decref(body);
        evhttp_request_free(ev);
        return NULL;
    }
    struct evhttp_connection *evcon = evhttp_connection_base_new(base, NULL, addr, (uint16_t)port);
    evhttp_connection_set_timeout(evcon, timeout_s);
    struct evkeyvalq *h = evhttp_request_get_output_headers(ev);
    char *auth = xasprintf("Munge %s", cred);
    evhttp_add_header(h, "Authorization", auth);
    evhttp_add_header(h, "Host", addr);
    evhttp_add_header(h, "Content-Type", "application/json");
    evhttp_add_header(h, "Connection", "close");
    free(auth);
    free(cred);
    if (body) {
        char *text = json_dumps(body, JSON_COMPACT);
        evbuffer_add(evhttp_request_get_output_buffer(ev), text, strlen(text));
        free(text);
        json_decref(body);
    }
    enum evhttp_cmd_type t = strcmp(method, "GET") == 0 ? EVHTTP_REQ_GET
                           : strcmp(method, "DELETE") == 0 ? EVHTTP_REQ_DELETE : EVHTTP_REQ_POST;
    if (evhttp_make_request(evcon, ev, t, path) < 0) {
        /* evhttp_make_request frees the request on failure */
        evhttp_connection_free(evcon);
        return NULL;
    }
    /* libevent frees the connection once this, its only request, ends */
    evhttp_connection_free_on_completion(evcon);
    return evcon;
}

void http_call(struct event_base *base, const char *munge_socket, const char *addr, int port,
               const char *method, const char *path, json_t *body, int timeout_s,
               http_done done, void *arg)
{
    struct call *c = xcalloc(1, sizeof *c);
    c->done = done;
    c->arg = arg;
    struct evhttp_request *ev = evhttp_request_new(call_finish, c);
    c->evcon = send_request(base, munge_socket, addr, port, method, path, body, timeout_s, ev);
    if (!c->evcon) {
        json_t *empty = json_object();
        done(0, empty, arg);
        json_decref(empty);
        free(c);
    }
}

/* ---- streams: a reply sent and read in chunks ---- */

struct stream_call {
    http_stream_chunk_cb chunk;
    http_done done;
    void *arg;
    int status;
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
    if (!send_request(base, munge_socket, addr, port, "POST", path, body, timeout_s, ev)) {
        json_t *empty = json_object();
        done(0, empty, arg);
        json_decref(empty);
        free(c);
    }
}

bool http_stream_start(struct http_req *r)
{
    if (!evhttp_request_get_connection(r->ev))
        return false;
    evhttp_add_header(evhttp_request_get_output_headers(r->ev), "Content-Type",
                      "application/octet-stream");
    evhttp_send_reply_start(r->ev, 200, "OK");
    return true;
}

bool http_stream_write(struct http_req *r, const void *data, size_t len)
{
    /* a client gone away leaves the request without its connection */
    if (!evhttp_request_get_connection(r->ev))
        return false;
    struct evbuffer *b = evbuffer_new();
    evbuffer_add(b, data, len);
    evhttp_send_reply_chunk(r->ev, b);
    evbuffer_free(b);
    return evhttp_request_get_connection(r->ev) != NULL;
}

void http_stream_end(struct http_req *r)
{
    evhttp_send_reply_end(r->ev);
    req_free(r);
}
