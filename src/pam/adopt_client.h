/*
 * adopt_client: pam_herd_adopt's side of herdd's local socket (see
 * noded/local.h): one HTTP/1.0 request per connection, blocking, with a
 * time limit, since sshd waits on it. No libevent: a PAM module lives in
 * another program's process and should bring in as little as it can.
 */
#ifndef HERD_PAM_ADOPT_CLIENT_H
#define HERD_PAM_ADOPT_CLIENT_H

#include <jansson.h>
#include <stddef.h>

/* Sends method path (body: JSON, or NULL) to the socket at sock_path and
 * waits at most timeout_ms for the whole answer. Returns its HTTP status
 * with *reply its parsed body (NULL when not JSON; caller decrefs), or -1
 * with why in err when no answer came. */
int adopt_call(const char *sock_path, const char *method, const char *path, const json_t *body,
               int timeout_ms, json_t **reply, char *err, size_t errlen);

#endif
