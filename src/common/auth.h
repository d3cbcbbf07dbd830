/*
 * auth: who is calling. On the Unix socket the kernel says (SO_PEERCRED); on
 * TCP a MUNGE credential in the request's "Authorization: Munge CRED" header
 * proves the uid, as in Slurm. Nothing on TCP is trusted without one.
 *
 * A daemon's event loop must never wait on munged (a stopped or slow munged
 * would freeze it: libmunge has no timeout of its own and retries for about
 * 10 s), so daemons encode and decode through the asynchronous calls below:
 * libmunge runs on a few worker threads, which touch nothing else, and the
 * answer comes back on the loop's thread.
 */
#ifndef HERD_AUTH_H
#define HERD_AUTH_H

#include <stdbool.h>
#include <sys/types.h>

struct auth_id {
    uid_t uid;
    gid_t gid;
};

/* The peer of a connected Unix socket. 0, or -1 with errno. */
int auth_peercred(int fd, struct auth_id *out);

/* A fresh credential for the calling process's uid, from munged at socket
 * (NULL: MUNGE's default socket). Caller frees. NULL on error, with a
 * message in err. */
char *auth_munge_encode(const char *socket, char *err, size_t errlen);

/* Checks a credential (validity, expiry, replay). 0 and the uid/gid it
 * proves, or -1 with a message in err. */
int auth_munge_decode(const char *socket, const char *cred, struct auth_id *out,
                      char *err, size_t errlen);

/* The answer of an asynchronous call: rc 0 with who (decode) or cred
 * (encode, borrowed for the callback), or -1 with err (munged refused the
 * credential or failed, or busy: it did not answer within the timeout). */
struct auth_result {
    int rc;
    bool busy;             /* munged did not answer in time: worth a retry */
    bool refused;          /* busy before asking: too many calls waiting (no time spent) */
    struct auth_id who;
    const char *cred;
    const char *err;
};

struct event_base;
typedef void (*auth_done)(const struct auth_result *res, void *arg);

/* Decode cred / encode a credential off the loop. done(res, arg) is called
 * exactly once, on base's loop and never from inside this call, at the
 * latest timeout_ms after it. */
void auth_munge_decode_async(struct event_base *base, const char *socket, const char *cred,
                             int timeout_ms, auth_done done, void *arg);
void auth_munge_encode_async(struct event_base *base, const char *socket, int timeout_ms,
                             auth_done done, void *arg);
/* A loop that is about to be freed (a one-off loop, as a configless fetch
 * runs) gives back its wake-up pipe; none of its calls may be pending. */
void auth_async_release(struct event_base *base);
/* How many calls may wait for a worker before more are refused at once
 * (busy); default 512, one agent's share. A process that speaks for many
 * (herdd --emulate) raises it. n <= 0: the default. */
void auth_async_set_queue_max(int n);

#endif
