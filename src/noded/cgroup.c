#include "noded/cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "noded/sysops.h"

#define KILL_WAIT_MS 5000

/* v1 controllers, the first one tracks the job's processes. */
enum { CG_FREEZER, CG_CPUACCT, CG_MEMORY, CG_CPUSET, CG_DEVICES, CG_N };
static const char *const v1_names[CG_N] = { "freezer", "cpuacct", "memory", "cpuset",
                                            "devices" };

struct jobcg {
    int version;
    bool sub;                  /* dir[] are inside the job's group: remove that too */
    char *dir[CG_N];           /* v1: one per controller in use; v2: dir[0] only */
};

static char *read_small(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t cap = 4096, len = 0;
    char *buf = xmalloc(cap);
    ssize_t n;
    while ((n = read(fd, buf + len, cap - 1 - len)) > 0) {
        len += (size_t)n;
        if (len + 1 == cap)
            buf = xrealloc(buf, cap *= 2);
    }
    close(fd);
    buf[len] = '\0';
    return buf;
}

static int write_str(const char *dir, const char *file, const char *val)
{
    char *path = xasprintf("%s/%s", dir, file);
    int rc = sys->cg_write(path, val);
    if (rc < 0)
        log_debug("cgroup: cannot write '%s' to %s: %s", val, path, strerror(errno));
    free(path);
    return rc;
}

static bool file_exists(const char *dir, const char *file)
{
    char *path = xasprintf("%s/%s", dir, file);
    bool ok = access(path, F_OK) == 0;
    free(path);
    return ok;
}

int jobcg_version(const char *mount)
{
    if (file_exists(mount, "cgroup.controllers"))
        return access(mount, W_OK) == 0 ? 2 : 0;
    char *fz = xasprintf("%s/freezer", mount);
    bool v1 = file_exists(fz, "cgroup.procs") && access(fz, W_OK) == 0;
    free(fz);
    return v1 ? 1 : 0;
}

/* A v1 cpuset group takes no process until it has CPUs and memory nodes. */
static void cpuset_inherit(const char *parent, const char *dir)
{
    const char *files[] = { "cpuset.cpus", "cpuset.mems" };
    for (size_t i = 0; i < 2; i++) {
        char *pp = xasprintf("%s/%s", parent, files[i]), *mine = xasprintf("%s/%s", dir, files[i]);
        char *pv = read_small(pp), *mv = read_small(mine);
        if (pv && mv && (mv[0] == '\n' || !mv[0]))
            write_str(dir, files[i], pv);
        free(pv);
        free(mv);
        free(pp);
        free(mine);
    }
}

/* mkdir -p of base/rel, one level at a time (cpuset needs each one set). */
static char *make_path(const char *base, const char *rel, bool cpuset, bool v2,
                       const char *enable)
{
    char *path = xstrdup(base);
    char *r = xstrdup(rel), *save = NULL;
    for (char *part = strtok_r(r, "/", &save); part; part = strtok_r(NULL, "/", &save)) {
        if (v2 && enable)
            write_str(path, "cgroup.subtree_control", enable);
        char *next = xasprintf("%s/%s", path, part);
        if (sys->mkdir(next, 0755) < 0 && errno != EEXIST) {
            int e = errno;
            log_warn("cgroup: cannot create %s", next);
            free(next);
            free(path);
            free(r);
            errno = e;
            return NULL;
        }
        if (cpuset)
            cpuset_inherit(path, next);
        free(path);
        path = next;
    }
    free(r);
    return path;
}

static int set_limits_v1(struct jobcg *cg, const struct jobcg_want *w)
{
    int rc = 0;
    if (w->mem_bytes && cg->dir[CG_MEMORY]) {
        char v[32];
        snprintf(v, sizeof v, "%" PRIu64, w->mem_bytes);
        rc |= write_str(cg->dir[CG_MEMORY], "memory.limit_in_bytes", v);
    }
    if (w->cpus && cg->dir[CG_CPUSET])
        rc |= write_str(cg->dir[CG_CPUSET], "cpuset.cpus", w->cpus);
    for (size_t i = 0; w->devices && w->deny_devs && w->deny_devs[i]; i++) {
        char *rule = xasprintf("%s rwm", w->deny_devs[i]);
        rc |= write_str(cg->dir[CG_DEVICES], "devices.deny", rule);
        free(rule);
    }
    return rc;
}

