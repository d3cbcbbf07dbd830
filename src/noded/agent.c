#include "noded/agent.h"
#include "noded/local.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netdb.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/conf.h"
#include "common/http.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "noded/detect.h"
#include "noded/jobctl.h"
#include "noded/step.h"
#include "noded/supervisor.h"
#include "noded/sysops.h"
#include "noded/clock.h"

#define REPORT_TIMEOUT_S 5

struct ajob *agent_job_find(struct agent *a, int64_t id)
{
    for (struct ajob *j = a->jobs; j; j = j->next)
        if (j->id == id)
            return j;
    return NULL;
}

struct ajob *agent_job_add(struct agent *a, int64_t id)
{
    struct ajob *j = xcalloc(1, sizeof *j);
    j->agent = a;
    j->id = id;
    j->next = a->jobs;
    a->jobs = j;
    return j;
}

void agent_job_signal(struct ajob *j, int sig, bool cancel, bool batch)
{
    int v = sig | (batch && !cancel ? SUP_SIG_BATCH : 0);
    if (j->sup_pid > 1 && sys->sigqueue(j->sup_pid, cancel ? SIGTERM : SIGUSR1,
                                   (union sigval){ .sival_int = v }) == 0)
        return;
    sig = sig & SUP_SIG_SUSPEND ? SIGSTOP : sig & SUP_SIG_RESUME ? SIGCONT
        : sig & ~(SUP_SIG_REQUEUE | SUP_SIG_PREEMPT);
    if (j->pgid > 1 && sig > 0)
        sys->kill(-j->pgid, sig);
}

void agent_job_forget(struct agent *a, struct ajob *j)
{
    for (struct ajob **pp = &a->jobs; *pp; pp = &(*pp)->next) {
        if (*pp == j) {
            *pp = j->next;
            gpumon_job_free(j);
            free(j->cpu_ids);
            free(j);
            return;
        }
    }
}

/* The pid is our supervisor of dir, not a process that reused its number. */
static bool supervisor_alive(pid_t pid, const char *dir)
{
    if (pid <= 1)
        return false;
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%ld/cmdline", (long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    const char *arg1 = buf + strlen(buf) + 1;
    if (arg1 >= buf + n || strcmp(arg1, SUPERVISOR_FLAG) != 0)
        return false;
    const char *arg2 = arg1 + strlen(arg1) + 1;
    return arg2 < buf + n && strcmp(arg2, dir) == 0;
}

/* A supervisor that died without a result leaves a job nobody watches:
 * every process of it goes before its end is reported, or it would keep
 * running on resources given to the next job. */
static void job_lost(struct agent *a, struct ajob *j, const char *dir)
{
    log_warnx("job %lld: its supervisor is gone without a result", (long long)j->id);
    if (j->pgid > 1)
        sys->kill(-j->pgid, SIGKILL);
    if (jobctl_cgroup_end(a->conf_path, a->node->name, dir, j->id) < 0)
        log_warnx("job %lld: processes left in its cgroup", (long long)j->id);
    memset(&j->res, 0, sizeof j->res);
    snprintf(j->res.state, sizeof j->res.state, "FAILED");
    j->res.exit_code = 1;
    j->res.end_time = noded_now();
    if (spool_result_write(dir, &j->res) < 0)
        log_warn("job %lld: cannot write its result", (long long)j->id);
}

static void job_check(struct agent *a, struct ajob *j)
{
    char *dir = spool_job_dir(a->spool, j->id);
    if (spool_result_read(dir, &j->res) == 0)
        j->ended = true;
    else if (!supervisor_alive(j->sup_pid, dir)) {
        /* it may have written the result just before it exited */
        if (spool_result_read(dir, &j->res) < 0)
            job_lost(a, j, dir);
        j->ended = true;
    }
    free(dir);
}

static void report_done(int status, json_t *body, void *arg)
{
    (void)body;
    struct ajob *j = arg;
    struct agent *a = j->agent;
    j->reporting = false;
    if (status != 200) {
        log_debug("job %lld: job_end not acknowledged (status %d), will retry",
                  (long long)j->id, status);
        return;
    }
    log_info("job %lld: end reported (%s)", (long long)j->id, j->res.state);
    char *dir = spool_job_dir(a->spool, j->id);
    if (spool_pool_put(a->spool, &a->pool_free, dir) < 0)
        log_warn("cannot remove %s", dir);
    free(dir);
    agent_job_forget(a, j);
}

