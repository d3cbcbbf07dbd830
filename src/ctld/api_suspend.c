/*
 * api_suspend: POST /v1/jobs/{id}/suspend and /resume (scontrol suspend,
 * scontrol resume). As Slurm: root, SlurmUser, or a user whose AdminLevel
 * is Operator or Administrator; anyone else gets Access/permission denied.
 */
#include <pwd.h>
#include <string.h>

#include "common/conf.h"
#include "common/slurm_errno.h"
#include "ctld/acctdb.h"
#include "ctld/api.h"
#include "ctld/ctld.h"
#include "ctld/prio.h"
#include "ctld/store.h"
#include "ctld/suspend.h"

static bool may_suspend(const struct ctld *c, uid_t uid)
{
    if (uid == 0)
        return true;
    char buf[1024];
    struct passwd pw, *res = NULL;
    if (getpwuid_r(uid, &pw, buf, sizeof buf, &res) != 0 || !res)
        return false;
    if (c->conf->slurm_user && strcmp(c->conf->slurm_user, pw.pw_name) == 0)
        return true;
    return strcmp(acctdb_admin_level(prio_get(c)->db, pw.pw_name), "None") != 0;
}

static void suspend_or_resume(struct http_req *r, bool stop)
{
    struct ctld *c = r->ctx;
    struct job *j = api_path_job(r);
    if (!j)
        return;
    if (!may_suspend(c, r->who.uid)) {
        http_reply_error(r, 403, ESLURM_ACCESS_DENIED, API_MSG_DENIED);
        return;
    }
    int code = 0;
    const char *msg = NULL;
    if (suspend_job(c, j, stop, &code, &msg) < 0) {
        http_reply_error(r, 400, code, "%s", msg);
        return;
    }
    store_after_commit(c->store, api_reply_after_commit, r);
}

void api_job_suspend(struct http_req *r)
{
    suspend_or_resume(r, true);
}

void api_job_resume(struct http_req *r)
{
    suspend_or_resume(r, false);
}
