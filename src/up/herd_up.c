/*
 * herd up: a whole cluster on this machine under one directory. The first
 * run writes DIR/slurm.conf (free ports, everything under DIR); later runs
 * keep it and start only what is not running, so state survives.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "client/client.h"
#include "client/cmdutil.h"
#include "client/nodestate.h"
#include "client/paths.h"
#include "common/conf.h"
#include "common/timefmt.h"
#include "common/xmalloc.h"
#include "up/cluster.h"
#include "up/netns.h"
#include "client/selfpath.h"
#include "up/uts.h"
#include "up/up.h"
#include "client/clock.h"

#define UP_USAGE "Usage: herd up -D DIR [--nodes N] [--gpus-per-node G] [--cpus-per-node C]\n" \
                 "                [--mem-per-node MB] [--netns] [--set Key=Value ...]\n" \
                 "                [--emulate [--emu-jobs timer|proc] [--emu-run SECONDS]]\n"
#define UP_WAIT_S 30
#define UP_MAX_NODES 1024
#define UP_MAX_EMULATED 20000
#define EMU_CPUS 8
#define EMU_MEM_MB 16000

struct up_opts {
    char *dir;                /* absolute, once prepared */
    int nodes;                /* 0: one node that describes this machine */
    int gpus, cpus;           /* -1: default */
    uint64_t mem_mb;          /* 0: default */
    bool netns;               /* each node in namespaces of its own (netns.h) */
    bool uts;                 /* without netns: each node agent named after its node (uts.h) */
    bool emulate;             /* one herdd --emulate serves every node (docs/emulator.md) */
    const char *emu_jobs, *emu_run;   /* passed on to it; NULL: its defaults */
    char **sets;              /* "Key=Value", borrowed from argv */
    size_t nsets;
};

/* slurm.conf being written, one line each. */
struct lines {
    char **v;
    size_t n;
};

static void lines_insert(struct lines *l, size_t at, char *s)
{
    l->v = xrealloc(l->v, (l->n + 1) * sizeof *l->v);
    memmove(l->v + at + 1, l->v + at, (l->n - at) * sizeof *l->v);
    l->v[at] = s;
    l->n++;
}

static void lines_clear(struct lines *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    xfree(l->v);
    l->n = 0;
}