static int create_v1(struct jobcg *cg, const char *mount, const char *rel,
                     const struct jobcg_want *w)
{
    for (int i = 0; i < CG_N; i++) {
        if ((i == CG_CPUSET && !w->cpus) || (i == CG_DEVICES && !w->devices))
            continue;
        char *base = xasprintf("%s/%s", mount, v1_names[i]);
        if (file_exists(base, "cgroup.procs"))
            cg->dir[i] = make_path(base, rel, i == CG_CPUSET, false, NULL);
        free(base);
        if (!cg->dir[i] && (i == CG_FREEZER || i == CG_CPUSET || i == CG_DEVICES
                            || (i == CG_MEMORY && w->mem_bytes)))
            return -1;
    }
    return set_limits_v1(cg, w);
}

static int create_v2(struct jobcg *cg, const char *mount, const char *rel,
                     const struct jobcg_want *w)
{
    const char *enable = w->cpus ? "+memory +cpu +cpuset +pids" : "+memory +cpu +pids";
    cg->dir[0] = make_path(mount, rel, false, true, enable);
    if (!cg->dir[0])
        return -1;
    int rc = 0;
    if (w->mem_bytes) {
        char v[32];
        snprintf(v, sizeof v, "%" PRIu64, w->mem_bytes);
        rc |= write_str(cg->dir[0], "memory.max", v);
        /* best effort: absent without swap accounting, and its ENOENT must
         * not replace why memory.max failed (a retry would take it for a
         * parent group removed under us) */
        int e = errno;
        write_str(cg->dir[0], "memory.swap.max", "0");
        errno = e;
    }
    if (w->cpus)
        rc |= write_str(cg->dir[0], "cpuset.cpus", w->cpus);
    if (w->devices)
        log_warnx("cgroup v2: device constraints need eBPF, not enforced");
    return rc;
}

struct jobcg *jobcg_create(const char *mount, const struct jobcg_want *w, char *err,
                           size_t errlen)
{
    struct jobcg *cg = xcalloc(1, sizeof *cg);
    cg->version = jobcg_version(mount);
    char *rel = xasprintf("herd/%s/job_%" PRId64 "%s%s", w->node, w->job_id, w->sub ? "/" : "",
                          w->sub ? w->sub : "");
    cg->sub = w->sub != NULL;
    int rc = -1;
    /* A second try when another job's end removed a parent group between
     * our mkdirs (jobcg_destroy removes empty parents). */
    for (int try = 0; try < 2; try++) {
        rc = cg->version == 2 ? create_v2(cg, mount, rel, w)
           : cg->version == 1 ? create_v1(cg, mount, rel, w) : (errno = ENOTSUP, -1);
        if (rc == 0 || errno != ENOENT)
            break;
        for (int i = 0; i < CG_N; i++)
            xfree(cg->dir[i]);
    }
    if (rc < 0) {
        snprintf(err, errlen, "cannot set up the job's cgroup %s under %s: %s", rel, mount,
                 strerror(errno));
        jobcg_destroy(cg);
        cg = NULL;
    }
    free(rel);
    return cg;
}

int jobcg_attach(const struct jobcg *cg, pid_t pid)
{
    char v[32];
    snprintf(v, sizeof v, "%ld", (long)(pid ? pid : getpid()));
    for (int i = 0; i < CG_N; i++)
        if (cg->dir[i] && write_str(cg->dir[i], "cgroup.procs", v) < 0)
            return -1;
    return 0;
}

/* The pids in the tracking group; *n of them. Caller frees. */
static pid_t *procs(const struct jobcg *cg, size_t *n)
{
    char *path = xasprintf("%s/cgroup.procs", cg->dir[0]);
    char *text = read_small(path);
    free(path);
    *n = 0;
    if (!text)
        return NULL;
    size_t cap = 16;
    pid_t *v = xmalloc(cap * sizeof *v);
    for (char *p = text, *end; *p; p = end) {
        long pid = strtol(p, &end, 10);
        if (end == p)
            break;
        if (pid > 1) {
            if (*n == cap)
                v = xrealloc(v, (cap *= 2) * sizeof *v);
            v[(*n)++] = (pid_t)pid;
        }
    }
    free(text);
    return v;
}

int jobcg_signal(const struct jobcg *cg, int sig)
{
    size_t n;
    pid_t *v = procs(cg, &n);
    int sent = 0;
    for (size_t i = 0; i < n; i++)
        sent += sys->kill(v[i], sig) == 0;
    free(v);
    return sent;
}

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

static int freeze(const struct jobcg *cg, bool on)
{
    if (cg->version == 1)
        return cg->dir[CG_FREEZER]
            ? write_str(cg->dir[CG_FREEZER], "freezer.state", on ? "FROZEN" : "THAWED") : -1;
    return write_str(cg->dir[0], "cgroup.freeze", on ? "1" : "0");
}

int jobcg_freeze(const struct jobcg *cg, bool on)
{
    return freeze(cg, on);
}

