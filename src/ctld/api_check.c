/*
 * api_check: the checks every job request shares, written once: which job
 * the path names, whether the caller may act on it (root, its owner or a
 * coordinator of its account, as Slurm's rule for cancel, hold, update and
 * steps), who is an operator, what PrivateData=jobs hides, a signal
 * argument, and the plain answer sent once a change is committed.
 */
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include "common/acct_keys.h"
#include "common/conf.h"
#include "common/slurm_errno.h"
#include "ctld/api.h"
#include "ctld/acctdb.h"
#include "ctld/ctld.h"
#include "ctld/prio.h"

struct job *api_path_job(struct http_req *r)
{
    struct ctld *c = r->ctx;
    char *end;
    const char *s = r->args[0];
    unsigned long long id = strtoull(s, &end, 10);
    struct job *j = (*s >= '0' && *s <= '9' && *end == '\0') ? job_find(c, id) : NULL;
    if (!j)
        http_reply_error(r, 404, ESLURM_INVALID_JOB_ID, "Invalid job id specified");
    return j;
}

bool api_is_owner(const struct http_req *r, const struct job *j)
{
    return r->who.uid == 0 || r->who.uid == j->uid;
}

bool api_may_act(const struct http_req *r, const struct job *j)
{
    if (api_is_owner(r, j))
        return true;
    char buf[1024];
    struct passwd pw, *res = NULL;
    const struct ctld *c = r->ctx;
    return getpwuid_r(r->who.uid, &pw, buf, sizeof buf, &res) == 0 && res &&
           acctdb_coordinates(prio_get(c)->db, pw.pw_name, prio_job_account(c, j));
}

bool api_is_operator(const struct ctld *c, uid_t uid)
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

bool api_jobs_private(const struct http_req *r)
{
    const struct ctld *c = r->ctx;
    const char *pd = c->conf->private_data;
    return pd && acct_word_in(pd, "jobs", 4) && !api_is_operator(c, r->who.uid);
}

struct job *api_path_visible_job(struct http_req *r)
{
    struct job *j = api_path_job(r);
    if (j && api_job_hidden(r, j)) {
        http_reply_error(r, 404, ESLURM_INVALID_JOB_ID, "Invalid job id specified");
        return NULL;
    }
    return j;
}

static struct job *path_job_if(struct http_req *r,
                               bool (*may)(const struct http_req *, const struct job *))
{
    struct job *j = api_path_job(r);
    if (j && !may(r, j)) {
        http_reply_error(r, 403, ESLURM_ACCESS_DENIED, API_MSG_DENIED);
        return NULL;
    }
    return j;
}

struct job *api_path_own_job(struct http_req *r)
{
    return path_job_if(r, api_may_act);
}

struct job *api_path_owner_job(struct http_req *r)
{
    return path_job_if(r, api_is_owner);
}

int api_signal_arg(const json_t *body)
{
    const json_t *v = json_object_get(body, "signal");
    if (!v)
        return 0;
    json_int_t sig = json_is_integer(v) ? json_integer_value(v) : -1;
    return sig >= 1 && sig <= 64 ? (int)sig : -1;
}

void api_reply_after_commit(void *arg)
{
    http_reply(arg, 200, NULL);
}