static int parse_int(const char *opt, const char *s, long min, long max, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max) {
        fprintf(stderr, "herd: error: invalid %s '%s'\n", opt, s);
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int parse_set(const char *s)
{
    const char *eq = strchr(s, '=');
    if (!eq || eq == s) {
        fprintf(stderr, "herd: error: invalid --set '%s' (expected Key=Value)\n", s);
        return -1;
    }
    if (!strncasecmp(s, "NodeName=", 9) || !strncasecmp(s, "PartitionName=", 14)) {
        fprintf(stderr, "herd: error: --set takes global keys only, not '%s'\n", s);
        return -1;
    }
    return 0;
}

static int up_parse_opt(struct up_opts *o, int c, const char *arg)
{
    switch (c) {
    case 'D':
        o->dir = xstrdup(arg);
        return 0;
    case 'n':
        return parse_int("--nodes", arg, 1, UP_MAX_EMULATED, &o->nodes);
    case 'e':
        o->emulate = true;
        return 0;
    case 'j':
        o->emu_jobs = arg;
        return 0;
    case 'r':
        o->emu_run = arg;
        return 0;
    case 'g':
        return parse_int("--gpus-per-node", arg, 0, 1024, &o->gpus);
    case 'c':
        return parse_int("--cpus-per-node", arg, 1, 1 << 20, &o->cpus);
    case 'm':
        if (sizefmt_parse_mb(arg, &o->mem_mb) < 0 || o->mem_mb == 0) {
            fprintf(stderr, "herd: error: invalid --mem-per-node '%s'\n", arg);
            return -1;
        }
        return 0;
    case 'x':
        o->netns = true;
        return 0;
    case 's':
        if (parse_set(arg) < 0)
            return -1;
        o->sets = xrealloc(o->sets, (o->nsets + 1) * sizeof *o->sets);
        o->sets[o->nsets++] = (char *)arg;
        return 0;
    }
    return -1;
}

/* 0 to go on, else the exit code. */
static int up_parse(struct up_opts *o, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"dir", required_argument, NULL, 'D'},
        {"nodes", required_argument, NULL, 'n'},
        {"gpus-per-node", required_argument, NULL, 'g'},
        {"cpus-per-node", required_argument, NULL, 'c'},
        {"mem-per-node", required_argument, NULL, 'm'},
        {"set", required_argument, NULL, 's'},
        {"netns", no_argument, NULL, 'x'},
        {"emulate", no_argument, NULL, 'e'},
        {"emu-jobs", required_argument, NULL, 'j'},
        {"emu-run", required_argument, NULL, 'r'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+D:N:h", longopts, NULL)) != -1) {
        if (c == 'h') {
            fputs(UP_USAGE, stdout);
            exit(0);
        }
        if (c == '?') {
            fprintf(stderr, "herd: error: unrecognized option '%s'\n%s", argv[optind - 1],
                    UP_USAGE);
            return 2;
        }
        if (up_parse_opt(o, c == 'N' ? 'n' : c, optarg) < 0)
            return 2;
    }
    if (optind < argc) {
        fprintf(stderr, "herd: error: unexpected argument '%s'\n%s", argv[optind], UP_USAGE);
        return 2;
    }
    if (!o->dir || !o->dir[0]) {
        fputs(UP_USAGE, stderr);
        return 2;
    }
    if (o->nodes > UP_MAX_NODES && !o->emulate) {
        fprintf(stderr, "herd: error: --nodes takes at most %d node agents (more with "
                "--emulate)\n", UP_MAX_NODES);
        return 2;
    }
    if (o->emulate && o->netns) {
        fprintf(stderr, "herd: error: --emulate and --netns do not go together\n");
        return 2;
    }
    return 0;
}

/* Makes DIR and turns it into an absolute path. Job users must be able to
 * reach the controller's socket under it, hence at least 0755. */
static int up_dir_prepare(struct up_opts *o)
{
    struct stat st;
    char abs[PATH_MAX];
    if (cluster_mkdirs(o->dir, 0755) < 0 || !realpath(o->dir, abs) || stat(abs, &st) < 0) {
        fprintf(stderr, "herd: error: %s: %s\n", o->dir, strerror(errno));
        return -1;
    }
    if ((st.st_mode & 0755) != 0755 && chmod(abs, st.st_mode | 0755) < 0) {
        fprintf(stderr, "herd: error: chmod %s: %s\n", abs, strerror(errno));
        return -1;
    }
    free(o->dir);
    o->dir = xstrdup(abs);
    const char *subs[] = {"ctld", "spool", "log", "run"};
    for (size_t i = 0; i < sizeof subs / sizeof *subs; i++) {
        char *p = xasprintf("%s/%s", o->dir, subs[i]);
        int rc = cluster_mkdirs(p, 0755);
        if (rc < 0)
            fprintf(stderr, "herd: error: %s: %s\n", p, strerror(errno));
        free(p);
        if (rc < 0)
            return -1;
    }
    return 0;
}

static const char *token_value(const char *line, const char *key)
{
    size_t klen = strlen(key);
    for (const char *p = line; (p = strcasestr(p, key)) != NULL; p += klen)
        if ((p == line || p[-1] == ' ') && p[klen] == '=')
            return p + klen + 1;
    return NULL;
}

static char *token_copy(const char *v)
{
    return v ? xstrndup(v, strcspn(v, " \t\n")) : NULL;
}

/* CPUs=, RealMemory= and Gres= of this machine, as `herdd -C` sees them;
 * what the CPU count and memory say when herdd cannot tell. */
