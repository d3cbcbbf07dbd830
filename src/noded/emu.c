#include "noded/emu.h"

#include <arpa/inet.h>
#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/event.h>
#include <jansson.h>

#include "common/auth.h"
#include "common/conf.h"
#include "common/daemon.h"
#include "common/fnv.h"
#include "common/hostlist.h"
#include "common/http.h"
#include "common/log.h"
#include "common/slurm_errno.h"
#include "common/xmalloc.h"
#include "noded/agent.h"
#include "noded/clock.h"

#define REPORT_TIMEOUT_S 5
#define JOB_BUCKETS 8192   /* a power of two */
#define EMU_AUTH_TIMEOUT_MS 8000

struct emu;

struct enode {
    struct emu *e;
    const struct conf_node *cn;
    int port;               /* the port its server is bound to */
    struct event *beat;
    struct ejob *jobs;      /* its jobs, through ejob.nnext */
    bool registering;
    bool silent;
};

struct ejob {
    struct emu *e;
    struct enode *n;
    int64_t id;
    struct event *timer;    /* EMU_TIMER: its end */
    pid_t pid;              /* EMU_PROC: its process, 0 once reaped */
    bool ended, reporting;
    bool gone;              /* its node went silent while its end was in flight */
    const char *state;
    int exit_code, exit_signal;
    int64_t end_time;
    struct ejob *nnext, *hnext;
};

struct emu {
    struct event_base *base;
    const struct conf *conf;
    const struct emu_opts *o;
    struct enode *nodes;
    size_t nnodes;
    size_t *by_name;        /* open addressing: index + 1 into nodes, 0 empty */
    size_t name_slots;
    struct http_server **srv;
    size_t nsrv;
    struct ejob *jobs[JOB_BUCKETS];
    struct event *tick;
    int beat_s;
    uint64_t launched, ended, acked;
};

/* ---- lookups ---- */

static size_t name_hash(const char *s)
{
    return (size_t)fnv1a_str(s);
}

static void names_index(struct emu *e)
{
    e->name_slots = 1;
    while (e->name_slots < 2 * e->nnodes + 2)
        e->name_slots <<= 1;
    e->by_name = xcalloc(e->name_slots, sizeof *e->by_name);
    for (size_t i = 0; i < e->nnodes; i++) {
        size_t k = name_hash(e->nodes[i].cn->name) & (e->name_slots - 1);
        while (e->by_name[k])
            k = (k + 1) & (e->name_slots - 1);
        e->by_name[k] = i + 1;
    }
}

static struct enode *node_by_name(struct emu *e, const char *name)
{
    if (!name)
        return NULL;
    for (size_t k = name_hash(name) & (e->name_slots - 1); e->by_name[k];
         k = (k + 1) & (e->name_slots - 1))
        if (strcmp(e->nodes[e->by_name[k] - 1].cn->name, name) == 0)
            return &e->nodes[e->by_name[k] - 1];
    return NULL;
}

static struct ejob **job_slot(struct emu *e, int64_t id)
{
    return &e->jobs[(uint64_t)id & (JOB_BUCKETS - 1)];
}

static struct ejob *job_find(struct emu *e, int64_t id)
{
    for (struct ejob *j = *job_slot(e, id); j; j = j->hnext)
        if (j->id == id)
            return j;
    return NULL;
}

/* Out of the tables; freed now, or by report_done when its report is in
 * flight (the call holds it). */
static void job_free(struct ejob *j)
{
    for (struct ejob **p = job_slot(j->e, j->id); *p; p = &(*p)->hnext)
        if (*p == j) {
            *p = j->hnext;
            break;
        }
    for (struct ejob **p = &j->n->jobs; *p; p = &(*p)->nnext)
        if (*p == j) {
            *p = j->nnext;
            break;
        }
    if (j->timer)
        event_free(j->timer);
    j->timer = NULL;
    if (j->pid > 0)
        kill(j->pid, SIGKILL);   /* reaped by on_child, which no longer finds it */
    j->pid = 0;
    if (j->reporting)
        j->gone = true;
    else
        free(j);
}

/* ---- job ends ---- */

static void report_done(int status, json_t *body, void *arg)
{
    (void)body;
    struct ejob *j = arg;
    j->reporting = false;
    if (j->gone) {
        free(j);
        return;
    }
    if (status != 200) {
        log_debug("job %lld: job_end not acknowledged (status %d), will retry",
                  (long long)j->id, status);
        return;
    }
    j->e->acked++;
    job_free(j);
}

