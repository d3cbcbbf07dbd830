/*
 * token: Slurm's auth/jwt. With AuthAltTypes=auth/jwt and
 * AuthAltParameters=jwt_key=PATH the controller signs tokens (HS256, as
 * Slurm's: claims "sun" (the user), "iat", "exp") for `scontrol token`
 * (POST /v1/token) and lets in TCP requests that carry one in
 * X-SLURM-USER-TOKEN with X-SLURM-USER-NAME, as slurmrestd's clients send
 * them: the REST API, the dashboard, scripts with curl. MUNGE and the Unix
 * socket are untouched. A token made for root or SlurmUser may speak for
 * any user; any other only for its own.
 */
#ifndef HERD_CTLD_TOKEN_H
#define HERD_CTLD_TOKEN_H

#include <stddef.h>
#include <stdint.h>

struct ctld;
struct http_req;

#define TOKEN_DEFAULT_LIFESPAN 1800

/* At start: the key, when slurm.conf enables auth/jwt, and the server's
 * token check. 0, or -1 with err (a key missing, unreadable, too short or
 * readable by others). */
int token_init(struct ctld *c, char *err, size_t errlen);
void token_free(struct ctld *c);

/* POST /v1/token {"username"?, "lifespan"?} -> {"token"}. */
void api_token(struct http_req *r);

/* For the tests: a token for user, and the check. */
char *token_make(const unsigned char *key, size_t keylen, const char *user, int64_t now,
                 int64_t lifespan);
/* The user the token speaks for (caller frees), or NULL with why. */
char *token_verify(const unsigned char *key, size_t keylen, const char *token, int64_t now,
                   char *why, size_t whylen);

#endif
