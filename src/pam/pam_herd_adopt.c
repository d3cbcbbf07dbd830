/*
 * pam_herd_adopt: the account phase of sshd on a compute node, as Slurm's
 * pam_slurm_adopt. A user with no running job on this node is refused and
 * told so; one with a job is let in, and the calling process (sshd's, which
 * forks the session) is moved into that job's cgroups, so what the session
 * runs counts against the job's limits and is killed when the job ends.
 * With several jobs, action_unknown picks: the newest (default), or let in
 * without adopting, or refuse. Root and the admins= users pass (PAM_IGNORE,
 * as Slurm's ignore_root: the rest of the stack decides).
 *
 * Which jobs: herdd's root-only local socket (noded/local.h), found as the
 * commands find the configuration ($SLURM_CONF, else the default path):
 * SlurmdSpoolDir with %n the node's name, the nodename= argument or else
 * the short host name matched against the NodeName and NodeAddr entries.
 */
#include <errno.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#define PAM_SM_ACCOUNT
#include <security/pam_ext.h>
#include <security/pam_modules.h>

#include "common/conf.h"
#include "noded/local.h"
#include "pam/adopt_client.h"
#include "pam/adopt_opts.h"

#define PUBLIC __attribute__((visibility("default")))
#define CALL_TIMEOUT_MS 5000
#define DENY_NO_JOBS "Access denied by pam_herd_adopt: you have no active jobs on this node"
#define DENY_UNKNOWN "Access denied by pam_herd_adopt: unable to determine the job to adopt into"

struct ctx {
    pam_handle_t *pamh;
    struct adopt_opts o;
};