static void report_end(struct ejob *j)
{
    const struct conf *c = j->e->conf;
    json_t *body = json_pack("{s:s, s:I, s:s, s:i, s:i, s:I}", "name", j->n->cn->name, "job_id",
                             (json_int_t)j->id, "state", j->state, "exit_code", j->exit_code,
                             "exit_signal", j->exit_signal, "end_time",
                             (json_int_t)j->end_time);
    j->reporting = true;
    http_call(j->e->base, c->munge_socket, c->ctld_addr, c->ctld_port, "POST",
              "/v1/node/job_end", body, REPORT_TIMEOUT_S, report_done, j);
}

static void job_ended(struct ejob *j, const char *state, int code, int sig)
{
    if (j->ended)
        return;
    j->ended = true;
    j->state = state;
    j->exit_code = code;
    j->exit_signal = sig;
    j->end_time = noded_now();
    j->e->ended++;
    log_debug("job %lld on %s: %s", (long long)j->id, j->n->cn->name, state);
    report_end(j);
}

static void on_job_timer(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct ejob *j = arg;
    job_ended(j, j->exit_code == -1 ? "TIMEOUT" : "COMPLETED", 0, 0);
}

static void on_child(struct emu *e)
{
    pid_t pid;
    int status;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        for (size_t b = 0; b < JOB_BUCKETS; b++)
            for (struct ejob *j = e->jobs[b]; j; j = j->hnext)
                if (j->pid == pid) {
                    j->pid = 0;
                    bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
                    job_ended(j, ok ? "COMPLETED" : "FAILED",
                              WIFEXITED(status) ? WEXITSTATUS(status) : 0,
                              WIFSIGNALED(status) ? WTERMSIG(status) : 0);
                    goto next;
                }
next:;
    }
}

/* ---- what the controller calls ---- */

static int job_start_proc(struct ejob *j, double run_s)
{
    char secs[32];
    snprintf(secs, sizeof secs, "%.3f", run_s);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execl("/bin/sleep", "sleep", secs, (char *)NULL);
        _exit(127);
    }
    j->pid = pid;
    return 0;
}

static void job_start_timer(struct ejob *j, double run_s, int64_t limit_min)
{
    if (limit_min > 0 && limit_min * 60.0 < run_s) {
        run_s = (double)limit_min * 60.0;
        j->exit_code = -1;   /* on_job_timer: TIMEOUT */
    }
    struct timeval tv = { (time_t)run_s, (suseconds_t)((run_s - (double)(time_t)run_s) * 1e6) };
    j->timer = evtimer_new(j->e->base, on_job_timer, j);
    evtimer_add(j->timer, &tv);
}

static void on_launch(struct http_req *r)
{
    struct emu *e = r->ctx;
    json_t *jid = json_object_get(r->body, "job_id");
    struct enode *n = node_by_name(e, json_string_value(json_object_get(r->body, "node_name")));
    if (!json_is_integer(jid) || json_integer_value(jid) <= 0) {
        http_reply_error(r, 400, SLURM_ERROR, "launch needs job_id");
        return;
    }
    if (!n || n->silent) {
        /* a silent node is down: its launches find nobody */
        http_reply_error(r, n ? 503 : 404, ESLURM_INVALID_NODE_NAME, "node %s is not served here",
                         json_string_value(json_object_get(r->body, "node_name")));
        return;
    }
    int64_t id = json_integer_value(jid);
    if (job_find(e, id)) {   /* a repeated launch: the one already running */
        http_reply(r, 200, NULL);
        return;
    }
    struct ejob *j = xcalloc(1, sizeof *j);
    *j = (struct ejob){ .e = e, .n = n, .id = id };
    if (e->o->jobs == EMU_PROC && job_start_proc(j, e->o->run_s) < 0) {
        http_reply_error(r, 500, SLURM_ERROR, "fork: %s", strerror(errno));
        free(j);
        return;
    }
    if (e->o->jobs == EMU_TIMER)
        job_start_timer(j, e->o->run_s, json_integer_value(json_object_get(r->body,
                                                                           "time_limit")));
    j->hnext = *job_slot(e, id);
    *job_slot(e, id) = j;
    j->nnext = n->jobs;
    n->jobs = j;
    e->launched++;
    http_reply(r, 200, NULL);
}

/* A cancel ends the job CANCELLED at once; a plain signal reaches an
 * EMU_PROC job's process and is ignored by a timer. */
