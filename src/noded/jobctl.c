#include "noded/jobctl.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "noded/cgroup.h"
#include "noded/jobenv.h"
#include "noded/jobspec.h"
#include "noded/nodeconf.h"
#include "noded/sysops.h"

char *jobctl_cpuset(const struct job_spec *js, int machine_cpus)
{
    if (js->ncpu_ids == 0 || machine_cpus <= 0)
        return NULL;
    bool *use = xcalloc((size_t)machine_cpus, sizeof *use);
    for (size_t i = 0; i < js->ncpu_ids; i++)
        use[js->cpu_ids[i] % machine_cpus] = true;
    char *out = xstrdup("");
    for (int c = 0; c < machine_cpus; c++) {
        if (!use[c])
            continue;
        int e = c;
        while (e + 1 < machine_cpus && use[e + 1])
            e++;
        char *t = e > c ? xasprintf("%s%s%d-%d", out, out[0] ? "," : "", c, e)
                        : xasprintf("%s%s%d", out, out[0] ? "," : "", c);
        free(out);
        out = t;
        c = e;
    }
    free(use);
    return out;
}

static bool allocated(const struct job_spec *js, size_t idx)
{
    for (size_t i = 0; i < js->ngpus; i++)
        if ((size_t)js->gpus[i] == idx)
            return true;
    return false;
}

char **jobctl_deny_devs(const struct job_spec *js)
{
    char **v = xcalloc(js->ngpu_devs + 1, sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < js->ngpu_devs; i++)
        if (js->gpu_devs[i][0] && !allocated(js, i))
            v[n++] = xstrdup(js->gpu_devs[i]);
    return v;
}

static void free_strv(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

/* FNV-1a of the spool (the job directory's parent). */
static uint32_t spool_hash(const char *job_dir)
{
    const char *end = strrchr(job_dir, '/');
    size_t n = end ? (size_t)(end - job_dir) : strlen(job_dir);
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)job_dir[i]) * 16777619u;
    return h;
}

char *jobctl_cgroup_scope(const char *node_name, const char *job_dir)
{
    return xasprintf("%s-%08x", node_name, (unsigned)spool_hash(job_dir));
}

int jobctl_cgroup_end(const char *conf_path, const char *node_name, const char *job_dir,
                      int64_t job_id)
{
    struct nodeconf nc = { 0 };
    struct jobcg *cg = NULL;
    int rc = 0;
    if (nodeconf_load(&nc, conf_path) == 0 && (nc.proctrack_cgroup || nc.task_cgroup)) {
        char *scope = jobctl_cgroup_scope(node_name, job_dir);
        cg = jobcg_open(nc.cgroup_mount, scope, job_id);
        free(scope);
    }
    if (cg) {
        rc = jobcg_kill_all(cg);
        if (rc == 0)
            jobcg_destroy(cg);      /* removes only empty groups */
        else
            jobcg_close(cg);
    }
    nodeconf_clear(&nc);
    return rc;
}

struct jobcg *jobctl_cgroup(const struct job_spec *js, const struct nodeconf *nc,
                            const char *job_dir)
{
    if (!nc->proctrack_cgroup && !nc->task_cgroup)
        return NULL;
    if (jobcg_version(nc->cgroup_mount) == 0) {
        log_warnx("job %lld: no usable cgroup under %s; tracking processes only",
                  (long long)js->job_id, nc->cgroup_mount);
        return NULL;
    }
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    char *cpus = nc->constrain_cores ? jobctl_cpuset(js, (int)ncpu) : NULL;
    char **deny = nc->constrain_devices ? jobctl_deny_devs(js) : NULL;
    char *scope = jobctl_cgroup_scope(js->node_name, job_dir);
    struct jobcg_want w = {
        .node = scope, .job_id = js->job_id, .cpus = cpus,
        .mem_bytes = nc->constrain_ram ? (uint64_t)js->node_mem_mb * 1024 * 1024 : 0,
        .devices = nc->constrain_devices, .deny_devs = deny,
    };
    char err[512];
    struct jobcg *cg = jobcg_create(nc->cgroup_mount, &w, err, sizeof err);
    if (!cg)
        log_warnx("job %lld: %s; tracking processes only", (long long)js->job_id, err);
    else
        log_info("job %lld: cgroup memory %lluMB, cpus %s, devices %s", (long long)js->job_id,
                 (unsigned long long)(w.mem_bytes >> 20), cpus ? cpus : "all",
                 deny ? "constrained" : "all");
    free(scope);
    free(cpus);
    free_strv(deny);
    return cg;
}

static void exec_script(const char *path, const char *context, const struct job_spec *js,
                        const char *conf_path) __attribute__((noreturn));
static void exec_script(const char *path, const char *context, const struct job_spec *js,
                        const char *conf_path)
{
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, 0);
        dup2(null, 1);
        dup2(null, 2);
    }
    close_range(3, ~0U, 0);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    sys->setpgid(0, 0);
    char **env = jobenv_root_script(js, conf_path, context);
    char *argv[] = { (char *)path, NULL };
    sys->execve(path, argv, env);
    _exit(127);
}

int jobctl_script(const char *path, const char *context, const struct job_spec *js,
                  const char *conf_path)
{
    pid_t pid = sys->fork();
    if (pid < 0) {
        log_warn("job %lld: cannot run %s %s", (long long)js->job_id, context, path);
        return -1;
    }
    if (pid == 0)
        exec_script(path, context, js, conf_path);
    int status;
    while (sys->waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (rc != 0)
        log_warnx("job %lld: %s %s failed: %s %d", (long long)js->job_id, context, path,
                  WIFEXITED(status) ? "exit status" : "signal",
                  WIFEXITED(status) ? rc : WTERMSIG(status));
    return rc;
}
