/*
 * http_guard: what one peer may make an http server hold, enforced before
 * evhttp reads it (internal to http.c).
 *
 * evhttp's connections get their bufferevent from here, and the guard sees
 * each byte as the socket reads it, before evhttp does. It admits the
 * connection (a cap on connections in total and per peer: an IP address on
 * TCP, a uid on the Unix socket), reads each request's header block itself
 * (at most HTTP_GUARD_HEADER bytes) and decides what its body may be: a TCP
 * request without a well-formed "Authorization: Munge ..." header at most
 * HTTP_GUARD_UNAUTH_BODY bytes, any request at most max_body, and the
 * bodies being read or waiting for their credential's check together at
 * most max_in_flight. A request over a cap is answered (400, 401, 413, 431
 * or 503), what evhttp has not read yet is dropped and the connection
 * closed: the body is never read. Header lines evhttp could read otherwise
 * than the guard (folded lines, two lengths, chunked bodies) are refused.
 */
#ifndef HERD_HTTP_GUARD_H
#define HERD_HTTP_GUARD_H

#include <stddef.h>

#define HTTP_GUARD_HEADER      (64 * 1024)
#define HTTP_GUARD_UNAUTH_BODY (64 * 1024)

struct bufferevent;
struct event_base;
struct http_guards;

struct http_limits {
    int max_conns;            /* SlurmctldParameters conmgr_max_connections */
    int max_conns_per_peer;   /* max_connections_per_host */
    size_t max_body;          /* max_body_size */
    size_t max_in_flight;     /* max_body_in_flight */
};

struct http_guards *guards_create(size_t max_body);
/* After evhttp_free (which frees the connections and so their guards). */
void guards_destroy(struct http_guards *gs);

/* Reads the keys above from a Slurm-style "k=v,k=v" list (others are
 * ignored). 0, or -1 with a message in err. */
int guards_set_params(struct http_guards *gs, const char *params, char *err, size_t errlen);

/* evhttp_set_bevcb's callback (arg: the guards). */
struct bufferevent *guards_bevcb(struct event_base *base, void *arg);

/* The request on bev's connection has reached the server: the body bytes
 * reserved for it pass to the caller (to give back with guards_release once
 * the body is used), and the connection may send its next request. */
size_t guards_take(struct http_guards *gs, struct bufferevent *bev);
void guards_release(struct http_guards *gs, size_t bytes);

#endif