static void on_signal(struct http_req *r)
{
    struct emu *e = r->ctx;
    json_t *jid = json_object_get(r->body, "job_id");
    struct ejob *j = json_is_integer(jid) ? job_find(e, json_integer_value(jid)) : NULL;
    if (!j || j->n->silent) {
        http_reply_error(r, 404, ESLURM_INVALID_JOB_ID, "Invalid job id specified");
        return;
    }
    int sig = (int)json_integer_value(json_object_get(r->body, "signal"));
    if (json_is_true(json_object_get(r->body, "cancel"))) {
        if (j->pid > 0)
            kill(j->pid, SIGKILL);
        j->pid = 0;
        if (j->timer)
            evtimer_del(j->timer);
        job_ended(j, "CANCELLED", 0, sig > 0 ? sig : SIGKILL);
    } else if (j->pid > 0 && sig > 0 && sig < NSIG) {
        kill(j->pid, sig);
    }
    http_reply(r, 200, NULL);
}

static void on_time_limit(struct http_req *r)
{
    struct emu *e = r->ctx;
    json_t *jid = json_object_get(r->body, "job_id");
    struct ejob *j = json_is_integer(jid) ? job_find(e, json_integer_value(jid)) : NULL;
    if (!j || j->ended || j->n->silent) {
        http_reply_error(r, 404, ESLURM_INVALID_JOB_ID, "Invalid job id specified");
        return;
    }
    http_reply(r, 200, NULL);
}

static void not_emulated(struct http_req *r)
{
    http_reply_error(r, 501, SLURM_ERROR, "not served by the node emulator");
}

static const struct http_route emu_routes[] = {
    { "POST", "/v1/launch", on_launch, HTTP_ROLE_ROOT },
    { "POST", "/v1/signal", on_signal, HTTP_ROLE_ROOT },
    { "POST", "/v1/timelimit", on_time_limit, HTTP_ROLE_ROOT },
    { "POST", "/v1/suspend", not_emulated, HTTP_ROLE_ROOT },
    { "POST", "/v1/output", not_emulated, HTTP_ROLE_ROOT },
    { "POST", "/v1/steps", not_emulated, HTTP_ROLE_USER },
};

/* ---- registration and heartbeat ---- */

/* The next beat: after after_ms, at a random point of the within_ms that follow. */
static void beat_arm(struct enode *n, int64_t within_ms, int64_t after_ms)
{
    int64_t ms = after_ms + (within_ms > 0 ? random() % within_ms : 0);
    struct timeval tv = { (time_t)(ms / 1000), (suseconds_t)(ms % 1000) * 1000 };
    evtimer_add(n->beat, &tv);
}

static void register_done(int status, json_t *body, void *arg)
{
    (void)body;
    struct enode *n = arg;
    n->registering = false;
    if (status != 200)
        log_debug("node %s: registration not acknowledged (status %d)", n->cn->name, status);
    if (status == 503 && !n->silent) {
        /* the controller was busy: again within 1-3 s, not a beat later */
        evtimer_del(n->beat);
        beat_arm(n, 2000, 1000);
    }
}

static void send_register(struct enode *n)
{
    if (n->registering || n->silent)
        return;
    const struct conf_node *cn = n->cn;
    json_t *jobs = json_array();
    for (struct ejob *j = n->jobs; j; j = j->nnext)
        json_array_append_new(jobs, json_integer(j->id));
    json_t *body = json_pack("{s:s, s:i, s:I, s:i, s:s, s:i, s:o}", "name", cn->name, "cpus",
                             cn->cpus, "mem_mb", (json_int_t)cn->mem_mb, "gpus", cn->gpus,
                             "gpu_type", cn->gpu_type ? cn->gpu_type : "", "port", n->port,
                             "jobs", jobs);
    n->registering = true;
    const struct conf *c = n->e->conf;
    http_call(n->e->base, c->munge_socket, c->ctld_addr, c->ctld_port, "POST",
              "/v1/node/register", body, REPORT_TIMEOUT_S, register_done, n);
}

static void on_beat(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct enode *n = arg;
    send_register(n);
    struct timeval tv = { n->e->beat_s, 0 };
    evtimer_add(n->beat, &tv);
}

/* ---- silence, ends retried, signals ---- */

static void node_silence(struct enode *n, bool silent)
{
    if (n->silent == silent)
        return;
    n->silent = silent;
    if (silent) {
        evtimer_del(n->beat);
        while (n->jobs)
            job_free(n->jobs);   /* a crashed node's jobs are gone, unreported */
        log_info("node %s: silent", n->cn->name);
    } else {
        log_info("node %s: back", n->cn->name);
        beat_arm(n, 1000, 0);
    }
}