static void plog(const struct ctx *c, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void plog(const struct ctx *c, int level, const char *fmt, ...)
{
    if (level > c->o.log_level)
        return;
    static const int prio[] = { LOG_CRIT, LOG_CRIT, LOG_ERR, LOG_INFO, LOG_INFO, LOG_DEBUG };
    va_list ap;
    va_start(ap, fmt);
    pam_vsyslog(c->pamh, prio[level > ALOG_DEBUG ? ALOG_DEBUG : level], fmt, ap);
    va_end(ap);
}

static int answer(const struct ctx *c, enum adopt_action act)
{
    (void)c;
    return act == ACT_ALLOW ? PAM_SUCCESS : act == ACT_IGNORE ? PAM_IGNORE : PAM_PERM_DENIED;
}

/* What action_generic_failure says when the node's jobs cannot be known. */
static int generic_failure(const struct ctx *c, const char *why)
{
    plog(c, ALOG_ERROR, "%s; action_generic_failure applies", why);
    if (c->o.generic_failure == ACT_DENY)
        pam_error(c->pamh, "Access denied by pam_herd_adopt: %s", why);
    return answer(c, c->o.generic_failure);
}

/* The node this is: nodename=, else the short host name as a NodeName or
 * NodeAddr of the configuration; NULL when neither. */
static const char *node_name(const struct ctx *c, const struct conf *cf, char *host, size_t n)
{
    if (c->o.nodename[0])
        return c->o.nodename;
    if (gethostname(host, n) < 0)
        return NULL;
    host[n - 1] = '\0';
    host[strcspn(host, ".")] = '\0';
    if (conf_node_find(cf, host))
        return host;
    for (size_t i = 0; i < cf->nnodes; i++)
        if (cf->nodes[i].addr && strcmp(cf->nodes[i].addr, host) == 0)
            return cf->nodes[i].name;
    return NULL;
}

/* The user's running jobs here, from herdd; the "jobs" array (caller
 * decrefs) or NULL with why. */
static json_t *user_jobs(const char *sock, uid_t uid, char *why, size_t n)
{
    char path[64];
    snprintf(path, sizeof path, "/v1/local/jobs?uid=%u", (unsigned)uid);
    json_t *rep = NULL;
    int st = adopt_call(sock, "GET", path, NULL, CALL_TIMEOUT_MS, &rep, why, n);
    json_t *jobs = json_object_get(rep, "jobs");
    if (st == 200 && json_is_array(jobs)) {
        json_incref(jobs);
        json_decref(rep);
        return jobs;
    }
    if (st >= 0)
        snprintf(why, n, "herdd answered %d to %s: %s", st, path,
                 json_string_value(json_object_get(rep, "error")) ?: "no job list");
    json_decref(rep);
    return NULL;
}

/* The job with the latest start (the higher id on a tie). */
static json_t *newest(json_t *jobs)
{
    json_t *best = NULL, *j;
    size_t i;
    json_array_foreach(jobs, i, j) {
        json_int_t s = json_integer_value(json_object_get(j, "start_time"));
        json_int_t id = json_integer_value(json_object_get(j, "job_id"));
        json_int_t bs = json_integer_value(json_object_get(best, "start_time"));
        json_int_t bid = json_integer_value(json_object_get(best, "job_id"));
        if (!best || s > bs || (s == bs && id > bid))
            best = j;
    }
    return best;
}

/* Moves this process into job's cgroups; action_adopt_failure when it cannot. */
static int adopt(const struct ctx *c, const char *sock, const char *user, json_t *job)
{
    json_int_t id = json_integer_value(json_object_get(job, "job_id"));
    char why[512] = "";
    if (!json_is_true(json_object_get(job, "cgroup"))) {
        snprintf(why, sizeof why, "job %lld has no cgroup here (ProctrackType is not "
                 "proctrack/cgroup, or the machine has none)", (long long)id);
    } else {
        json_t *body = json_pack("{sI si}", "job_id", id, "pid", (int)getpid()), *rep = NULL;
        int st = body ? adopt_call(sock, "POST", "/v1/local/adopt", body, CALL_TIMEOUT_MS,
                                   &rep, why, sizeof why) : -1;
        json_decref(body);
        if (st == 200) {
            json_decref(rep);
            plog(c, ALOG_INFO, "Process %d adopted into job %lld for user %s", (int)getpid(),
                 (long long)id, user);
            return PAM_SUCCESS;
        }
        if (st > 0)
            snprintf(why, sizeof why, "herdd refused to adopt into job %lld (%d): %s",
                     (long long)id, st,
                     json_string_value(json_object_get(rep, "error")) ?: "no reason given");
        json_decref(rep);
    }
    plog(c, ALOG_ERROR, "%s; action_adopt_failure=%s", why,
         c->o.adopt_failure == ACT_DENY ? "deny" : "allow");
    if (c->o.adopt_failure == ACT_DENY) {
        pam_error(c->pamh, "Access denied by pam_herd_adopt: failed to adopt into job %lld",
                  (long long)id);
        return PAM_PERM_DENIED;
    }
    return PAM_SUCCESS;
}

/* The decision once the user's jobs on the node are known. */
static int decide(const struct ctx *c, const char *sock, const char *user, json_t *jobs)
{
    size_t n = json_array_size(jobs);
    if (n == 0) {
        if (c->o.no_jobs == ACT_IGNORE) {
            plog(c, ALOG_VERBOSE, "user %s has no jobs here; action_no_jobs=ignore", user);
            return PAM_IGNORE;
        }
        plog(c, ALOG_INFO, "%s (user %s)", DENY_NO_JOBS, user);
        pam_error(c->pamh, "%s", DENY_NO_JOBS);
        return PAM_PERM_DENIED;
    }
    if (n > 1 && c->o.unknown != ACT_NEWEST) {
        plog(c, ALOG_INFO, "user %s has %zu jobs here; action_unknown=%s", user, n,
             c->o.unknown == ACT_ALLOW ? "allow" : "deny");
        if (c->o.unknown == ACT_ALLOW)
            return PAM_SUCCESS;
        pam_error(c->pamh, "%s", DENY_UNKNOWN);
        return PAM_PERM_DENIED;
    }
    return adopt(c, sock, user, newest(jobs));
}

static int account(struct ctx *c, int argc, const char **argv)
{
    char bad[1024];
    adopt_opts_parse(&c->o, argc, argv, bad, sizeof bad);
    for (char *save = NULL, *l = strtok_r(bad, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
        plog(c, ALOG_ERROR, "argument refused: %s", l);

    const char *service = NULL;
    if (strcmp(c->o.service, "*") != 0
        && (pam_get_item(c->pamh, PAM_SERVICE, (const void **)&service) != PAM_SUCCESS
            || !service || strcmp(service, c->o.service) != 0)) {
        plog(c, ALOG_VERBOSE, "service %s is not %s (service=); not adopting",
             service ? service : "(none)", c->o.service);
        return PAM_IGNORE;
    }
    const char *user = NULL;
    if (pam_get_user(c->pamh, &user, NULL) != PAM_SUCCESS || !user || !*user) {
        plog(c, ALOG_ERROR, "no user name");
        return PAM_USER_UNKNOWN;
    }
    struct passwd pw, *pwp = NULL;
    char pwbuf[4096];
    if (getpwnam_r(user, &pw, pwbuf, sizeof pwbuf, &pwp) != 0 || !pwp) {
        plog(c, ALOG_ERROR, "user %s unknown", user);
        return PAM_USER_UNKNOWN;
    }
    if ((pw.pw_uid == 0 && c->o.ignore_root) || adopt_opts_admin(&c->o, user)) {
        plog(c, ALOG_VERBOSE, "ignoring %s (%s)", user, pw.pw_uid == 0 ? "root" : "admins=");
        return PAM_IGNORE;
    }

    char why[512];
    const char *path = conf_default_path();
    struct conf *cf = conf_load(path, why, sizeof why);
    if (!cf)
        return generic_failure(c, why);
    char host[256];
    const char *node = node_name(c, cf, host, sizeof host);
    int rc;
    if (!node) {
        snprintf(why, sizeof why, "host %s is no node of %s (set nodename=)", host, path);
        rc = generic_failure(c, why);
    } else {
        char *spool = conf_expand_node(cf->spool_dir, node);
        char sock[4096];
        snprintf(sock, sizeof sock, "%s/%s", spool, LOCAL_SOCK_NAME);
        free(spool);
        json_t *jobs = user_jobs(sock, pw.pw_uid, why, sizeof why);
        rc = jobs ? decide(c, sock, user, jobs) : generic_failure(c, why);
        json_decref(jobs);
    }
    conf_destroy(cf);
    return rc;
}

PUBLIC int pam_sm_acct_mgmt(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
    (void)flags;
    struct ctx c = { .pamh = pamh };
    return account(&c, argc, argv);
}
