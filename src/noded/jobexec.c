#include "noded/jobexec.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/rlimits.h"
#include "common/xmalloc.h"
#include "noded/cgroup.h"
#include "noded/jobenv.h"
#include "noded/jobspec.h"
#include "noded/sysops.h"

int jobexec_become_user(const struct job_spec *js)
{
    uid_t uid = (uid_t)js->uid;
    gid_t gid = (gid_t)js->gid;
    if (getuid() != 0)
        return uid == getuid() ? 0 : (errno = EPERM, -1);
    int rc = js->user_name[0] ? initgroups(js->user_name, gid) : setgroups(1, &gid);
    if (rc < 0 || setgid(gid) < 0 || setuid(uid) < 0)
        return -1;
    /* root must be gone for good, or the job could take it back */
    if (uid != 0 && setuid(0) == 0)
        return errno = EPERM, -1;
    return 0;
}

static int open_as(const char *path, int flags, mode_t mode, int target)
{
    int fd = open(path, flags | O_NOCTTY, mode);
    if (fd < 0)
        return -1;
    if (fd != target) {
        if (dup2(fd, target) < 0) {
            close(fd);
            return -1;
        }
        close(fd);
    }
    return 0;
}

/* stdin, stdout and stderr (stderr = stdout unless it names another file). */
static int open_io(const struct job_spec *js)
{
    /* truncated as Slurm's default open mode says, but appended to, so that
     * the supervisor's notes never overwrite what the job wrote */
    const int wflags = O_WRONLY | O_CREAT | O_APPEND
                     | (strcmp(js->open_mode, "append") == 0 ? 0 : O_TRUNC);
    char *in = jobenv_path(js->std_in, "/dev/null", js);
    char *out = jobenv_path(js->std_out, jobenv_default_out(js), js);
    char *err = js->std_err[0] ? jobenv_path(js->std_err, "", js) : xstrdup(out);
    const char *bad = in;
    int rc = open_as(in, O_RDONLY, 0, 0);
    if (rc == 0 && (rc = open_as(out, wflags, 0666, 1)) < 0)
        bad = out;
    if (rc == 0 && strcmp(err, out) == 0)
        rc = dup2(1, 2) < 0 ? -1 : 0;
    else if (rc == 0 && (rc = open_as(err, wflags, 0666, 2)) < 0)
        bad = err;
    if (rc < 0)
        log_warn("job %lld: cannot open %s", (long long)js->job_id, bad);
    free(in);
    free(out);
    free(err);
    return rc;
}

/* Slurm's PropagateResourceLimits=ALL: the submitter's soft limits, set
 * while still root so that one above the node's hard limit raises it too. */
static void apply_rlimits(const struct job_spec *js)
{
    for (size_t i = 0; i < js->nrlimits; i++) {
        const char *eq = strchr(js->rlimits[i], '=');
        long long v = strtoll(eq + 1, NULL, 10);
        for (size_t k = 0; k < rlimit_count; k++) {
            if (strncmp(js->rlimits[i], rlimit_names[k].name, (size_t)(eq - js->rlimits[i])) ||
                rlimit_names[k].name[eq - js->rlimits[i]])
                continue;
            struct rlimit rl;
            getrlimit(rlimit_names[k].res, &rl);
            rl.rlim_cur = v < 0 ? RLIM_INFINITY : (rlim_t)v;
            if (rl.rlim_max != RLIM_INFINITY && rl.rlim_cur > rl.rlim_max)
                rl.rlim_max = rl.rlim_cur;
            if (setrlimit(rlimit_names[k].res, &rl) < 0)
                dprintf(2, "slurmstepd: error: can't propagate RLIMIT_%s: %s\n",
                        rlimit_names[k].name, strerror(errno));
        }
    }
}

void jobexec_reset_signals(void)
{
    sigset_t all;
    sigemptyset(&all);
    sigprocmask(SIG_SETMASK, &all, NULL);
    for (int s = 1; s < NSIG; s++)
        if (s != SIGKILL && s != SIGSTOP)
            signal(s, SIG_DFL);
}

static void wait_go(int go_fd)
{
    char c;
    ssize_t n;
    while ((n = read(go_fd, &c, 1)) < 0 && errno == EINTR)
        ;
    if (n != 1)
        _exit(1);
    close(go_fd);
}

void jobexec_run(const struct job_spec *js, const char *script, const char *conf_path,
                 int sync_fd, int go_fd, const struct jobcg *cg)
{
    jobexec_reset_signals();
    sys->setsid();
    if (cg && jobcg_attach(cg, 0) < 0)
        log_warn("job %lld: cannot join its cgroup", (long long)js->job_id);
    close(sync_fd);
    wait_go(go_fd);
    apply_rlimits(js);
    if (jobexec_become_user(js) < 0) {
        log_warn("job %lld: cannot become uid %lld", (long long)js->job_id, (long long)js->uid);
        _exit(1);
    }
    umask(js->umask >= 0 ? (mode_t)js->umask : 022);
    int cd_errno = chdir(js->work_dir) < 0 ? errno : 0;
    if (cd_errno && chdir("/tmp") < 0)
        _exit(1);
    if (open_io(js) < 0)
        _exit(1);
    close_range(3, ~0U, 0);
    if (cd_errno)
        dprintf(2, "slurmstepd: error: couldn't chdir to `%s': %s: going to /tmp instead\n",
                js->work_dir, strerror(cd_errno));
    char **argv = xcalloc(js->nargv + 2, sizeof *argv);
    argv[0] = (char *)script;
    for (size_t i = 0; i < js->nargv; i++)
        argv[i + 1] = js->argv[i];
    char **env = jobenv_build(js, conf_path, getpid());
    sys->execve(script, argv, env);
    dprintf(2, "slurmstepd: error: execve(): %s: %s\n", script, strerror(errno));
    _exit(1);
}