static void silence_read(struct emu *e)
{
    if (!e->o->silent_path) {
        log_warnx("SIGUSR2: no silence file (--emu-silent)");
        return;
    }
    FILE *f = fopen(e->o->silent_path, "re");
    struct hostlist *hl = hostlist_create("");
    char word[4096];
    while (f && fscanf(f, "%4095s", word) == 1)
        if (hostlist_push(hl, word) < 0)
            log_warnx("%s: bad hostlist %s", e->o->silent_path, word);
    if (f)
        fclose(f);
    size_t silent = 0;
    for (size_t i = 0; i < e->nnodes; i++) {
        node_silence(&e->nodes[i], hostlist_find(hl, e->nodes[i].cn->name) >= 0);
        silent += e->nodes[i].silent;
    }
    hostlist_destroy(hl);
    log_info("silence file %s read: %zu of %zu nodes silent", e->o->silent_path, silent,
             e->nnodes);
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct emu *e = arg;
    for (size_t b = 0; b < JOB_BUCKETS; b++)
        for (struct ejob *j = e->jobs[b], *next; j; j = next) {
            next = j->hnext;
            if (j->ended && !j->reporting)
                report_end(j);
        }
}

static void on_signal_ev(evutil_socket_t sig, short what, void *arg)
{
    (void)what;
    struct emu *e = arg;
    if (sig == SIGCHLD) {
        on_child(e);
    } else if (sig == SIGUSR1) {
        log_info("SIGUSR1: every live node registers now");
        for (size_t i = 0; i < e->nnodes; i++)
            send_register(&e->nodes[i]);
    } else if (sig == SIGUSR2) {
        silence_read(e);
    } else {
        log_info("stopping: %llu jobs launched, %llu ended, %llu ends acknowledged",
                 (unsigned long long)e->launched, (unsigned long long)e->ended,
                 (unsigned long long)e->acked);
        event_base_loopbreak(e->base);
    }
}

/* ---- set up ---- */

static int nodes_pick(struct emu *e, const char *expr)
{
    struct hostlist *hl = strcasecmp(expr, "ALL") == 0 ? NULL : hostlist_create(expr);
    if (!hl && strcasecmp(expr, "ALL") != 0) {
        log_warnx("--emulate: bad hostlist %s", expr);
        return -1;
    }
    e->nodes = xcalloc(e->conf->nnodes, sizeof *e->nodes);
    for (size_t i = 0; i < e->conf->nnodes; i++) {
        const struct conf_node *cn = &e->conf->nodes[i];
        if (hl && hostlist_find(hl, cn->name) < 0)
            continue;
        e->nodes[e->nnodes++] = (struct enode){ .e = e, .cn = cn };
    }
    size_t asked = hl ? hostlist_count(hl) : e->nnodes;
    hostlist_destroy(hl);
    if (e->nnodes == 0 || e->nnodes != asked) {
        log_warnx("--emulate %s: %zu of its %zu nodes are in slurm.conf", expr, e->nnodes, asked);
        return -1;
    }
    names_index(e);
    return 0;
}

static void listen_ip(const char *addr, char *out, size_t n)
{
    struct in_addr in;
    snprintf(out, n, "%s", addr && inet_pton(AF_INET, addr, &in) == 1 ? addr : "0.0.0.0");
}

/* One server per distinct address and port: nodes that share one share
 * its server. The search for an earlier node with the same pair stops at
 * the first, so one shared port costs O(nodes); ports of their own cost
 * O(nodes^2) string compares once, at start. */
static int servers_start(struct emu *e)
{
    struct passwd *su = e->conf->slurm_user ? getpwnam(e->conf->slurm_user) : NULL;
    for (size_t i = 0; i < e->nnodes; i++) {
        struct enode *n = &e->nodes[i];
        for (size_t k = 0; k < i && !n->port; k++)
            if (e->nodes[k].cn->port == n->cn->port &&
                strcmp(e->nodes[k].cn->addr, n->cn->addr) == 0)
                n->port = e->nodes[k].port;
        if (n->port)
            continue;
        struct http_server *s = http_server_create(e->base, emu_routes,
                                                   sizeof emu_routes / sizeof emu_routes[0], e,
                                                   e->conf->munge_socket);
        char ip[INET_ADDRSTRLEN];
        listen_ip(n->cn->addr, ip, sizeof ip);
        n->port = s ? http_server_listen_tcp(s, ip, n->cn->port) : -1;
        if (n->port < 0) {
            log_warn("node %s: cannot listen on %s:%d", n->cn->name, ip, n->cn->port);
            http_server_destroy(s);
            return -1;
        }
        if (su)
            http_server_set_service_uid(s, su->pw_uid);
        /* one peer (the controller) per node, each with a real agent's
         * allowance: a shared server gets them all */
        char params[96], err[256];
        snprintf(params, sizeof params, "max_connections_per_host=%zu",
                 (size_t)256 * e->nnodes > 1000000 ? (size_t)1000000 : (size_t)256 * e->nnodes);
        if (http_server_set_params(s, params, err, sizeof err) < 0)
            log_warnx("%s: %s", params, err);
        /* one munged checks what thousands of nodes' own would: a launch
         * waits for it (within the controller's 10 s) rather than be
         * refused 503, which the controller would take for a failed node */
        http_server_set_auth_timeout(s, EMU_AUTH_TIMEOUT_MS);
        e->srv = xrealloc(e->srv, (e->nsrv + 1) * sizeof *e->srv);
        e->srv[e->nsrv++] = s;
    }
    return 0;
}

