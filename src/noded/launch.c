#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "noded/agent.h"
#include "noded/jobspec.h"
#include "noded/spool.h"
#include "noded/supervisor.h"

#define READY_TIMEOUT_MS 10000

/* job.json (mode 0600: it holds the user's environment) and the script,
 * owned by the user, who runs it. */
static int write_job_files(const char *dir, const json_t *body, const struct job_spec *js)
{
    char *text = json_dumps(body, JSON_COMPACT);
    int rc = text ? spool_write(dir, SPOOL_JOB_JSON, text, 0600) : -1;
    free(text);
    if (rc < 0 || spool_write(dir, SPOOL_SCRIPT, js->script, 0700) < 0)
        return -1;
    char *script = xasprintf("%s/%s", dir, SPOOL_SCRIPT);
    rc = getuid() == 0 ? chown(script, (uid_t)js->uid, (gid_t)js->gid) : 0;
    free(script);
    return rc;
}

static int prepare_dir(const char *dir, const json_t *body, const struct job_spec *js,
                       char *err, size_t errlen)
{
    /* a directory no job of ours owns is a leftover */
    if (spool_rmtree(dir) < 0 || mkdir(dir, 0700) < 0 || chmod(dir, 0711) < 0
        || write_job_files(dir, body, js) < 0) {
        snprintf(err, errlen, "cannot prepare %s: %s", dir, strerror(errno));
        spool_rmtree(dir);
        return -1;
    }
    return 0;
}

static void exec_supervisor(struct agent *a, const char *dir, int fd) __attribute__((noreturn));
static void exec_supervisor(struct agent *a, const char *dir, int fd)
{
    char kill_wait[16], verbose[16], fdstr[16];
    snprintf(kill_wait, sizeof kill_wait, "%d", a->conf->kill_wait);
    snprintf(verbose, sizeof verbose, "%d", a->verbose);
    snprintf(fdstr, sizeof fdstr, "%d", fd);
    char *argv[] = { "herdd", SUPERVISOR_FLAG, (char *)dir, a->conf_path, kill_wait,
                     a->log_file ? a->log_file : "-", verbose, fdstr, NULL };
    fcntl(fd, F_SETFD, 0);
    execv("/proc/self/exe", argv);
    dprintf(fd, "ER cannot run the supervisor: %s\n", strerror(errno));
    _exit(127);
}

/* The supervisor's "OK <pid> <pgid>" or "ER <why>"; bounded wait. */
static int read_ready(int fd, struct ajob *j, char *err, size_t errlen)
{
    char buf[512];
    size_t len = 0;
    struct pollfd p = { .fd = fd, .events = POLLIN };
    while (len < sizeof buf - 1 && poll(&p, 1, READY_TIMEOUT_MS) > 0) {
        ssize_t n = read(fd, buf + len, sizeof buf - 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    buf[len] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    long sup, pgid;
    if (sscanf(buf, "OK %ld %ld", &sup, &pgid) == 2 && sup > 1 && pgid > 1) {
        j->sup_pid = (pid_t)sup;
        j->pgid = (pid_t)pgid;
        return 0;
    }
    snprintf(err, errlen, "supervisor failed: %s",
             strncmp(buf, "ER ", 3) == 0 ? buf + 3 : "no answer");
    return -1;
}

/* Double fork: the supervisor is reparented to init and outlives herdd. */
static int spawn_supervisor(struct agent *a, const char *dir, struct ajob *j,
                            char *err, size_t errlen)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    pid_t mid = fork();
    if (mid == 0) {
        close(p[0]);
        setsid();
        if (fork() == 0)
            exec_supervisor(a, dir, p[1]);
        _exit(0);
    }
    close(p[1]);
    int rc = -1;
    if (mid < 0)
        snprintf(err, errlen, "fork: %s", strerror(errno));
    else {
        waitpid(mid, NULL, 0);
        rc = read_ready(p[0], j, err, errlen);
    }
    close(p[0]);
    return rc;
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

int launch_job(struct agent *a, const json_t *body, char *err, size_t errlen)
{
    struct job_spec *js = job_spec_from_json(body, err, errlen);
    if (!js)
        return 400;
    int status = 200;
    if (agent_job_find(a, js->job_id))
        goto out;
    if (js->node_name[0] && strcmp(js->node_name, a->node->name) != 0) {
        snprintf(err, errlen, "job %lld is for node %s, this is %s", (long long)js->job_id,
                 js->node_name, a->node->name);
        status = 400;
        goto out;
    }
    char *dir = spool_job_dir(a->spool, js->job_id);
    struct ajob tmp = { 0 };
    /* the supervisor reads the job back from job.json: make it whole */
    json_t *saved = json_deep_copy(body);
    json_object_set_new(saved, "node_name", json_string(a->node->name));
    json_object_set_new(saved, "herd_cpus", pick_cpus(a, js->node_cpus, &tmp));
    json_object_set_new(saved, "herd_gpu_devs", gpu_devs_json(a));
    status = 500;
    if (prepare_dir(dir, saved, js, err, errlen) == 0) {
        if (spawn_supervisor(a, dir, &tmp, err, errlen) == 0) {
            struct ajob *j = agent_job_add(a, js->job_id);
            j->sup_pid = tmp.sup_pid;
            j->pgid = tmp.pgid;
            j->cpu_ids = tmp.cpu_ids;
            j->ncpu_ids = tmp.ncpu_ids;
            tmp.cpu_ids = NULL;
            status = 200;
            log_info("job %lld: started for %s (uid %lld), supervisor %ld",
                     (long long)js->job_id, js->user_name, (long long)js->uid,
                     (long)j->sup_pid);
        } else {
            spool_rmtree(dir);
        }
    }
    json_decref(saved);
    free(tmp.cpu_ids);
    free(dir);
out:
    if (status != 200)
        log_warnx("launch refused: %s", err);
    job_spec_destroy(js);
    return status;
}
