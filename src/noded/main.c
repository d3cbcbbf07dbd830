/*
 * herdd: the node agent. herdd [-f slurm.conf] [-N nodename] [-D] [-v] [-C]
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/conf.h"
#include "common/daemon.h"
#include "common/http.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "noded/agent.h"
#include "noded/detect.h"
#include "noded/step.h"
#include "noded/supervisor.h"
#include "noded/sysops.h"

struct opts {
    const char *conf;
    char name[256];
    bool foreground;
    bool print_node;
    int verbose;
};

static void usage(void)
{
    fprintf(stderr, "usage: herdd [-f slurm.conf] [-N nodename] [-D] [-v] [-C]\n");
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
    int c;
    while ((c = getopt(argc, argv, "f:N:DvCh")) != -1) {
        switch (c) {
        case 'f': o->conf = optarg; break;
        case 'N': snprintf(o->name, sizeof o->name, "%s", optarg); break;
        case 'D': o->foreground = true; break;
        case 'v': o->verbose++; break;
        case 'C': o->print_node = true; break;
        default: usage();
        }
    }
    if (optind != argc)
        usage();
    if (!o->conf)
        o->conf = conf_default_path();
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

static char *write_pidfile(const struct conf *c, const char *node)
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

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
    (void)what;
    struct agent *a = arg;
    if (sig == SIGHUP) {
        log_private(a->log_file);
        log_reopen();
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
        agent_stop(a);
    }
}

static const int handled[] = { SIGTERM, SIGINT, SIGHUP, SIGCHLD, SIGQUIT };
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

static char *log_path(const struct conf *c, const char *node, bool foreground)
{
    if (foreground || !c->log_file_d || !c->log_file_d[0])
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
    struct conf *c = conf_load(o.conf, err, sizeof err);
    if (!c)
        fatalx("%s", err);
    const struct conf_node *node = conf_node_find(c, o.name);
    if (!node)
        fatalx("node %s is not in %s", o.name, o.conf);
    char abs[PATH_MAX];
    const char *conf_path = realpath(o.conf, abs) ? abs : o.conf;
    char *logfile = log_path(c, node->name, o.foreground);
    int ready_fd = o.foreground ? -1 : daemon_fork();
    signal(SIGPIPE, SIG_IGN);
    struct event_base *base = event_base_new();
    if (!base)
        fatalx("cannot create the event loop");
    struct agent *a = agent_create(base, c, node, conf_path, logfile, o.verbose, err, sizeof err);
    if (!a)
        fatalx("%s", err);
    if (http_server_set_params(a->srv, c->slurmd_params, err, sizeof err) < 0)
        fatalx("SlurmdParameters: %s", err);
    char *pidfile = write_pidfile(c, node->name);
    if (ready_fd >= 0) {
        log_private(logfile);
        log_init("herdd", o.verbose, logfile);
        daemon_ready(ready_fd);
    }
    log_info("node %s serving on %s:%d", node->name, node->addr, a->port);
    if (agent_start(a) < 0)
        fatalx("cannot start the node agent");
    int rc = serve(base, a);
    log_info("node %s stopped", node->name);
    agent_destroy(a);
    event_base_free(base);
    if (pidfile)
        unlink(pidfile);
    free(pidfile);
    free(logfile);
    conf_destroy(c);
    return rc;
}