static void timers_start(struct emu *e)
{
    int every = e->conf->slurmd_timeout / 3;
    e->beat_s = every < 1 ? 1 : every > 10 ? 10 : every;
    srandom((unsigned)getpid());
    for (size_t i = 0; i < e->nnodes; i++) {
        e->nodes[i].beat = evtimer_new(e->base, on_beat, &e->nodes[i]);
        /* the first registration within a second, as at a boot; the
         * periods' phases spread over the whole period */
        beat_arm(&e->nodes[i], 1000, 0);
    }
    struct timeval one = { 1, 0 };
    e->tick = event_new(e->base, -1, EV_PERSIST, on_tick, e);
    event_add(e->tick, &one);
}

static void emu_free(struct emu *e)
{
    for (size_t i = 0; i < e->nnodes; i++) {
        while (e->nodes[i].jobs)
            job_free(e->nodes[i].jobs);
        if (e->nodes[i].beat)
            event_free(e->nodes[i].beat);
    }
    for (size_t i = 0; i < e->nsrv; i++)
        http_server_destroy(e->srv[i]);
    if (e->tick)
        event_free(e->tick);
    free(e->srv);
    free(e->nodes);
    free(e->by_name);
}

static int serve(struct emu *e)
{
    static const int sigs[] = { SIGTERM, SIGINT, SIGUSR1, SIGUSR2, SIGCHLD, SIGHUP };
    struct event *ev[sizeof sigs / sizeof sigs[0]];
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        ev[i] = evsignal_new(e->base, sigs[i], on_signal_ev, e);
        event_add(ev[i], NULL);
    }
    int rc = event_base_dispatch(e->base);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        event_free(ev[i]);
    return rc < 0 ? 1 : 0;
}

int emu_jobs_parse(const char *s)
{
    return !strcmp(s, "timer") ? EMU_TIMER : !strcmp(s, "proc") ? EMU_PROC : -1;
}

int emu_main(struct conf *c, const struct emu_opts *o)
{
    static struct emu e;
    e = (struct emu){ .conf = c, .o = o };
    if (nodes_pick(&e, o->nodes) < 0)
        return 1;
    /* the files of the first node it serves stand for the process */
    const char *first = e.nodes[0].cn->name;
    char *logfile = c->log_file_d && c->log_file_d[0] ? conf_expand_node(c->log_file_d, first)
                                                      : NULL;
    int ready_fd = o->foreground ? -1 : daemon_start(NULL);
    /* the credentials of every node's calls wait in one queue here, and
     * one descriptor per connection */
    auth_async_set_queue_max(e.nnodes > 512 ? (int)e.nnodes * 64 : 32768);
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    signal(SIGPIPE, SIG_IGN);
    e.base = event_base_new();
    if (!e.base)
        fatalx("cannot create the event loop");
    if (servers_start(&e) < 0)
        fatalx("cannot listen");
    char *pidfile = agent_pidfile_write(c, first);
    if (logfile)
        log_init("herdd", o->verbose, logfile);
    daemon_ready(ready_fd);
    log_info("emulating %zu nodes (%s) on %zu port%s: jobs %s of %.3f s, heartbeat %d s",
             e.nnodes, o->nodes, e.nsrv, e.nsrv == 1 ? "" : "s",
             o->jobs == EMU_PROC ? "processes" : "timers", o->run_s, c->slurmd_timeout / 3 < 1
             ? 1 : c->slurmd_timeout / 3 > 10 ? 10 : c->slurmd_timeout / 3);
    timers_start(&e);
    int rc = serve(&e);
    emu_free(&e);
    http_calls_settle(e.base);
    event_base_free(e.base);
    if (pidfile)
        unlink(pidfile);
    free(pidfile);
    free(logfile);
    return rc;
}