static char *local_node_shape(const struct up_opts *o)
{
    char *bin = self_sibling("herdd"), *out = xasprintf("%s/run/herdd-C.out", o->dir);
    char *argv[] = {bin, "-C", NULL};
    char line[4096] = "";
    if (cluster_spawn_wait(argv, out, 30) == 0) {
        FILE *f = fopen(out, "re");
        while (f && fgets(line, sizeof line, f) && !token_value(line, "CPUs"))
            line[0] = '\0';
        if (f)
            fclose(f);
    }
    unlink(out);
    char *cpus = token_copy(token_value(line, "CPUs"));
    char *mem = token_copy(token_value(line, "RealMemory"));
    char *gres = token_copy(token_value(line, "Gres"));
    if (!cpus || !mem) {
        fprintf(stderr, "herd: warning: `%s -C` said nothing usable; using sysconf\n", bin);
        free(cpus);
        free(mem);
        cpus = xasprintf("%ld", sysconf(_SC_NPROCESSORS_ONLN));
        mem = xasprintf("%ld", (long)(sysconf(_SC_PHYS_PAGES) / 1024 * sysconf(_SC_PAGESIZE) /
                                      1024));
    }
    char *shape = xasprintf("CPUs=%s RealMemory=%s%s%s", cpus, mem, gres ? " Gres=" : "",
                            gres ? gres : "");
    free(cpus); free(mem); free(gres); free(bin); free(out);
    return shape;
}

/* base: the first three octets of the --netns subnet, else NULL (loopback). */
static void conf_add_nodes(struct lines *l, const struct up_opts *o,
                           const int *ports, const char *base)
{
    if (o->nodes == 0) {
        char host[256] = "localhost";
        gethostname(host, sizeof host - 1);
        host[strcspn(host, ".")] = '\0';
        char *shape = local_node_shape(o);
        lines_insert(l, l->n, xasprintf("NodeName=%s NodeAddr=127.0.0.1 Port=%d %s State=UNKNOWN",
                                        host, ports[1], shape));
        free(shape);
        return;
    }
    int cpus = o->cpus > 0 ? o->cpus : EMU_CPUS, gpus = o->gpus > 0 ? o->gpus : 0;
    unsigned long long mem = o->mem_mb ? (unsigned long long)o->mem_mb : EMU_MEM_MB;
    if (o->emulate) {   /* one address and port, the emulator's; NodeAddr
                         * names one address per node, as in Slurm */
        char gres[32] = "";
        if (gpus > 0)
            snprintf(gres, sizeof gres, " Gres=gpu:%d", gpus);
        int width = snprintf(NULL, 0, "%d", o->nodes);
        for (int i = 1; i <= o->nodes; i++)
            lines_insert(l, l->n, xasprintf("NodeName=emu%0*d NodeAddr=127.0.0.1 Port=%d CPUs=%d "
                                            "RealMemory=%llu%s State=UNKNOWN", width, i,
                                            ports[1], cpus, mem, gres));
        return;
    }
    for (int i = 0; i < o->nodes; i++) {
        char gres[32] = "", addr[48] = "127.0.0.1";
        if (gpus > 0)
            snprintf(gres, sizeof gres, " Gres=gpu:%d", gpus);
        if (base)
            snprintf(addr, sizeof addr, "%s.%d", base, i + 1);
        lines_insert(l, l->n, xasprintf("NodeName=node%d NodeAddr=%s Port=%d CPUs=%d "
                                        "RealMemory=%llu%s State=UNKNOWN",
                                        i + 1, addr, ports[i + 1], cpus, mem, gres));
    }
}

/* --set Key=Value replaces the global line of that key, else is appended
 * after the other global lines. */
static void conf_apply_set(struct lines *l, size_t nglobal, const char *set)
{
    size_t klen = (size_t)(strchr(set, '=') - set);
    /* AuthInfo=cred_expire=5 adds to the socket herd up chose */
    bool merge = !strncasecmp(set, "AuthInfo=", 9) && !strstr(set, "socket=");
    for (size_t i = 0; i < nglobal; i++) {
        if (!strncasecmp(l->v[i], set, klen) && l->v[i][klen] == '=') {
            char *v = merge ? xasprintf("%s,%s", l->v[i], set + klen + 1) : xstrdup(set);
            free(l->v[i]);
            l->v[i] = v;
            return;
        }
    }
    lines_insert(l, nglobal, xstrdup(set));
}

