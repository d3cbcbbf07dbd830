/*
 * http: the one protocol, HTTP/1.1 with JSON bodies, over libevent's evhttp.
 *
 * Server: one route table {method, pattern, handler, role}; patterns are
 * literal paths with "{}" segments that match one path segment each
 * ("/v1/jobs/{}"); matched segments reach the handler in req->args. The
 * caller is identified before the handler runs (SO_PEERCRED on Unix sockets,
 * MUNGE on TCP, checked off the event loop; a TCP request without a valid
 * credential gets 401, one munged did not check in time 503), except a
 * GET to an HTTP_ROLE_ANON route: it comes in without one (r->anon), as
 * Slurm's metrics and health probes do, and its body is never read. Bodies
 * that are not JSON objects get 400; an unknown path 404. What a peer may
 * make the server hold is bounded before evhttp reads it (http_guard.h:
 * connections in total and per peer, body sizes, bodies in flight; on TCP
 * no body beyond 64 KiB is read before its credential is checked, and that
 * check is the request's only decode). A handler replies
 * with http_reply()/http_reply_error(), now or later (group commit): evhttp
 * frees a request whose client went away once it is replied to, so every
 * request must be replied to exactly once.
 *
 * Client (async, for daemon to daemon): http_call() sends a JSON request over
 * TCP with a fresh MUNGE credential (made off the loop) and calls back with
 * the status and the parsed body (status 0: no answer, or no credential).
 */
#ifndef HERD_HTTP_H
#define HERD_HTTP_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/auth.h"

struct event_base;
struct evhttp_request;
struct http_server;

enum http_role {
    HTTP_ROLE_USER,        /* any authenticated caller */
    HTTP_ROLE_ROOT,        /* uid 0 (node agents, the controller), or the service uid */
    HTTP_ROLE_ANON,        /* GET only: anyone, a credential optional on TCP (the handler
                            * decides, r->anon); no body is read */
};

struct http_req {
    struct evhttp_request *ev;
    struct auth_id who;
    bool via_tcp;
    bool anon;             /* a TCP GET to an HTTP_ROLE_ANON route without a credential:
                            * who is unknown (uid and gid -1) */
    int status;            /* the answer's, once replied */
    int route;             /* index in the route table; -1 none matched */
    int64_t obs_token;     /* the observer's start() */
    json_t *body;          /* the request body; an empty object when none */
    const char *args[4];   /* the "{}" segments, in order */
    char argbuf[256];
    const char *query;     /* raw query string or NULL */
    void *ctx;             /* the server's ctx */
};

typedef void (*http_handler)(struct http_req *r);

struct http_route {
    const char *method;    /* "GET", "POST", "DELETE" */
    const char *pattern;
    http_handler fn;
    enum http_role role;
};

struct http_server *http_server_create(struct event_base *base, const struct http_route *routes,
                                       size_t nroutes, void *ctx, const char *munge_socket);
void http_server_destroy(struct http_server *s);

/* Told of each request that reached a route (start, then end with the
 * answer's status once replied) and of each refused one (end only, token
 * 0; route -1 when no route matched): request counts and latency, kept by
 * the caller, which owns the clock. */
struct http_observer {
    int64_t (*start)(void *arg);
    void (*end)(void *arg, int route, const char *method, int status, int64_t token);
    void *arg;
};
void http_server_observe(struct http_server *s, const struct http_observer *obs);

/* Reads the server's caps from a Slurm-style parameter list
 * (SlurmctldParameters / SlurmdParameters): conmgr_max_connections,
 * max_connections_per_host, max_body_in_flight; other keys are ignored.
 * NULL keeps the defaults. 0, or -1 with a message in err. */
int http_server_set_params(struct http_server *s, const char *params, char *err, size_t errlen);

/* HTTP_ROLE_ROOT routes also answer uid (the node agent: SlurmUser, as
 * whom the controller runs and calls it; slurmd's rule is the same). */
void http_server_set_service_uid(struct http_server *s, uid_t uid);
/* How long a request's MUNGE credential may wait for its check before the
 * request is answered 503 (default 2.5 s). herdd --emulate, whose one
 * munged checks the calls of thousands of nodes, lets them wait longer. */
