/*
 * herd down: stops what `herd up` started under DIR. Node agents first (they
 * end their jobs), then the controller, then herd's own munged, each with a
 * bounded wait and SIGKILL after it; then the network of a --netns cluster
 * (veths, namespace handles, bridge). DIR and the cluster's state stay.
 */
#include <errno.h>
#include <getopt.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/xmalloc.h"
#include "up/cluster.h"
#include "up/netns.h"
#include "up/up.h"

#define DOWN_USAGE "Usage: herd down -D DIR\n"
#define DOWN_WAIT_S 15

/* The pid files of one kind of daemon and the live processes they name. */
struct pidset {
    char **files;
    size_t nfiles;
    pid_t *pids;
    size_t npids;
};

static bool pidset_has_file(const struct pidset *s, const char *f)
{
    for (size_t i = 0; i < s->nfiles; i++)
        if (strcmp(s->files[i], f) == 0)
            return true;
    return false;
}

static void pidset_add(struct pidset *s, const char *file, const char *comm)
{
    if (!file || pidset_has_file(s, file))
        return;
    s->files = xrealloc(s->files, (s->nfiles + 1) * sizeof *s->files);
    s->files[s->nfiles++] = xstrdup(file);
    pid_t pid = cluster_pid_live(file, comm);
    for (size_t i = 0; pid && i < s->npids; i++)
        if (s->pids[i] == pid)
            pid = 0;
    if (!pid)
        return;
    s->pids = xrealloc(s->pids, (s->npids + 1) * sizeof *s->pids);
    s->pids[s->npids++] = pid;
}

static void pidset_glob(struct pidset *s, const char *pattern, const char *comm)
{
    glob_t g;
    if (glob(pattern, 0, NULL, &g) != 0)
        return;
    for (size_t i = 0; i < g.gl_pathc; i++)
        pidset_add(s, g.gl_pathv[i], comm);
    globfree(&g);
}

static void pidset_clear(struct pidset *s)
{
    for (size_t i = 0; i < s->nfiles; i++)
        free(s->files[i]);
    xfree(s->files);
    xfree(s->pids);
    s->nfiles = s->npids = 0;
}

/* Stops the set's processes, then removes pid files whose process is gone. */
static void pidset_stop(struct pidset *s, const char *what, const char *comm)
{
    if (s->npids) {
        size_t killed = cluster_stop_pids(s->pids, s->npids, DOWN_WAIT_S);
        fprintf(stderr, "herd: stopped %zu %s%s", s->npids, what, s->npids == 1 ? "" : "s");
        if (killed)
            fprintf(stderr, " (%zu with SIGKILL after %d s)", killed, DOWN_WAIT_S);
        fputc('\n', stderr);
    }
    for (size_t i = 0; i < s->nfiles; i++)
        if (!cluster_pid_live(s->files[i], comm))
            unlink(s->files[i]);
}

/* Job processes and daemons left behind by a node agent that was killed;
 * keep (the controller, stopped next) is not one of them. */
static void stop_strays(const char *conf_path, const struct pidset *keep)
{
    pid_t *pids;
    size_t n = cluster_find_strays(conf_path, &pids), m = 0;
    for (size_t i = 0; i < n; i++) {
        bool kept = false;
        for (size_t k = 0; k < keep->npids; k++)
            kept = kept || keep->pids[k] == pids[i];
        if (!kept)
            pids[m++] = pids[i];
    }
    if (m) {
        cluster_stop_pids(pids, m, 5);
        fprintf(stderr, "herd: stopped %zu leftover process%s\n", m, m == 1 ? "" : "es");
    }
    free(pids);
}

/* The node agents' and the controller's pid files: where slurm.conf says,
 * and where herd up puts them (in case the file is gone or broken). */
static void collect(const char *dir, const char *conf_path, struct pidset *nodes,
                    struct pidset *ctld)
{
    char err[512];
    struct conf *c = access(conf_path, F_OK) == 0 ? conf_load(conf_path, err, sizeof err) : NULL;
    for (size_t i = 0; c && c->pid_file_d && i < c->nnodes; i++) {
        char *f = conf_expand_node(c->pid_file_d, c->nodes[i].name);
        pidset_add(nodes, f, "herdd");
        free(f);
    }
    if (c)
        pidset_add(ctld, c->pid_file_ctld, "herdctld");
    conf_destroy(c);
    char *pat = xasprintf("%s/run/herdd-*.pid", dir), *cf = xasprintf("%s/run/herdctld.pid", dir);
    pidset_glob(nodes, pat, "herdd");
    pidset_add(ctld, cf, "herdctld");
    free(pat);
    free(cf);
}

int herd_down_dir(const char *arg)
{
    char dir[PATH_MAX];
    if (!realpath(arg, dir)) {
        fprintf(stderr, "herd: nothing to stop: %s: %s\n", arg, strerror(errno));
        return 0;
    }
    char *conf_path = xasprintf("%s/slurm.conf", dir);
    struct pidset nodes = {0}, ctld = {0}, munge = {0};
    collect(dir, conf_path, &nodes, &ctld);
    char *mpid = cluster_munge_pidfile(dir);
    pidset_add(&munge, mpid, "munged");
    bool any = nodes.npids || ctld.npids || munge.npids;
    pidset_stop(&nodes, "node agent", "herdd");
    stop_strays(conf_path, &ctld);
    pidset_stop(&ctld, "controller", "herdctld");
    pidset_stop(&munge, "munged", "munged");
    netns_down(dir);
    if (!any)
        fprintf(stderr, "herd: nothing was running under %s\n", dir);
    pidset_clear(&nodes);
    pidset_clear(&ctld);
    pidset_clear(&munge);
    free(mpid);
    free(conf_path);
    return 0;
}

int cmd_herd_down(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"dir", required_argument, NULL, 'D'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *dir = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+D:h", longopts, NULL)) != -1) {
        if (c == 'h') {
            fputs(DOWN_USAGE, stdout);
            return 0;
        }
        if (c == '?') {
            fprintf(stderr, "herd: error: unrecognized option '%s'\n%s", argv[optind - 1],
                    DOWN_USAGE);
            return 2;
        }
        dir = optarg;
    }
    if (!dir || !dir[0] || optind < argc) {
        fputs(DOWN_USAGE, stderr);
        return 2;
    }
    return herd_down_dir(dir);
}