/* Whether herdd can give jobs cgroups here: v2, or v1's freezer and memory. */
static bool cgroups_usable(void)
{
    if (access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0)
        return access("/sys/fs/cgroup", W_OK) == 0;
    return access("/sys/fs/cgroup/freezer/cgroup.procs", W_OK) == 0
        && access("/sys/fs/cgroup/memory/cgroup.procs", W_OK) == 0;
}

/* cgroup.conf beside slurm.conf, kept once written, as slurm.conf is. */
static int cgroup_conf_write(const char *dir)
{
    char *path = xasprintf("%s/cgroup.conf", dir);
    int rc = 0;
    if (access(path, F_OK) != 0) {
        FILE *f = fopen(path, "we");
        rc = f && fprintf(f, "# Written by `herd up`: what herdd confines jobs to.\n"
                          "ConstrainRAMSpace=yes\nConstrainCores=yes\n"
                          "ConstrainDevices=yes\n") > 0 ? 0 : -1;
        if (f && fclose(f) != 0)
            rc = -1;
        if (rc < 0)
            fprintf(stderr, "herd: error: cannot write %s: %s\n", path, strerror(errno));
    }
    free(path);
    return rc;
}

static void conf_add_globals(struct lines *l, const char *d, int port, const char *munge,
                             const char *ctld_host)
{
    char *v[] = {
        xstrdup("# Written by `herd up`; later runs keep it (and the cluster's state)."),
        xstrdup("ClusterName=herd"),
        xasprintf("SlurmctldHost=%s", ctld_host),
        xasprintf("SlurmctldPort=%d", port),
        xasprintf("StateSaveLocation=%s/ctld", d),
        xasprintf("SlurmdSpoolDir=%s/spool/%%n", d),
        xasprintf("SlurmctldLogFile=%s/log/herdctld.log", d),
        xasprintf("SlurmdLogFile=%s/log/herdd-%%n.log", d),
        xasprintf("SlurmctldPidFile=%s/run/herdctld.pid", d),
        xasprintf("SlurmdPidFile=%s/run/herdd-%%n.pid", d),
        xasprintf("AuthInfo=socket=%s", munge),
        /* tokens for the REST API and the dashboard (herd web-url) */
        xstrdup("AuthAltTypes=auth/jwt"),
        xasprintf("AuthAltParameters=jwt_key=%s/jwt_hs256.key", d),
        xstrdup("GresTypes=gpu"),
        xstrdup("SchedulerType=sched/backfill"),
        xstrdup("SelectType=select/cons_tres"),
        xstrdup("KillWait=30"),
        xstrdup("SlurmdTimeout=300"),
        /* a local cluster's node that was silent serves again when its
         * agent answers (Slurm's default, 0, waits for an admin) */
        xstrdup("ReturnToService=2"),
        xstrdup("MinJobAge=300"),
        /* as a typical GPU cluster has it: each job gets its extern step */
        xstrdup("PrologFlags=Contain"),
    };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        lines_insert(l, l->n, v[i]);
    if (cgroups_usable() && cgroup_conf_write(d) == 0) {
        lines_insert(l, l->n, xstrdup("TaskPlugin=task/cgroup"));
        lines_insert(l, l->n, xstrdup("ProctrackType=proctrack/cgroup"));
    }
}

static int conf_write_file(const char *path, const struct lines *l)
{
    char *tmp = xasprintf("%s.tmp", path);
    FILE *f = fopen(tmp, "we");
    int rc = -1;
    if (f) {
        for (size_t i = 0; i < l->n; i++)
            fprintf(f, "%s\n", l->v[i]);
        rc = (fclose(f) == 0 && rename(tmp, path) == 0) ? 0 : -1;
    }
    if (rc < 0) {
        fprintf(stderr, "herd: error: cannot write %s: %s\n", path, strerror(errno));
        unlink(tmp);
    }
    free(tmp);
    return rc;
}