static size_t nprocs(const struct jobcg *cg)
{
    size_t n;
    free(procs(cg, &n));
    return n;
}

int jobcg_kill_all(const struct jobcg *cg)
{
    /* Most jobs are gone by now (their session was killed): freezing an
     * empty group costs the kernel a walk of the freezer for nothing. No
     * process can enter an empty group but by an attach, and the job's
     * steps attach only while it runs. */
    if (nprocs(cg) == 0)
        return 0;
    bool killed = cg->version == 2 && write_str(cg->dir[0], "cgroup.kill", "1") == 0;
    if (!killed) {
        freeze(cg, true);
        jobcg_signal(cg, SIGKILL);
        freeze(cg, false);
    }
    for (int waited = 0; ; waited += 20) {
        if (nprocs(cg) == 0)
            return 0;
        if (waited >= KILL_WAIT_MS)
            return -1;
        jobcg_signal(cg, SIGKILL);
        sleep_ms(20);
    }
}

/* "key N" from a flat keyed file; -1 when absent. */
static int64_t keyed_value(const char *dir, const char *file, const char *key)
{
    if (!dir)
        return -1;
    char *path = xasprintf("%s/%s", dir, file);
    char *text = read_small(path);
    free(path);
    int64_t v = -1;
    size_t klen = strlen(key);
    for (char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p))
        if (strncmp(p, key, klen) == 0 && p[klen] == ' ')
            v = strtoll(p + klen + 1, NULL, 10);
    free(text);
    return v;
}

static int64_t number_file(const char *dir, const char *file)
{
    if (!dir)
        return -1;
    char *path = xasprintf("%s/%s", dir, file);
    char *text = read_small(path);
    free(path);
    int64_t v = text && text[0] >= '0' && text[0] <= '9' ? strtoll(text, NULL, 10) : -1;
    free(text);
    return v;
}

bool jobcg_oom(const struct jobcg *cg)
{
    if (cg->version == 2)
        return keyed_value(cg->dir[0], "memory.events", "oom_kill") > 0;
    return keyed_value(cg->dir[CG_MEMORY], "memory.oom_control", "oom_kill") > 0;
}

void jobcg_usage(const struct jobcg *cg, struct jobcg_usage *u)
{
    int64_t cpu, rss;
    if (cg->version == 2) {
        cpu = keyed_value(cg->dir[0], "cpu.stat", "usage_usec");
        cpu = cpu >= 0 ? cpu / 1000 : -1;
        rss = number_file(cg->dir[0], "memory.peak");
    } else {
        cpu = number_file(cg->dir[CG_CPUACCT], "cpuacct.usage");
        cpu = cpu >= 0 ? cpu / 1000000 : -1;
        rss = number_file(cg->dir[CG_MEMORY], "memory.max_usage_in_bytes");
    }
    u->cpu_ms = cpu;
    u->max_rss_kb = rss >= 0 ? rss / 1024 : -1;
}

struct jobcg *jobcg_open(const char *mount, const char *node, int64_t job_id)
{
    struct jobcg *cg = xcalloc(1, sizeof *cg);
    cg->version = jobcg_version(mount);
    char *rel = xasprintf("herd/%s/job_%" PRId64, node, job_id);
    bool any = false;
    for (int i = 0; i < (cg->version == 2 ? 1 : cg->version == 1 ? CG_N : 0); i++) {
        char *dir = cg->version == 2 ? xasprintf("%s/%s", mount, rel)
                                     : xasprintf("%s/%s/%s", mount, v1_names[i], rel);
        if (file_exists(dir, "cgroup.procs")) {
            cg->dir[i] = dir;
            any = true;
        } else
            free(dir);
    }
    free(rel);
    if (!any)
        xfree(cg);
    return cg;
}

void jobcg_close(struct jobcg *cg)
{
    if (!cg)
        return;
    for (int i = 0; i < CG_N; i++)
        free(cg->dir[i]);
    free(cg);
}

void jobcg_destroy(struct jobcg *cg)
{
    if (!cg)
        return;
    for (int i = 0; i < CG_N; i++) {
        if (cg->dir[i] && sys->rmdir(cg->dir[i]) < 0 && errno != ENOENT)
            log_warn("cgroup: cannot remove %s", cg->dir[i]);
        /* Then the job's group (with a sub) and the cluster's NODE-HASH
         * group above, each unless something else is still in it. */
        for (int up = cg->sub ? 2 : 1; cg->dir[i] && up > 0; up--) {
            char *slash = strrchr(cg->dir[i], '/');
            if (!slash)
                break;
            *slash = '\0';
            if (sys->rmdir(cg->dir[i]) < 0)
                break;
        }
        free(cg->dir[i]);
    }
    free(cg);
}
