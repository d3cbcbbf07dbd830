#include "ctld/token.h"

#include <errno.h>
#include <fcntl.h>
#include <jwt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/http.h"
#include "common/log.h"
#include "common/slurm_errno.h"
#include "common/xmalloc.h"
#include "ctld/api.h"
#include "ctld/clock.h"
#include "ctld/ctld.h"

#define KEY_MIN 16          /* bytes: Slurm's example key is 32 random bytes */
#define KEY_MAX 4096

struct token_key {
    unsigned char *key;
    size_t len;
};

char *token_make(const unsigned char *key, size_t keylen, const char *user, int64_t now,
                 int64_t lifespan)
{
    jwt_t *jwt = NULL;
    char *out = NULL;
    if (jwt_new(&jwt) == 0 && jwt_add_grant(jwt, "sun", user) == 0 &&
        jwt_add_grant_int(jwt, "iat", (long)now) == 0 &&
        jwt_add_grant_int(jwt, "exp", (long)(now + lifespan)) == 0 &&
        jwt_set_alg(jwt, JWT_ALG_HS256, key, (int)keylen) == 0) {
        char *s = jwt_encode_str(jwt);
        out = s ? xstrdup(s) : NULL;
        free(s);
    }
    jwt_free(jwt);
    return out;
}

char *token_verify(const unsigned char *key, size_t keylen, const char *token, int64_t now,
                   char *why, size_t whylen)
{
    jwt_t *jwt = NULL;
    char *user = NULL;
    if (!token || jwt_decode(&jwt, token, key, (int)keylen) != 0 || !jwt)
        snprintf(why, whylen, "not a token signed with this cluster's key");
    else if (jwt_get_alg(jwt) != JWT_ALG_HS256)   /* never "none", never another key type */
        snprintf(why, whylen, "algorithm %s, not HS256", jwt_alg_str(jwt_get_alg(jwt)));
    else if (jwt_get_grant_int(jwt, "exp") <= 0 || jwt_get_grant_int(jwt, "exp") <= now)
        snprintf(why, whylen, "expired");
    else if (!jwt_get_grant(jwt, "sun") || !*jwt_get_grant(jwt, "sun"))
        snprintf(why, whylen, "no user (sun) in the token");
    else
        user = xstrdup(jwt_get_grant(jwt, "sun"));
    jwt_free(jwt);
    return user;
}

static bool speaks_for_all(const struct conf *cf, const char *user)
{
    return !strcmp(user, "root") || (cf->slurm_user && !strcmp(cf->slurm_user, user));
}

static int check(void *arg, const char *name, const char *tok, struct auth_id *who, char *why,
                 size_t whylen)
{
    struct ctld *c = arg;
    struct token_key *k = c->token;
    char *sun = token_verify(k->key, k->len, tok, ctld_now(), why, whylen);
    if (!sun)
        return -1;
    const char *as = name && *name ? name : sun;
    int rc = -1;
    struct passwd pw, *res = NULL;
    char buf[4096];
    if (strcmp(as, sun) && !speaks_for_all(c->conf, sun))
        snprintf(why, whylen, "a token of %s cannot speak for %s", sun, as);
    else if (getpwnam_r(as, &pw, buf, sizeof buf, &res) != 0 || !res)
        snprintf(why, whylen, "no such user %s", as);
    else {
        who->uid = pw.pw_uid;
        who->gid = pw.pw_gid;
        rc = 0;
    }
    free(sun);
    return rc;
}