/* The controller as slurm.conf names it: on loopback, or with --netns on
 * the bridge (this machine's short name, which the nodes' hosts file maps
 * there). base as for conf_add_nodes. */
static char *ctld_host(const char *base)
{
    if (!base)
        return xstrdup("localhost(127.0.0.1)");
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) < 0 || !host[0] || !strncmp(host, "localhost", 9))
        snprintf(host, sizeof host, "herdctld");
    host[strcspn(host, ".")] = '\0';
    return xasprintf("%s(%s.%d)", host, base, NETNS_CTLD_OCTET);
}

static int conf_write(const struct up_opts *o, const char *path, const char *munge)
{
    int n = o->nodes ? o->nodes : 1;
    int *ports = xcalloc((size_t)n + 1, sizeof *ports);
    char base[32];
    if (cluster_free_ports(ports, n + 1) < 0) {
        fprintf(stderr, "herd: error: no free TCP port: %s\n", strerror(errno));
        free(ports);
        return -1;
    }
    if (o->netns && netns_pick_subnet(o->dir, base, sizeof base) < 0) {
        free(ports);
        return -1;
    }
    struct lines l = {0};
    char *ctld = ctld_host(o->netns ? base : NULL);
    conf_add_globals(&l, o->dir, ports[0], munge, ctld);
    free(ctld);
    char *jwt_key = xasprintf("%s/jwt_hs256.key", o->dir);
    if (cluster_key_make(jwt_key) < 0)
        fprintf(stderr, "herd: warning: cannot write %s: %s\n", jwt_key, strerror(errno));
    free(jwt_key);
    size_t nglobal = l.n;
    for (size_t i = 0; i < o->nsets; i++) {
        conf_apply_set(&l, nglobal, o->sets[i]);
        nglobal = l.n;
    }
    conf_add_nodes(&l, o, ports, o->netns ? base : NULL);
    lines_insert(&l, l.n, xstrdup("PartitionName=debug Nodes=ALL Default=YES "
                                  "MaxTime=UNLIMITED State=UP"));
    int rc = conf_write_file(path, &l);
    if (rc == 0)
        fprintf(stderr, "herd: wrote %s (%d node%s)\n", path, n, n == 1 ? "" : "s");
    lines_clear(&l);
    free(ports);
    return rc;
}

/* Which munged the cluster uses: the system's if it answers, else ours. */
static int munge_ensure(const struct up_opts *o, const char *socket)
{
    char *ours = cluster_munge_socket(o->dir);
    int rc = 0;
    if (socket && strcmp(socket, ours) == 0)
        rc = cluster_munge_start(o->dir);
    else if (!cluster_munge_answers(socket)) {
        fprintf(stderr, "herd: error: munged does not answer on %s\n",
                socket ? socket : CLUSTER_SYSTEM_MUNGE);
        rc = -1;
    }
    free(ours);
    return rc;
}

struct enter_arg {
    const char *dir, *node;
};

static int enter_node(void *arg)
{
    const struct enter_arg *e = arg;
    return netns_enter(e->dir, e->node);
}

static int name_node(void *arg)
{
    const struct enter_arg *e = arg;
    return uts_enter(e->dir, e->node);
}

/* The hook that makes node's agent a host of its own, or NULL. */
static int (*node_hook(const struct up_opts *o, const char *node))(void *)
{
    if (!node)
        return NULL;
    return o->netns ? enter_node : o->uts ? name_node : NULL;
}

