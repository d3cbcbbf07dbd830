#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/http.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "noded/agent.h"
#include "noded/jobspec.h"
#include "noded/spool.h"
#include "noded/supervisor.h"
#include "noded/sysops.h"
#include "common/slurm_errno.h"

/* job.json (mode 0600: it holds the user's environment) and the script,
 * owned by the user, who runs it. A recycled slot's script is rewritten in
 * place only for its own user: the one before may still hold it open. */
static int write_job_files(const char *dir, const json_t *body, const struct job_spec *js)
{
    char *text = json_dumps(body, JSON_COMPACT);
    int rc = text ? spool_write(dir, SPOOL_JOB_JSON, text, 0600) : -1;
    free(text);
    char *script = xasprintf("%s/%s", dir, SPOOL_SCRIPT);
    struct stat st;
    if (rc == 0 && lstat(script, &st) == 0 && (st.st_uid != (uid_t)js->uid
                                               || !S_ISREG(st.st_mode)))
        rc = unlink(script);
    if (rc == 0)
        rc = spool_write(dir, SPOOL_SCRIPT, js->script, 0700);
    if (rc == 0 && getuid() == 0)
        rc = chown(script, (uid_t)js->uid, (gid_t)js->gid);
    free(script);
    return rc;
}

/* A slot of the pool filled, then renamed into place; else a new
 * directory. A directory no job of ours owns is a leftover. */
static int prepare_dir(struct agent *a, const char *dir, const json_t *body,
                       const struct job_spec *js, char *err, size_t errlen)
{
    char *slot = spool_pool_take(a->spool, &a->pool_free);
    const char *at = slot ? slot : dir;
    int rc = spool_rmtree(dir);
    if (rc == 0 && !slot)
        rc = mkdir(dir, 0700) < 0 || chmod(dir, SPOOL_DIR_MODE) < 0 ? -1 : 0;
    if (rc == 0)
        rc = write_job_files(at, body, js);
    if (rc == 0 && slot)
        rc = rename(slot, dir);
    if (rc < 0) {
        snprintf(err, errlen, "cannot prepare %s: %s", dir, strerror(errno));
        spool_rmtree(at);
    }
    free(slot);
    return rc;
}

/* The supervisor is spawned (vfork and exec: no copy of herdd's address
 * space) in a session of its own; herdd reaps it with its other children
 * on SIGCHLD, and if herdd stops first it is reparented and runs on. A
 * double fork had herdd copy itself twice and wait for the middle child on
 * every launch. The ready pipe's read end, for launch_wait, or -1 with err
 * set. */
static int spawn_supervisor(struct agent *a, const char *dir, char *err, size_t errlen)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    char kill_wait[16], verbose[16], fdstr[16];
    snprintf(kill_wait, sizeof kill_wait, "%d", a->conf->kill_wait);
    snprintf(verbose, sizeof verbose, "%d", a->verbose);
    snprintf(fdstr, sizeof fdstr, "%d", p[1]);
    char *argv[] = { "herdd", SUPERVISOR_FLAG, (char *)dir, a->conf_path, kill_wait,
                     a->log_file ? a->log_file : "-", verbose, fdstr, NULL };
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, p[1], p[1]);   /* the same fd: open across exec */
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID);
    pid_t pid;
    int rc = sys->spawn(&pid, "/proc/self/exe", &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(p[1]);
    if (rc != 0) {
        snprintf(err, errlen, "cannot run the supervisor: %s", strerror(rc));
        close(p[0]);
        return -1;
    }
    return p[0];
}

void launch_read_cpus(struct ajob *j, const char *dir)
{
    char *path = xasprintf("%s/%s", dir, SPOOL_JOB_JSON);
    json_t *o = json_load_file(path, 0, NULL);
    free(path);
    json_t *v = json_object_get(o, "herd_cpus");
    size_t i;
    json_t *e;
    free(j->cpu_ids);
    j->cpu_ids = xcalloc(json_array_size(v) + 1, sizeof *j->cpu_ids);
    j->ncpu_ids = 0;
    json_array_foreach(v, i, e)
        if (json_is_integer(e))
            j->cpu_ids[j->ncpu_ids++] = (int)json_integer_value(e);
    json_decref(o);
}

