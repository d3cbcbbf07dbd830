/*
 * herdd: the node agent. herdd [-f slurm.conf] [-N nodename] [-D] [-v] [-C]
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/conf.h"
#include "common/confless.h"
#include "common/daemon.h"
#include "common/http.h"
#include "common/log.h"
#include "common/sdnotify.h"
#include "common/xmalloc.h"
#include "noded/agent.h"
#include "noded/detect.h"
#include "noded/emu.h"
#include "noded/step.h"
#include "noded/supervisor.h"
#include "noded/sysops.h"

struct opts {
    const char *conf;
    const char *conf_server;   /* --conf-server: configless (confd.h) */
    const char *conf_cache;
    char name[256];
    bool foreground;
    bool print_node;
    int verbose;
    struct emu_opts emu;       /* --emulate: emu.h */
};

static void usage(void)
{
    fprintf(stderr, "usage: herdd [-f slurm.conf | --conf-server HOST[:PORT] [--conf-cache DIR]]"
            " [-N nodename] [-D] [-v] [-C]\n"
            "       herdd [-f slurm.conf] --emulate NODES|ALL [--emu-jobs timer|proc]"
            " [--emu-run SECONDS] [--emu-silent FILE] [-D] [-v]\n");
    exit(1);
}

static void short_hostname(char *buf, size_t n)
{
    if (gethostname(buf, n) < 0)
        snprintf(buf, n, "localhost");
    buf[n - 1] = '\0';
    buf[strcspn(buf, ".")] = '\0';
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
    static const struct option lopts[] = {
        { "conf-server", required_argument, NULL, 'S' },
        { "conf-cache", required_argument, NULL, 'c' },
        { "emulate", required_argument, NULL, 'E' },
        { "emu-jobs", required_argument, NULL, 'J' },
        { "emu-run", required_argument, NULL, 'R' },
        { "emu-silent", required_argument, NULL, 'Z' },
        { NULL, 0, NULL, 0 },
    };
    int c, rc;
    char *end;
    o->emu.run_s = 1;
    while ((c = getopt_long(argc, argv, "f:N:DvCh", lopts, NULL)) != -1) {
        switch (c) {
        case 'f': o->conf = optarg; break;
        case 'S': o->conf_server = optarg; break;
        case 'c': o->conf_cache = optarg; break;
        case 'N': snprintf(o->name, sizeof o->name, "%s", optarg); break;
        case 'D': o->foreground = true; break;
        case 'v': o->verbose++; break;
        case 'C': o->print_node = true; break;
        case 'E': o->emu.nodes = optarg; break;
        case 'J':
            if ((rc = emu_jobs_parse(optarg)) < 0)
                usage();
            o->emu.jobs = rc;
            break;
        case 'R':
            o->emu.run_s = strtod(optarg, &end);
            if (*end || end == optarg || !(o->emu.run_s >= 0))
                usage();
            break;
        case 'Z': o->emu.silent_path = optarg; break;
        default: usage();
        }
    }
    if (optind != argc || (o->conf && o->conf_server))
        usage();
    if (!o->name[0])
        short_hostname(o->name, sizeof o->name);
}

static int print_node(const char *name)
{
    struct detect d;
    detect_run(&d);
    detect_print(stdout, name, &d);
    detect_clear(&d);
    return 0;
}

/* Through sys_ops, so that a test's table reaches this fork and setsid too. */
static int daemon_fork(void)
{
    struct daemon_ops ops = { .fork = sys->fork, .setsid = sys->setsid };
    return daemon_start(&ops);
}

/* The log is root's alone (it names users' jobs and files): made 0600
 * before the logger opens it, and one left 0644 by an older herdd closed. */
static void log_private(const char *path)
{
    if (!path)
        return;
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 077))
        fchmod(fd, st.st_mode & 0700);
    close(fd);
}

/* herdd keeps no copy of what it could re-read in place: cgroup.conf and
 * gres.conf are read at each job's start already, and slurm.conf's node and
 * timing lines need a restart (the controller holds the node's shape). So a
 * reload checks that the file still describes this node, says so, and
 * reopens the log, as slurmd's SIGHUP does. */
static void reconfigure(struct agent *a)
{
    sd_notify_state("RELOADING=1");
    log_private(a->log_file);
    log_reopen();
    char err[1024];
    struct conf *nc = conf_load(a->conf_path, err, sizeof err);
    if (!nc)
        log_warnx("reconfigure (SIGHUP): %s; the running configuration stays", err);
    else if (!conf_node_find(nc, a->node->name))
        log_warnx("reconfigure (SIGHUP): node %s is no longer in %s", a->node->name, a->conf_path);
    else
        log_info("reconfigure (SIGHUP): %s read; cgroup.conf and gres.conf apply from the next "
                 "job, slurm.conf changes from a restart", a->conf_path);
    conf_destroy(nc);
    sd_notify_state("READY=1");
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
    (void)what;
    struct agent *a = arg;
    if (sig == SIGHUP) {
        reconfigure(a);
    } else if (sig == SIGUSR2) {
        log_private(a->log_file);
        log_reopen();
        log_info("log reopened (SIGUSR2)");
    } else if (sig == SIGCHLD) {
        pid_t pid;
        int status;
        while ((pid = sys->waitpid(-1, &status, WNOHANG)) > 0)
            step_reaped(a, pid, status);
    } else if (sig == SIGQUIT && !a->stopping) {
        /* an upgrade: the supervisors own the jobs and outlive us, and the
         * next herdd adopts them from the spool, as after a crash */
        log_info("stopping for a restart: this node's jobs keep running");
        event_base_loopbreak(a->base);
    } else if (a->stopping) {
        event_base_loopbreak(a->base);
    } else {
        sd_notify_state("STOPPING=1");
        agent_stop(a);
    }
}