/* Slurm's rule for the key file: there, readable, not open to others. */
static int key_load(const char *path, struct token_key *k, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        snprintf(err, errlen, "jwt_key %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode) || st.st_mode & S_IRWXO || st.st_size < KEY_MIN ||
        st.st_size > KEY_MAX) {
        snprintf(err, errlen, "jwt_key %s: %s", path,
                 !S_ISREG(st.st_mode) ? "not a regular file"
                 : st.st_mode & S_IRWXO ? "accessible by other users (chmod 0600 it)"
                 : "must hold 16 to 4096 bytes (dd if=/dev/random bs=32 count=1)");
        close(fd);
        return -1;
    }
    k->key = xmalloc((size_t)st.st_size);
    ssize_t n = read(fd, k->key, (size_t)st.st_size);
    close(fd);
    if (n != st.st_size) {
        snprintf(err, errlen, "jwt_key %s: short read", path);
        xfree(k->key);
        return -1;
    }
    k->len = (size_t)n;
    return 0;
}

/* AuthAltParameters' jwt_key=, else Slurm's default beside the state. */
static char *key_path(const struct conf *cf)
{
    const char *p = cf->auth_alt_params ? strstr(cf->auth_alt_params, "jwt_key=") : NULL;
    if (!p)
        return xasprintf("%s/jwt_hs256.key", cf->state_save);
    p += 8;
    return xstrndup(p, strcspn(p, ","));
}

int token_init(struct ctld *c, char *err, size_t errlen)
{
    const char *types = c->conf->auth_alt_types;
    if (!types || !strstr(types, "auth/jwt"))
        return 0;
    char *path = key_path(c->conf);
    struct token_key *k = xcalloc(1, sizeof *k);
    if (key_load(path, k, err, errlen) < 0) {
        free(k);
        free(path);
        return -1;
    }
    c->token = k;
    http_server_set_token_check(c->http, check, c);
    log_info("auth/jwt: tokens signed with %s", path);
    free(path);
    return 0;
}

void token_free(struct ctld *c)
{
    struct token_key *k = c->token;
    if (!k)
        return;
    explicit_bzero(k->key, k->len);
    free(k->key);
    free(k);
    c->token = NULL;
}

static const char *user_of(uid_t uid, char *buf, size_t n)
{
    struct passwd pw, *res = NULL;
    char pbuf[4096];
    if (getpwuid_r(uid, &pw, pbuf, sizeof pbuf, &res) != 0 || !res)
        return NULL;
    snprintf(buf, n, "%s", pw.pw_name);
    return buf;
}

void api_token(struct http_req *r)
{
    struct ctld *c = r->ctx;
    struct token_key *k = c->token;
    if (!k) {
        http_reply_error(r, 400, SLURM_ERROR, "Requested operation not supported on "
                         "this system (auth/jwt is not in AuthAltTypes)");
        return;
    }
    char me[256];
    const char *self = user_of(r->who.uid, me, sizeof me);
    const char *want = json_string_value(json_object_get(r->body, "username"));
    json_t *lv = json_object_get(r->body, "lifespan");
    int64_t life = json_is_integer(lv) ? json_integer_value(lv) : TOKEN_DEFAULT_LIFESPAN;
    if (!self || (lv && !json_is_integer(lv)) || life < 1 || life > 10LL * 365 * 86400) {
        http_reply_error(r, 400, SLURM_ERROR, "Invalid lifespan (seconds, 1 or more)");
        return;
    }
    if (want && strcmp(want, self) && r->who.uid != 0 && !speaks_for_all(c->conf, self)) {
        log_warnx("uid %u asked for a token of %s: refused", (unsigned)r->who.uid, want);
        http_reply_error(r, 403, ESLURM_ACCESS_DENIED, API_MSG_DENIED);
        return;
    }
    struct passwd pw, *res = NULL;
    char buf[4096];
    if (want && (getpwnam_r(want, &pw, buf, sizeof buf, &res) != 0 || !res)) {
        http_reply_error(r, 400, ESLURM_USER_ID_MISSING, "Invalid user id");
        return;
    }
    char *tok = token_make(k->key, k->len, want ? want : self, ctld_now(), life);
    if (!tok) {
        http_reply_error(r, 500, SLURM_ERROR, "cannot make a token");
        return;
    }
    http_reply(r, 200, json_pack("{s:s}", "token", tok));
    free(tok);
}