static void report_end(struct agent *a, struct ajob *j)
{
    json_t *body = json_pack("{s:s, s:I, s:s, s:i, s:i, s:I}", "name", a->node->name,
                             "job_id", (json_int_t)j->id, "state", j->res.state,
                             "exit_code", j->res.exit_code, "exit_signal", j->res.exit_signal,
                             "end_time", (json_int_t)j->res.end_time);
    json_t *usage = spool_usage_json(&j->res), *gpu = gpumon_job_json(j);
    if (gpu) {
        if (!usage)
            usage = json_object();
        json_object_set_new(usage, "gpu", gpu);
    }
    if (usage)
        json_object_set_new(body, "usage", usage);
    if (j->res.prolog_failed)
        json_object_set_new(body, "prolog_failed", json_true());
    j->reporting = true;
    /* the callback may run (and free j) before http_call returns */
    http_call(a->base, a->conf->munge_socket, a->conf->ctld_addr, a->conf->ctld_port, "POST",
              "/v1/node/job_end", body, a->stopping ? 1 : REPORT_TIMEOUT_S, report_done, j);
}

static void send_register(struct agent *a);

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct agent *a = arg;
    for (struct ajob *j = a->jobs, *next; j; j = next) {
        next = j->next;
        if (!j->ended && !j->starting)
            job_check(a, j);
        if (j->ended && !j->reporting)
            report_end(a, j);
    }
    /* spread over two ticks, so that the refused nodes do not come back as one */
    if (a->register_refused && random() % 2)
        send_register(a);
    gpumon_tick(a);
    confd_tick(a);
    if (a->stopping && (!a->jobs || noded_now() >= a->stop_by))
        event_base_loopbreak(a->base);
}

static void register_done(int status, json_t *body, void *arg)
{
    struct agent *a = arg;
    a->registering = false;
    /* the controller was busy (a storm of registrations after its restart):
     * no work comes here until it has us, so try again soon */
    a->register_refused = status == 503;
    if (status != 200)
        log_debug("registration not acknowledged (status %d)", status);
    else
        confd_check(a, json_string_value(json_object_get(body, "conf_hash")));
}

static void send_register(struct agent *a)
{
    if (a->registering || a->stopping)
        return;
    const struct conf_node *n = a->node;
    json_t *jobs = json_array(), *starting = json_array();
    /* those still starting apart: should a start fail, the controller, told
     * of the job as running here, would take it for running */
    for (struct ajob *j = a->jobs; j; j = j->next)
        json_array_append_new(j->starting ? starting : jobs, json_integer(j->id));
    json_t *body = json_pack("{s:s, s:i, s:I, s:i, s:s, s:i, s:o, s:o}", "name", n->name,
                             "cpus", n->cpus, "mem_mb", (json_int_t)n->mem_mb,
                             "gpus", n->gpus, "gpu_type", n->gpu_type ? n->gpu_type : "",
                             "port", a->port, "jobs", jobs, "starting", starting);
    a->registering = true;
    http_call(a->base, a->conf->munge_socket, a->conf->ctld_addr, a->conf->ctld_port, "POST",
              "/v1/node/register", body, REPORT_TIMEOUT_S, register_done, a);
}

static void on_beat(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    send_register(arg);
}

/* Jobs left by an earlier herdd: running under their supervisors, or
 * ended and waiting to be reported. */
static void scan_spool(struct agent *a)
{
    DIR *d = opendir(a->spool);
    if (!d) {
        log_warn("cannot read %s", a->spool);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        int64_t id = spool_parse_name(e->d_name);
        if (id < 0 || agent_job_find(a, id))
            continue;
        struct ajob *j = agent_job_add(a, id);
        char *dir = spool_job_dir(a->spool, id);
        j->sup_pid = spool_read_pid(dir, SPOOL_SUP_PID);
        j->pgid = spool_read_pid(dir, SPOOL_PGID);
        launch_read_cpus(j, dir);
        gpumon_job_init(a, j, dir);
        free(dir);
        job_check(a, j);
        log_info("job %lld: found in the spool, %s", (long long)id,
                 j->ended ? j->res.state : "running");
    }
    closedir(d);
}

/* The IPv4 address to listen on for NodeAddr, which may be a name; one
 * that does not resolve gives every address, as slurmd listens. */
static void listen_addr(const char *addr, char *out, size_t n)
{
    struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *res;
    snprintf(out, n, "0.0.0.0");
    if (!addr || getaddrinfo(addr, NULL, &hints, &res) != 0)
        return;
    inet_ntop(AF_INET, &((struct sockaddr_in *)res->ai_addr)->sin_addr, out, (socklen_t)n);
    freeaddrinfo(res);
}

static void on_notify(evutil_socket_t fd, short what, void *arg)
{
    char buf[64];
    while (recv(fd, buf, sizeof buf, MSG_DONTWAIT) > 0)
        ;
    on_tick(fd, what, arg);
}

