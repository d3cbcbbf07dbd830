/*
 * auth: who is calling. On the Unix socket the kernel says (SO_PEERCRED); on
 * TCP a MUNGE credential in the request's "Authorization: Munge CRED" header
 * proves the uid, as in Slurm. Nothing on TCP is trusted without one.
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

#endif