/* The node's CPU indices for a job of n CPUs: the lowest free ones (the
 * controller counts CPUs, herdd places them), then, should the node be
 * oversubscribed, the lowest taken ones. */
static json_t *pick_cpus(struct agent *a, int64_t n, struct ajob *j)
{
    int total = a->node->cpus > 0 ? a->node->cpus : 1;
    bool *used = xcalloc((size_t)total, sizeof *used);
    for (struct ajob *o = a->jobs; o; o = o->next)
        for (size_t i = 0; !o->ended && i < o->ncpu_ids; i++)
            if (o->cpu_ids[i] >= 0 && o->cpu_ids[i] < total)
                used[o->cpu_ids[i]] = true;
    if (n < 1)
        n = 1;
    if (n > total)
        n = total;
    json_t *arr = json_array();
    j->cpu_ids = xcalloc((size_t)n + 1, sizeof *j->cpu_ids);
    for (int pass = 0; pass < 2 && (int64_t)j->ncpu_ids < n; pass++)
        for (int c = 0; c < total && (int64_t)j->ncpu_ids < n; c++)
            if (used[c] == (pass == 1)) {
                j->cpu_ids[j->ncpu_ids++] = c;
                json_array_append_new(arr, json_integer(c));
            }
    free(used);
    return arr;
}

static json_t *gpu_devs_json(const struct agent *a)
{
    json_t *arr = json_array();
    for (size_t i = 0; a->gpu_devs && a->gpu_devs[i]; i++)
        json_array_append_new(arr, json_string(a->gpu_devs[i]));
    return arr;
}

static void refuse(struct http_req *r, int status, const char *err)
{
    log_warnx("launch refused: %s", err);
    http_reply_error(r, status, SLURM_ERROR, "%s", err);
}

/* The spool directory, then the supervisor; the request is answered when
 * the supervisor says it is up (launch_wait). */
static void start_job(struct agent *a, const struct job_spec *js, struct http_req *r)
{
    char err[512] = "";
    char *dir = spool_job_dir(a->spool, js->job_id);
    struct ajob tmp = { 0 };
    /* the supervisor reads the job back from job.json: make it whole */
    json_t *saved = json_deep_copy(r->body);
    json_object_set_new(saved, "node_name", json_string(a->node->name));
    json_object_set_new(saved, "herd_cpus", pick_cpus(a, js->node_cpus, &tmp));
    json_object_set_new(saved, "herd_gpu_devs", gpu_devs_json(a));
    int fd = -1;
    if (prepare_dir(a, dir, saved, js, err, sizeof err) == 0
        && (fd = spawn_supervisor(a, dir, err, sizeof err)) < 0)
        spool_rmtree(dir);
    json_decref(saved);
    if (fd < 0) {
        free(tmp.cpu_ids);
        free(dir);
        refuse(r, 500, err);
        return;
    }
    /* in the table now, so that the next launch counts its CPUs */
    struct ajob *j = agent_job_add(a, js->job_id);
    j->cpu_ids = tmp.cpu_ids;
    j->ncpu_ids = tmp.ncpu_ids;
    gpumon_job_init(a, j, dir);
    log_info("job %lld: starting for %s (uid %lld)", (long long)js->job_id, js->user_name,
             (long long)js->uid);
    launch_wait(j, fd, dir, r);
}

void launch_job(struct agent *a, struct http_req *r)
{
    char err[512] = "";
    struct job_spec *js = job_spec_from_json(r->body, err, sizeof err);
    if (!js) {
        refuse(r, 400, err);
        return;
    }
    struct ajob *j = agent_job_find(a, js->job_id);
    if (j && j->starting)
        launch_wait_join(j, r);        /* the same launch again: the same answer */
    else if (j)
        http_reply(r, 200, NULL);
    else if (js->node_name[0] && strcmp(js->node_name, a->node->name) != 0) {
        snprintf(err, sizeof err, "job %lld is for node %s, this is %s",
                 (long long)js->job_id, js->node_name, a->node->name);
        refuse(r, 400, err);
    } else
        start_job(a, js, r);
    job_spec_destroy(js);
}
