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
 * bodies being read, or read and waiting for their credential's check,
 * together at most max_in_flight. A request over a cap is answered (400,
 * 401, 413, 431 or 503), what evhttp has not read yet is dropped and the
 * connection closed: the body is never read. Header lines evhttp could read
 * otherwise than the guard (folded lines, two lengths, chunked bodies) are
 * refused; a HEAD or TRACE request has no body, as evhttp reads it.
 *
 * A TCP request whose body is larger than HTTP_GUARD_UNAUTH_BODY has its
 * credential checked from the header block, before any of its body is read:
 * the socket is not read meanwhile, and the bytes read with the header are
 * held back from evhttp. A valid credential lets the body through and the
 * uid/gid it proves goes to the server with the request (guards_take): MUNGE
 * refuses a credential decoded twice, so that one decode serves the request.
 * An invalid one is answered 401, munged not answering 503.
 */
#ifndef HERD_HTTP_GUARD_H
#define HERD_HTTP_GUARD_H

#include <stdbool.h>
#include <stddef.h>

#include "common/auth.h"

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

/* munge_socket (copied; NULL: MUNGE's default) and auth_timeout_ms: the
 * credential checks made before a body is read. */
struct http_guards *guards_create(size_t max_body, const char *munge_socket, int auth_timeout_ms);
/* After evhttp_free (which frees the connections and so their guards). */
void guards_destroy(struct http_guards *gs);
void guards_set_auth_timeout(struct http_guards *gs, int ms);

/* Reads the keys above from a Slurm-style "k=v,k=v" list (others are
 * ignored). 0, or -1 with a message in err. */
int guards_set_params(struct http_guards *gs, const char *params, char *err, size_t errlen);

/* evhttp_set_bevcb's callback (arg: the guards). */
struct bufferevent *guards_bevcb(struct event_base *base, void *arg);

/* What the guard hands the server with a request. */
struct guard_claim {
    size_t reserved;      /* body bytes counted against max_in_flight */
    bool proven;          /* its credential was checked before its body */
    struct auth_id who;   /* ... and proves this caller (when proven) */
};

/* The request on bev's connection has reached the server: the body bytes
 * reserved for it pass to the caller (to give back with guards_release once
 * the body is used), with the caller its credential proved if the guard
 * checked it, and the connection may send its next request. */
void guards_take(struct http_guards *gs, struct bufferevent *bev, struct guard_claim *out);
void guards_release(struct http_guards *gs, size_t bytes);

#endif
