/*
 * ctld_life: the controller's state brought up from its StateSaveLocation
 * (the store, nodes, partitions, reservations, jobs, accounting), its
 * routes served and its timers running; and taken down again. main.c
 * wraps it in a daemon (signals, pid file); the fuzz harness of the API
 * (tests/fuzz/ctld_api.c) runs it in-process.
 */
#include <dirent.h>
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/http.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "ctld/api.h"
#include "ctld/ctld.h"
#include "ctld/depend.h"
#include "ctld/metrics.h"
#include "ctld/prio.h"
#include "ctld/resv.h"
#include "ctld/sched_snap.h"
#include "ctld/store.h"
#include "ctld/suspend.h"
#include "ctld/token.h"

static int mkdir_p(const char *path, mode_t mode)
{
    char *p = xstrdup(path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, mode) < 0 && errno != EEXIST) {
            free(p);
            return -1;
        }
        *s = '/';
    }
    int rc = mkdir(p, mode) < 0 && errno != EEXIST ? -1 : 0;
    free(p);
    return rc;
}

static void sched_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    ctld_sched_pass(arg);
}

/* Job scripts and environments live in the state database, and the log
 * names users' jobs: the controller's user alone reads them. Every file
 * the controller makes from here on is 0600 (directories 0700); what an
 * earlier version left readable is made so. The state directory itself is
 * 0711: anyone may pass through it to the socket (0666), no one else may
 * list it. */
static void state_private(const char *dir)
{
    umask(077);
    if (chmod(dir, 0711) < 0)
        fatal("chmod %s", dir);
    DIR *d = opendir(dir);
    if (!d)
        fatal("cannot read StateSaveLocation %s", dir);
    struct dirent *e;
    struct stat st;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
            continue;
        mode_t want = S_ISDIR(st.st_mode) ? 0700 : S_ISREG(st.st_mode) ? 0600 : 0;
        if (want && (st.st_mode & 07777) != want && fchmodat(dirfd(d), e->d_name, want, 0) < 0)
            log_warn("chmod %s/%s", dir, e->d_name);
    }
    closedir(d);
}

void ctld_setup(struct ctld *c)
{
    const struct conf *cf = c->conf;
    if (mkdir_p(cf->state_save, 0755) < 0)
        fatal("cannot create StateSaveLocation %s", cf->state_save);
    state_private(cf->state_save);
    char err[512];
    char *db = xasprintf("%s/herd.db", cf->state_save);
    c->store = store_open(c->base, db, err, sizeof err);
    free(db);
    if (!c->store)
        fatalx("state database: %s", err);
    c->stats.since = c->boot_time = ctld_now();
    /* who hears of job changes, in this order: job.c's job_changed */
    job_listen(c, "scheduler", ctld_sched_on_job);
    job_listen(c, "node agents", launch_on_job);
    job_listen(c, "suspensions", suspend_on_job);
    job_listen(c, "waiters", api_wait_on_job);
    job_listen(c, "dependencies", depend_on_job);
    job_listen(c, "metrics", metrics_on_job);
    nodes_init(c);
    nodes_load_state(c);
    parts_init(c);
    parts_load_state(c);
    resv_load_all(c);   /* jobs name theirs */
    job_load_all(c, ctld_now() - cf->min_job_age);
    if (prio_init(c, err, sizeof err) < 0)
        fatalx("%s", err);
    nodes_expect_running(c);
    c->sched_ev = event_new(c->base, -1, 0, sched_cb, c);
    event_priority_set(c->sched_ev, CTLD_NPRIO - 1);
    depend_notify(c, NULL);   /* what ended while the records were written, or was purged */
    api_register_routes(c);
    if (token_init(c, err, sizeof err) < 0)
        fatalx("AuthAltParameters: %s", err);
    config_hash_refresh(c);
    if (http_server_set_params(c->http, cf->ctld_params, err, sizeof err) < 0)
        fatalx("SlurmctldParameters: %s", err);
    char *sock = xasprintf("%s/herdctld.sock", cf->state_save);
    if (http_server_listen_unix(c->http, sock) < 0)
        fatal("cannot listen on %s", sock);
    free(sock);
    if (http_server_listen_tcp(c->http, "0.0.0.0", cf->ctld_port) < 0)
        fatal("cannot listen on port %d", cf->ctld_port);
    health_start(c);
    ctld_sched_request(c);
}

void ctld_teardown(struct ctld *c)
{
    ctld_sched_worker_stop(c);
    api_wait_free_all(c);
    api_acct_streams_free(c);
    http_server_destroy(c->http);
    token_free(c);
    free(c->conf_hash);
    prio_destroy(c);
    store_close(c->store);
    metrics_destroy(c->metrics);   /* after the store's last commit, which it times */
    event_free(c->sched_ev);
    event_free(c->tick_ev);
    job_destroy_all(c);
    resv_destroy_all(c);
    free(c->dep_jobs);
    free(c->meta_jobs);
    for (size_t i = 0; i < c->nnodes; i++)
        free(c->nodes[i].reason);
    free(c->nodes);
    for (size_t p = 0; p < c->conf->nparts; p++)
        free(c->spart_nodes[p]);
    free(c->spart_nodes);
    free(c->sparts);
    sched_predict_free(c->pred);
    conf_destroy(c->conf);
    launch_waits_free(c);
    http_calls_settle(c->base);
    event_base_free(c->base);
}