/* node: NULL for the controller. */
static int daemon_start(const char *prog, const char *conf_path,
                        const char *node, const char *pidfile, const char *logfile,
                        const struct up_opts *o)
{
    const char *dir = o->dir;
    const char *what = node ? node : prog;
    pid_t pid = pidfile ? cluster_pid_live(pidfile, prog) : 0;
    if (pid) {
        fprintf(stderr, "herd: %s already running (pid %d)\n", what, (int)pid);
        return 0;
    }
    char *bin = self_sibling(prog);
    char *errfile = xasprintf("%s/log/%s%s%s.start", dir, prog, node ? "-" : "", node ? node : "");
    char *argv[] = {bin, "-f", (char *)conf_path, node ? "-N" : NULL, (char *)node, NULL};
    struct enter_arg ea = {dir, node};
    int rc = cluster_spawn_wait_pre(argv, errfile, UP_WAIT_S, node_hook(o, node), &ea);
    if (rc != 0) {
        char how[64];
        if (rc < 0)
            snprintf(how, sizeof how, "still in the foreground after %d s", UP_WAIT_S);
        else
            snprintf(how, sizeof how, "exit status %d", rc);
        fprintf(stderr, "herd: error: %s failed to start (%s; log: %s):\n", what, how,
                logfile ? logfile : "stderr");
        cluster_print_file(errfile);
    } else if ((pid = pidfile ? cluster_pid_live(pidfile, prog) : 0) != 0) {
        fprintf(stderr, "herd: started %s (pid %d)\n", what, (int)pid);
    } else {
        fprintf(stderr, "herd: started %s\n", what);
    }
    free(bin);
    free(errfile);
    return rc == 0 ? 0 : -1;
}

/* A node agent's log and the file its start is recorded in are root's
 * alone: made 0600 before herdd writes to them, closed if older. */
static void node_logs_private(const char *dir, const char *node, const char *log)
{
    char *start = xasprintf("%s/log/herdd-%s.start", dir, node);
    const char *paths[] = { start, log };
    for (size_t i = 0; i < 2; i++) {
        int fd = paths[i] ? open(paths[i], O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600) : -1;
        if (fd >= 0) {
            fchmod(fd, 0600);
            close(fd);
        }
    }
    free(start);
}

/* herdd --emulate ALL for every node, its pid and log files named after
 * the first node. */
static int emulator_start(const struct up_opts *o, const struct conf *c, const char *path)
{
    const char *first = c->nodes[0].name;
    char *pidfile = c->pid_file_d ? conf_expand_node(c->pid_file_d, first) : NULL;
    char *log = c->log_file_d ? conf_expand_node(c->log_file_d, first) : NULL;
    pid_t pid = pidfile ? cluster_pid_live(pidfile, "herdd") : 0;
    int rc = 0;
    if (pid) {
        fprintf(stderr, "herd: node emulator already running (pid %d)\n", (int)pid);
        goto out;
    }
    char *bin = self_sibling("herdd"), *errfile = xasprintf("%s/log/herdd-emu.start", o->dir);
    char *silent = xasprintf("%s/run/emu-silent", o->dir);
    char *argv[12] = {bin, "-f", (char *)path, "--emulate", "ALL", "--emu-silent", silent};
    int n = 7;
    if (o->emu_jobs) {
        argv[n++] = "--emu-jobs";
        argv[n++] = (char *)o->emu_jobs;
    }
    if (o->emu_run) {
        argv[n++] = "--emu-run";
        argv[n++] = (char *)o->emu_run;
    }
    node_logs_private(o->dir, first, log);
    rc = cluster_spawn_wait(argv, errfile, UP_WAIT_S);
    if (rc != 0) {
        fprintf(stderr, "herd: error: the node emulator failed to start (log: %s):\n",
                log ? log : "stderr");
        cluster_print_file(errfile);
    } else {
        fprintf(stderr, "herd: started the node emulator for %zu nodes\n", c->nnodes);
    }
    free(bin); free(errfile); free(silent);
out:
    free(pidfile); free(log);
    return rc == 0 ? 0 : -1;
}

/* Nodes that share an address and port: only the emulator serves those. */
static bool conf_emulated(const struct conf *c)
{
    return c->nnodes > 1 && c->nodes[0].port == c->nodes[1].port &&
           strcmp(c->nodes[0].addr, c->nodes[1].addr) == 0;
}