static int start_timers(struct agent *a)
{
    int every = a->conf->slurmd_timeout / 3;
    struct timeval one = { 1, 0 }, beat = { every < 1 ? 1 : every > 10 ? 10 : every, 0 };
    a->tick = event_new(a->base, -1, EV_PERSIST, on_tick, a);
    a->beat = event_new(a->base, -1, EV_PERSIST, on_beat, a);
    if (!a->tick || !a->beat || event_add(a->tick, &one) < 0 || event_add(a->beat, &beat) < 0)
        return -1;
    a->notify_fd = spool_notify_open(a->spool);
    if (a->notify_fd >= 0) {
        a->notify = event_new(a->base, a->notify_fd, EV_READ | EV_PERSIST, on_notify, a);
        event_add(a->notify, NULL);
    }
    return 0;
}

struct agent *agent_create(struct event_base *base, const struct conf *conf,
                           const struct conf_node *node, const char *conf_path,
                           const char *log_file, int verbose, char *err, size_t errlen)
{
    struct agent *a = xcalloc(1, sizeof *a);
    a->base = base;
    a->conf = conf;
    a->node = node;
    a->conf_path = xstrdup(conf_path);
    a->log_file = xstrdup(log_file);
    a->verbose = verbose;
    a->notify_fd = -1;
    a->spool = conf_expand_node(conf->spool_dir, node->name);

    /* chmod too: a spool made by an older herdd was world-readable */
    if (spool_mkdirs(a->spool, 0755) < 0 || chmod(a->spool, SPOOL_DIR_MODE) < 0) {
        snprintf(err, errlen, "cannot create spool directory %s: %s", a->spool,
                 strerror(errno));
        agent_destroy(a);
        return NULL;
    }
    a->srv = http_server_create(base, agent_routes, agent_nroutes, a, conf->munge_socket);
    char ip[INET_ADDRSTRLEN];
    listen_addr(node->addr, ip, sizeof ip);
    a->port = a->srv ? http_server_listen_tcp(a->srv, ip, node->port) : -1;
    if (a->port < 0) {
        snprintf(err, errlen, "cannot listen on %s:%d: %s", node->addr, node->port,
                 strerror(errno));
        agent_destroy(a);
        return NULL;
    }
    local_listen(a);
    return a;
}

int agent_start(struct agent *a)
{
    /* here, not at create: the log file is in place by now */
    struct detect d;
    detect_run(&d);
    detect_check(a->node, &d);
    a->gpu_devs = detect_gpu_devs(a->node, &d);
    detect_clear(&d);
    gpumon_start(a);
    spool_pool_reset(a->spool, &a->pool_free);
    scan_spool(a);
    if (start_timers(a) < 0)
        return -1;
    send_register(a);
    return 0;
}

void agent_stop(struct agent *a)
{
    if (a->stopping)
        return;
    a->stopping = true;
    a->stop_by = noded_now() + 2;
    log_info("shutting down: ending this node's jobs");
    step_kill_all(a);
    for (struct ajob *j = a->jobs; j; j = j->next) {
        if (j->ended)
            continue;
        /* the supervisor records the job CANCELLED; killing the group
         * ourselves too covers a supervisor that is stuck */
        if (j->sup_pid > 1)
            sys->sigqueue(j->sup_pid, SIGTERM, (union sigval){ .sival_int = SIGKILL });
        if (j->pgid > 1)
            sys->kill(-j->pgid, SIGKILL);
    }
    struct timeval fast = { 0, 100000 };
    event_del(a->beat);
    event_del(a->tick);
    event_add(a->tick, &fast);
}

void agent_destroy(struct agent *a)
{
    if (!a)
        return;
    if (a->tick)
        event_free(a->tick);
    if (a->beat)
        event_free(a->beat);
    if (a->notify)
        event_free(a->notify);
    if (a->notify_fd >= 0)
        close(a->notify_fd);
    step_free_all(a);
    http_server_destroy(a->srv);
    while (a->jobs) {
        struct ajob *j = a->jobs;
        a->jobs = j->next;
        launch_wait_free(j);
        gpumon_job_free(j);
        free(j->cpu_ids);
        free(j);
    }
    for (size_t i = 0; a->gpu_devs && a->gpu_devs[i]; i++)
        free(a->gpu_devs[i]);
    free(a->gpu_devs);
    gpumon_stop(a);
    confd_clear(&a->confd);
    free(a->conf_path);
    free(a->log_file);
    free(a->spool);
    free(a);
}

char *agent_pidfile_write(const struct conf *c, const char *node)
{
    if (!c->pid_file_d || !c->pid_file_d[0])
        return NULL;
    char *path = conf_expand_node(c->pid_file_d, node);
    FILE *f = fopen(path, "we");
    if (!f || fprintf(f, "%ld\n", (long)getpid()) < 0 || fclose(f) != 0) {
        log_warn("cannot write %s", path);
        free(path);
        return NULL;
    }
    return path;
}
