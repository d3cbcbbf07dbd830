/*
 * api_check: the checks every job request shares, written once: which job
 * the path names, whether the caller may act on it (root or its owner, as
 * Slurm's rule for cancel, hold, update and steps), a signal argument, and
 * the plain answer sent once a change is committed.
 */
#include <stdlib.h>

#include "common/slurm_errno.h"
#include "ctld/api.h"
#include "ctld/ctld.h"

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

bool api_may_act(const struct http_req *r, uid_t owner)
{
    return r->who.uid == 0 || r->who.uid == owner;
}

struct job *api_path_own_job(struct http_req *r)
{
    struct job *j = api_path_job(r);
    if (j && !api_may_act(r, j->uid)) {
        http_reply_error(r, 403, ESLURM_ACCESS_DENIED, API_MSG_DENIED);
        return NULL;
    }
    return j;
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