void http_server_set_auth_timeout(struct http_server *s, int ms);

/* Listens on a Unix socket (mode 0666: callers are told apart by
 * SO_PEERCRED); an existing socket file is replaced. 0 or -1 with errno. */
int http_server_listen_unix(struct http_server *s, const char *path);
/* Listens on TCP addr:port; port 0 picks one; returns the bound port or -1. */
int http_server_listen_tcp(struct http_server *s, const char *addr, int port);

/* Replies and frees r (body is stolen, NULL means {}). */
void http_reply(struct http_req *r, int status, json_t *body);
/* Replies with a body already written as JSON text (buf is emptied); frees r.
 * For answers too large to build as one tree. */
struct evbuffer;
void http_reply_buffer(struct http_req *r, int status, struct evbuffer *buf);
/* The same with another Content-Type (squeue's table: text/tab-separated-values;
 * NULL: none, for a reply without a body). */
void http_reply_buffer_type(struct http_req *r, int status, struct evbuffer *buf,
                            const char *content_type);
/* {"error": msg, "code": code} with the given HTTP status; frees r. */
void http_reply_error(struct http_req *r, int status, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Looks up key in the query string ("a=1&b=2"); caller frees; NULL absent. */
char *http_query_get(const struct http_req *r, const char *key);

typedef void (*http_done)(int status, json_t *body, void *arg);

/* A TCP request with X-SLURM-USER-TOKEN (and X-SLURM-USER-NAME, NULL when
 * absent) and no MUNGE credential is let in as *who when check returns 0;
 * -1 (with why) refuses it 401 and logs why. Set by the controller when
 * slurm.conf enables auth/jwt. */
typedef int (*http_token_check)(void *arg, const char *user, const char *token,
                                struct auth_id *who, char *why, size_t whylen);
void http_server_set_token_check(struct http_server *s, http_token_check check, void *arg);

/* Sends method path with body (stolen; NULL: none) to addr:port over TCP,
 * with a MUNGE credential; done(status, body, arg) is called once, later
 * (never from inside http_call), body is borrowed for the call. timeout_s
 * bounds the exchange, after at most 2.5 s for the credential. */
void http_call(struct event_base *base, const char *munge_socket, const char *addr, int port,
               const char *method, const char *path, json_t *body, int timeout_s,
               http_done done, void *arg);

/* http_call on a loop of its own, waited for (commands only): the status
 * (0: no answer) and *answer, the body (a new reference; NULL: none). */
int http_call_wait(const char *munge_socket, const char *addr, int port, const char *method,
                   const char *path, json_t *body, int timeout_s, json_t **answer);

/* Frees the connections of base's ended calls now, rather than at the
 * loop's next turn: for a loop that has stopped and is about to be freed. */
void http_calls_settle(struct event_base *base);

/* Streams: a reply of unbounded length sent in chunks, for output that
 * comes as it is made (srun's tasks). The server starts the reply, writes
 * (false once the client is gone: nothing more will reach it) and ends it,
 * which frees r. The client gets each chunk as it arrives, then done() with
 * the status (an error answer's body is JSON, as http_call's). */
bool http_stream_start(struct http_req *r, const char *content_type);   /* false: gone */
bool http_stream_write(struct http_req *r, const void *data, size_t len);
/* As http_stream_write, taking (draining) what buf holds. */
bool http_stream_write_buffer(struct http_req *r, struct evbuffer *buf);
/* Bytes written and not yet sent to the client, so that a writer can wait
 * for a slow reader; -1 when the client is gone. */
long http_stream_backlog(struct http_req *r);
void http_stream_end(struct http_req *r);
/* Ends a stream that cannot be finished: the connection closed without
 * the end of the reply, so that the client sees the answer cut short.
 * Frees r. */
void http_stream_abort(struct http_req *r);

typedef void (*http_stream_chunk_cb)(const char *data, size_t len, void *arg);
void http_stream(struct event_base *base, const char *munge_socket, const char *addr, int port,
                 const char *path, json_t *body, int timeout_s, http_stream_chunk_cb chunk,
                 http_done done, void *arg);

#endif
