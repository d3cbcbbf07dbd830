/*
 * api_viewer: whose jobs one caller may read under PrivateData=jobs. As
 * slurmctld and slurmdbd decide it: everyone's when PrivateData does not
 * name jobs or the caller is an operator; else their own, and those of the
 * accounts they coordinate (and the accounts below those). Worked out once
 * per request, so that a list of 100,000 jobs asks NSS and the accounts
 * once, not per job.
 */
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "ctld/acctdb.h"
#include "ctld/api.h"
#include "ctld/ctld.h"
#include "ctld/prio.h"

void api_viewer_init(const struct http_req *r, struct api_viewer *v)
{
    const struct ctld *c = r->ctx;
    memset(v, 0, sizeof *v);
    v->uid = r->who.uid;
    v->private = api_jobs_private(r);
    if (!v->private)
        return;
    char buf[1024];
    struct passwd pw, *res = NULL;
    if (getpwuid_r(v->uid, &pw, buf, sizeof buf, &res) == 0 && res &&
        acctdb_is_coordinator(prio_get(c)->db, pw.pw_name))
        v->coord = xstrdup(pw.pw_name);
}

void api_viewer_free(struct api_viewer *v)
{
    free(v->coord);
    v->coord = NULL;
}

bool api_viewer_sees(const struct ctld *c, const struct api_viewer *v, uid_t owner,
                     const char *account, const char *owner_name)
{
    if (!v->private || owner == v->uid)
        return true;
    return v->coord && acctdb_coordinates(prio_get(c)->db, v->coord,
                                          prio_account_for(c, account, owner_name));
}

bool api_viewer_sees_job(const struct ctld *c, const struct api_viewer *v, const struct job *j)
{
    return api_viewer_sees(c, v, j->uid, j->account, j->user_name);
}

bool api_job_hidden(const struct http_req *r, const struct job *j)
{
    struct api_viewer v;
    api_viewer_init(r, &v);
    bool sees = api_viewer_sees_job(r->ctx, &v, j);
    api_viewer_free(&v);
    return !sees;
}