static int daemons_start(const struct up_opts *o, const struct conf *c, const char *path)
{
    int rc = daemon_start("herdctld", path, NULL, c->pid_file_ctld, c->log_file_ctld, o);
    if (o->emulate)
        return rc == 0 ? emulator_start(o, c, path) : rc;
    for (size_t i = 0; rc == 0 && i < c->nnodes; i++) {
        const char *name = c->nodes[i].name;
        char *pid = c->pid_file_d ? conf_expand_node(c->pid_file_d, name) : NULL;
        char *log = c->log_file_d ? conf_expand_node(c->log_file_d, name) : NULL;
        char *spool = conf_expand_node(c->spool_dir, name);
        /* herdd keeps users' job scripts and environments there (0711: a
         * job's user reaches only their own script) */
        if (cluster_mkdirs(spool, 0711) < 0)
            fprintf(stderr, "herd: warning: %s: %s\n", spool, strerror(errno));
        node_logs_private(o->dir, name, log);
        rc = daemon_start("herdd", path, name, pid, log, o);
        free(pid); free(log); free(spool);
    }
    return rc;
}

static bool node_ready(const json_t *n)
{
    struct nodestate st;
    nodestate_parse(jget_str(n, "state", "UNKNOWN"), (int)jget_int(n, "alloc_cpus", 0), &st);
    if (!jget_bool(n, "responding", true) || st.no_respond)
        return false;
    return st.base == NODESTATE_IDLE || st.base == NODESTATE_MIXED ||
           st.base == NODESTATE_ALLOCATED;
}

/* Names what is not ready yet into why; true when everything is. */
static bool cluster_ready(const struct conf *c, char *why, size_t n)
{
    json_t *resp = NULL;
    char err[256];
    int st = client_call("herd", "GET", PATH_NODES, NULL, &resp, err, sizeof err);
    if (st != 200) {
        snprintf(why, n, "the controller (%s)", st < 0 ? err : client_error_text(resp, st));
        json_decref(resp);
        return false;
    }
    size_t used = 0;
    why[0] = '\0';
    for (size_t i = 0; i < c->nnodes; i++) {
        const json_t *found = NULL, *node;
        size_t k;
        json_array_foreach(json_object_get(resp, "nodes"), k, node)
            if (strcmp(jget_str(node, "name", ""), c->nodes[i].name) == 0)
                found = node;
        if (found && node_ready(found))
            continue;
        int w = snprintf(why + used, n - used, "%s%s (%s)", used ? ", " : "", c->nodes[i].name,
                         found ? jget_str(found, "state", "?") : "not registered");
        used = (w > 0 && (size_t)w < n - used) ? used + (size_t)w : n - 1;
    }
    json_decref(resp);
    return why[0] == '\0';
}

static int cluster_wait(const struct conf *c)
{
    char why[1024] = "";
    int64_t end = client_mono_ms() + UP_WAIT_S * 1000;
    while (!cluster_ready(c, why, sizeof why)) {
        if (client_mono_ms() >= end) {
            fprintf(stderr, "herd: error: not ready after %d s: %s\n", UP_WAIT_S, why);
            return -1;
        }
        struct timespec ts = {0, 100 * 1000000L};
        nanosleep(&ts, NULL);
    }
    return 0;
}

/* Without --netns: each node agent named after its node where the machine
 * allows it, else a warning with what to do; herd up goes on either way. */
static int uts_choose(struct up_opts *o)
{
    const char *why = uts_unavailable();
    o->uts = !why;
    if (why)
        fprintf(stderr, "herd: warning: the nodes cannot have host names of their own (%s): "
                "they share this machine's, and Open MPI with two or more ranks per node "
                "takes ranks of different nodes for one host and fails in its shared-memory "
                "transport. Run herd up as root (CAP_SYS_ADMIN), or with --netns, or run "
                "mpirun with --mca btl self,tcp\n", why);
    return 0;
}

/* Whether the cluster runs in namespaces: a new one when asked (with
 * --nodes), one made so always, one made without never. 0, or -1 after
 * printing why. */