static const int handled[] = { SIGTERM, SIGINT, SIGHUP, SIGUSR2, SIGCHLD, SIGQUIT };
#define NHANDLED (sizeof handled / sizeof handled[0])

static int serve(struct event_base *base, struct agent *a)
{
    struct event *ev[NHANDLED];
    for (size_t i = 0; i < NHANDLED; i++) {
        ev[i] = evsignal_new(base, handled[i], on_signal, a);
        if (!ev[i] || event_add(ev[i], NULL) < 0)
            fatalx("cannot watch signal %d", handled[i]);
    }
    int rc = event_base_dispatch(base);
    for (size_t i = 0; i < NHANDLED; i++)
        event_free(ev[i]);
    return rc < 0 ? 1 : 0;
}

/* SlurmdLogFile, in the foreground too (a service's -D): a site that names
 * one rotates it; without one the log is stderr, which systemd journals. */
static char *log_path(const struct conf *c, const char *node)
{
    if (!c->log_file_d || !c->log_file_d[0])
        return NULL;
    return conf_expand_node(c->log_file_d, node);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], SUPERVISOR_FLAG) == 0)
        return supervisor_main(argc, argv);
    struct opts o = { 0 };
    parse_opts(argc, argv, &o);
    log_init("herdd", o.verbose, NULL);
    if (o.print_node)
        return print_node(o.name);
    char err[1024];
    struct confd cd = { .argv = argv };
    char *fetched = NULL;
    /* as slurmd: no file of its own and none named, the controller's */
    if (o.conf_server || (!o.conf && access(conf_default_path(), F_OK) != 0)) {
        fetched = confd_fetch(&cd, o.conf_server, o.conf_cache ? o.conf_cache : CONFLESS_CACHE,
                              err, sizeof err);
        if (!fetched)
            fatalx("%s", err);
        o.conf = fetched;
    } else if (!o.conf)
        o.conf = conf_default_path();
    struct conf *c = conf_load(o.conf, err, sizeof err);
    if (!c)
        fatalx("%s", err);
    if (o.emu.nodes) {
        o.emu.conf_path = o.conf;
        o.emu.foreground = o.foreground;
        o.emu.verbose = o.verbose;
        int erc = emu_main(c, &o.emu);
        conf_destroy(c);
        free(fetched);
        return erc;
    }
    const struct conf_node *node = conf_node_find(c, o.name);
    if (!node)
        fatalx("node %s is not in %s", o.name, o.conf);
    char abs[PATH_MAX];
    const char *conf_path = realpath(o.conf, abs) ? abs : o.conf;
    char *logfile = log_path(c, node->name);
    int ready_fd = o.foreground ? -1 : daemon_fork();
    signal(SIGPIPE, SIG_IGN);
    struct event_base *base = event_base_new();
    if (!base)
        fatalx("cannot create the event loop");
    struct agent *a = agent_create(base, c, node, conf_path, logfile, o.verbose, err, sizeof err);
    if (!a)
        fatalx("%s", err);
    a->confd = cd;
    if (http_server_set_params(a->srv, c->slurmd_params, err, sizeof err) < 0)
        fatalx("SlurmdParameters: %s", err);
    char *pidfile = agent_pidfile_write(c, node->name);
    if (logfile) {
        log_private(logfile);
        log_init("herdd", o.verbose, logfile);
    }
    /* the controller runs as SlurmUser: its launches, signals and the rest
     * of the root routes come with that uid's credential */
    struct passwd *su = c->slurm_user ? getpwnam(c->slurm_user) : NULL;
    if (su)
        http_server_set_service_uid(a->srv, su->pw_uid);
    else if (c->slurm_user)
        log_warnx("SlurmUser %s: no such user; the controller's calls must come as root",
                  c->slurm_user);
    daemon_ready(ready_fd);
    log_info("node %s serving on %s:%d", node->name, node->addr, a->port);
    if (agent_start(a) < 0)
        fatalx("cannot start the node agent");
    sd_notify_state("READY=1");
    int rc = serve(base, a);
    log_info("node %s stopped", node->name);
    agent_destroy(a);
    http_calls_settle(base);
    event_base_free(base);
    if (pidfile)
        unlink(pidfile);
    free(pidfile);
    free(logfile);
    conf_destroy(c);
    free(fetched);
    return rc;
}
