#include "common/auth.h"

#include <munge.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>

static munge_ctx_t ctx_for(const char *socket, char *err, size_t errlen)
{
    munge_ctx_t ctx = munge_ctx_create();
    if (!ctx) {
        snprintf(err, errlen, "munge_ctx_create failed");
        return NULL;
    }
    if (socket && munge_ctx_set(ctx, MUNGE_OPT_SOCKET, socket) != EMUNGE_SUCCESS) {
        snprintf(err, errlen, "bad MUNGE socket %s", socket);
        munge_ctx_destroy(ctx);
        return NULL;
    }
    return ctx;
}

int auth_peercred(int fd, struct auth_id *out)
{
    struct ucred uc;
    socklen_t len = sizeof uc;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) < 0)
        return -1;
    out->uid = uc.uid;
    out->gid = uc.gid;
    return 0;
}

char *auth_munge_encode(const char *socket, char *err, size_t errlen)
{
    munge_ctx_t ctx = ctx_for(socket, err, errlen);
    if (!ctx)
        return NULL;
    char *cred = NULL;
    munge_err_t e = munge_encode(&cred, ctx, NULL, 0);
    if (e != EMUNGE_SUCCESS) {
        snprintf(err, errlen, "MUNGE encode failed: %s", munge_ctx_strerror(ctx));
        free(cred);
        cred = NULL;
    }
    munge_ctx_destroy(ctx);
    return cred;
}

int auth_munge_decode(const char *socket, const char *cred, struct auth_id *out,
                      char *err, size_t errlen)
{
    munge_ctx_t ctx = ctx_for(socket, err, errlen);
    if (!ctx)
        return -1;
    uid_t uid;
    gid_t gid;
    void *payload = NULL;
    int plen = 0;
    munge_err_t e = munge_decode(cred, ctx, &payload, &plen, &uid, &gid);
    free(payload);
    if (e != EMUNGE_SUCCESS) {
        snprintf(err, errlen, "invalid MUNGE credential: %s", munge_strerror(e));
        munge_ctx_destroy(ctx);
        return -1;
    }
    munge_ctx_destroy(ctx);
    out->uid = uid;
    out->gid = gid;
    return 0;
}