static int netns_choose(struct up_opts *o, bool exists)
{
    if (exists && o->netns && !netns_enabled(o->dir)) {
        fprintf(stderr, "herd: error: %s was made without --netns; its slurm.conf stays as it "
                "is (after `herd down`, remove it to make the cluster afresh)\n", o->dir);
        return -1;
    }
    if (exists)
        o->netns = netns_enabled(o->dir);
    if (!o->netns)
        return o->emulate ? 0 : uts_choose(o);
    const char *why = netns_unavailable();
    if (why) {
        fprintf(stderr, "herd: error: %s\n", why);
        return -1;
    }
    if (!exists && o->nodes == 0) {
        fprintf(stderr, "herd: error: --netns needs --nodes N (1 to %d)\n", NETNS_MAX_NODES);
        return -1;
    }
    if (!exists && o->nodes > NETNS_MAX_NODES) {
        fprintf(stderr, "herd: error: --netns takes at most %d nodes\n", NETNS_MAX_NODES);
        return -1;
    }
    return 0;
}

static int conf_make(const struct up_opts *o, const char *path)
{
    char *ours = cluster_munge_socket(o->dir);
    bool sys = cluster_munge_answers(CLUSTER_SYSTEM_MUNGE);
    int rc = conf_write(o, path, sys ? CLUSTER_SYSTEM_MUNGE : ours);
    free(ours);
    if (rc == 0 && o->netns)
        rc = netns_mark(o->dir);
    return rc;
}

static bool any_daemon_runs(const struct conf *c)
{
    bool runs = c->pid_file_ctld && cluster_pid_live(c->pid_file_ctld, "herdctld");
    for (size_t i = 0; !runs && c->pid_file_d && i < c->nnodes; i++) {
        char *pid = conf_expand_node(c->pid_file_d, c->nodes[i].name);
        runs = cluster_pid_live(pid, "herdd") != 0;
        free(pid);
    }
    return runs;
}

static int cluster_start(const struct up_opts *o, const struct conf *c, const char *path)
{
    if (munge_ensure(o, c->munge_socket) < 0 || (o->netns && netns_up(o->dir, c) < 0) ||
        (o->uts && uts_hosts_write(o->dir, c) < 0) ||
        daemons_start(o, c, path) < 0 || cluster_wait(c) < 0)
        return -1;
    return 0;
}

static int up_run(struct up_opts *o)
{
    if (up_dir_prepare(o) < 0)
        return 1;
    char *path = xasprintf("%s/slurm.conf", o->dir);
    int rc = 1;
    struct conf *c = NULL;
    bool exists = access(path, F_OK) == 0;
    if (exists)
        fprintf(stderr, "herd: using %s\n", path);
    if (netns_choose(o, exists) < 0 || (!exists && conf_make(o, path) < 0))
        goto out;
    char err[512];
    if (!(c = conf_load(path, err, sizeof err))) {
        fprintf(stderr, "herd: error: %s\n", err);
        goto out;
    }
    setenv("SLURM_CONF", path, 1);
    o->emulate = o->emulate || conf_emulated(c);
    if (o->emulate)
        o->uts = false;   /* one process: no host name per node */
    bool ran = any_daemon_runs(c);
    if (cluster_start(o, c, path) < 0) {
        fprintf(stderr, "herd: logs are in %s/log\n", o->dir);
        if (o->netns && !ran) {
            /* a network nothing uses is only in the way */
            fprintf(stderr, "herd: stopping what this start began and removing its network\n");
            herd_down_dir(o->dir);
        } else {
            fprintf(stderr, "herd: `herd down -D %s` stops what runs\n", o->dir);
        }
        goto out;
    }
    fprintf(stderr, "herd: cluster '%s' ready: %zu node%s\n", c->cluster_name, c->nnodes,
            c->nnodes == 1 ? "" : "s");
    printf("export SLURM_CONF=%s\n", path);
    fflush(stdout);
    rc = 0;
out:
    conf_destroy(c);
    free(path);
    return rc;
}

int cmd_herd_up(int argc, char **argv)
{
    struct up_opts o = {.gpus = -1, .cpus = -1};
    int rc = up_parse(&o, argc, argv);
    if (rc == 0)
        rc = up_run(&o);
    free(o.dir);
    free(o.sets);
    return rc;
}
