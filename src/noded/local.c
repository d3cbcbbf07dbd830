/* The routes of local.h: a user's running jobs here, and joining one. */
#include "noded/local.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/conf.h"
#include "common/http.h"
#include "common/log.h"
#include "common/slurm_errno.h"
#include "common/xmalloc.h"
#include "noded/agent.h"
#include "noded/cgroup.h"
#include "noded/jobctl.h"
#include "noded/nodeconf.h"
#include "noded/spool.h"

void local_listen(struct agent *a)
{
    char *path = xasprintf("%s/%s", a->spool, LOCAL_SOCK_NAME);
    /* http_server_listen_unix makes it 0666 (its callers are told apart by
     * SO_PEERCRED); this one has only root callers, so nobody else may even
     * connect */
    if (http_server_listen_unix(a->srv, path) < 0 || chmod(path, 0600) < 0)
        log_warn("cannot listen on %s (pam_herd_adopt will find no jobs here)", path);
    free(path);
}

/* The job's groups, when the configuration gives jobs cgroups and this one
 * has them; NULL otherwise. */
static struct jobcg *job_cgroup(struct agent *a, int64_t id)
{
    struct nodeconf nc = { 0 };
    struct jobcg *cg = NULL;
    if (nodeconf_load(&nc, a->conf_path) == 0 && (nc.proctrack_cgroup || nc.task_cgroup)) {
        char *dir = spool_job_dir(a->spool, id);
        char *scope = jobctl_cgroup_scope(a->node->name, dir);
        cg = jobcg_open(nc.cgroup_mount, scope, id);
        free(scope);
        free(dir);
    }
    nodeconf_clear(&nc);
    return cg;
}

/* A job's owner and start, from its job.json; -1 when unreadable. */
static int job_owner(struct agent *a, int64_t id, int64_t *uid, int64_t *start)
{
    char *dir = spool_job_dir(a->spool, id);
    char *path = xasprintf("%s/%s", dir, SPOOL_JOB_JSON);
    json_t *o = json_load_file(path, 0, NULL);
    free(path);
    free(dir);
    json_t *ju = json_object_get(o, "user_id");
    int rc = json_is_integer(ju) ? 0 : -1;
    *uid = json_integer_value(ju);
    *start = json_integer_value(json_object_get(o, "start_time"));
    json_decref(o);
    return rc;
}

static bool running(const struct ajob *j)
{
    return !j->ended && !j->starting;
}

void local_jobs_req(struct http_req *r)
{
    struct agent *a = r->ctx;
    char *q = http_query_get(r, "uid"), *end = NULL;
    errno = 0;
    long long uid = q ? strtoll(q, &end, 10) : -1;
    bool ok = q && *q && !*end && errno == 0 && uid >= 0;
    free(q);
    if (!ok) {
        http_reply_error(r, 400, SLURM_ERROR, "local jobs request needs uid=N");
        return;
    }
    json_t *jobs = json_array();
    for (struct ajob *j = a->jobs; j; j = j->next) {
        int64_t owner, start;
        if (!running(j) || job_owner(a, j->id, &owner, &start) < 0 || owner != uid)
            continue;
        struct jobcg *cg = job_cgroup(a, j->id);
        json_array_append_new(jobs, json_pack("{sI sI sb}", "job_id", (json_int_t)j->id,
                                              "start_time", (json_int_t)start,
                                              "cgroup", cg != NULL));
        jobcg_close(cg);
    }
    http_reply(r, 200, json_pack("{ss so}", "node", a->node->name, "jobs", jobs));
}

void local_adopt_req(struct http_req *r)
{
    struct agent *a = r->ctx;
    json_t *jid = json_object_get(r->body, "job_id"), *jpid = json_object_get(r->body, "pid");
    if (!json_is_integer(jid) || !json_is_integer(jpid) || json_integer_value(jpid) <= 1
        || json_integer_value(jpid) > INT32_MAX) {
        http_reply_error(r, 400, SLURM_ERROR, "adopt request needs job_id, pid");
        return;
    }
    int64_t id = json_integer_value(jid);
    pid_t pid = (pid_t)json_integer_value(jpid);
    struct ajob *j = agent_job_find(a, id);
    if (!j || !running(j)) {
        http_reply_error(r, 404, ESLURM_INVALID_JOB_ID, "Invalid job id specified");
        return;
    }
    struct jobcg *cg = job_cgroup(a, id);
    if (!cg) {
        http_reply_error(r, 409, SLURM_ERROR, "job %" PRId64 " has no cgroup on %s", id,
                         a->node->name);
        return;
    }
    int rc = jobcg_attach(cg, pid);
    int e = errno;
    jobcg_close(cg);
    if (rc < 0) {
        http_reply_error(r, 500, SLURM_ERROR, "cannot move pid %d into job %" PRId64
                         "'s cgroup: %s", (int)pid, id, strerror(e));
        return;
    }
    log_info("job %" PRId64 ": pid %d adopted (pam_herd_adopt)", id, (int)pid);
    http_reply(r, 200, NULL);
}
