/*
 * herdctld: the controller. herdctld [-f slurm.conf] [-D] [-v]
 * Without -D it returns once it listens (exit 0) or has failed (exit 1,
 * with the reason on stderr), and runs on in the background.
 */
#include <event2/event.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/daemon.h"
#include "common/log.h"
#include "common/sdnotify.h"
#include "common/xmalloc.h"
#include "ctld/ctld.h"
#include "ctld/reconfig.h"

static void usage(void)
{
    fprintf(stderr, "usage: herdctld [-f slurm.conf] [-D] [-v]\n");
    exit(2);
}

static void write_pidfile(const char *path)
{
    if (!path)
        return;
    FILE *f = fopen(path, "w");
    if (!f)
        fatal("cannot write pid file %s", path);
    fchmod(fileno(f), 0644);   /* only a number: readable, as Slurm's */
    fprintf(f, "%d\n", (int)getpid());
    fclose(f);
}

/* As slurmctld: SIGHUP re-reads slurm.conf (and reopens the log, which
 * older logrotate setups rely on), SIGUSR2 only reopens the log; the
 * service manager hears of a reload and of the stop (sdnotify.h). */
static void on_signal(evutil_socket_t sig, short what, void *arg)
{
    struct ctld *c = arg;
    (void)what;
    if (sig == SIGUSR2) {
        log_reopen();
        log_info("log reopened (SIGUSR2)");
        return;
    }
    if (sig == SIGHUP) {
        sd_notify_state("RELOADING=1");
        log_reopen();
        char err[512];
        if (ctld_reconfigure(c, err, sizeof err) < 0)
            log_warnx("reconfigure (SIGHUP): %s; the running configuration stays", err);
        sd_notify_state("READY=1");
        return;
    }
    log_info("signal %d: shutting down", (int)sig);
    sd_notify_state("STOPPING=1");
    event_base_loopexit(c->base, NULL);
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    int foreground = 0, verbose = 0, opt;
    while ((opt = getopt(argc, argv, "f:Dvh")) != -1) {
        switch (opt) {
        case 'f': path = optarg; break;
        case 'D': foreground = 1; break;
        case 'v': verbose++; break;
        default: usage();
        }
    }
    log_init("herdctld", verbose, NULL);
    char err[1024];
    struct ctld c = { 0 };
    c.conf = conf_load(path ? path : conf_default_path(), err, sizeof err);
    if (!c.conf)
        fatalx("%s", err);
    if (ctld_sched_configure(&c, err, sizeof err) < 0)
        fatalx("%s", err);
    int ready = foreground ? -1 : daemon_start(NULL);
    signal(SIGPIPE, SIG_IGN);
    struct event_config *ecfg = event_config_new();
    c.base = event_base_new_with_config(ecfg);
    event_config_free(ecfg);
    event_base_priority_init(c.base, CTLD_NPRIO);
    ctld_setup(&c);
    if (c.conf->log_file_ctld) {
        log_init("herdctld", verbose, c.conf->log_file_ctld);
        if (chmod(c.conf->log_file_ctld, 0600) < 0)   /* one an earlier version made 0644 */
            log_warn("chmod %s", c.conf->log_file_ctld);
    }
    write_pidfile(c.conf->pid_file_ctld);
    int signums[] = { SIGTERM, SIGINT, SIGHUP, SIGUSR2 };
    enum { NSIGS = sizeof signums / sizeof signums[0] };
    struct event *sigs[NSIGS];
    for (size_t i = 0; i < NSIGS; i++) {
        sigs[i] = evsignal_new(c.base, signums[i], on_signal, &c);
        event_add(sigs[i], NULL);
    }
    log_info("herdctld started: cluster %s, %zu nodes, %zu jobs loaded, port %d",
             c.conf->cluster_name, c.nnodes, c.njobs, c.conf->ctld_port);
    daemon_ready(ready);
    sd_notify_state("READY=1");
    event_base_dispatch(c.base);
    char *pid = xstrdup(c.conf->pid_file_ctld);
    for (size_t i = 0; i < NSIGS; i++)
        event_free(sigs[i]);
    ctld_teardown(&c);
    if (pid)
        unlink(pid);
    free(pid);
    return 0;
}
