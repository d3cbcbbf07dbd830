/*
 * step: running this node's tasks of a job step and streaming their output
 * to srun. See step.h for the protocol.
 */
#include "noded/step.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/event.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/rawstr.h"
#include "common/xmalloc.h"
#include "noded/agent.h"
#include "noded/cgroup.h"
#include "noded/gpubind.h"
#include "noded/jobctl.h"
#include "noded/jobexec.h"
#include "noded/nodeconf.h"
#include "noded/jobspec.h"
#include "noded/pmi.h"
#include "noded/pty.h"
#include "noded/step_int.h"
#include "noded/sysops.h"
#include "common/slurm_errno.h"

#define BEAT_S 2
#define LOOKUP_TIMEOUT_S 10
#define PMI_TASK_FD 3   /* where a task finds its PMI socket, as PMI_FD says */

static const char *env_str(json_t *o, const char *k, const char *def)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : def;
}

static void frame(struct astep *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void frame(struct astep *st, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    size_t len = n < 0 ? 0 : (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1;
    if (!st->gone && !http_stream_write(st->r, buf, len))
        st->gone = true;
}

static void step_unlink(struct astep *st)
{
    for (struct astep **pp = &st->a->steps; *pp; pp = &(*pp)->next)
        if (*pp == st) {
            *pp = st->next;
            return;
        }
}

static void release_done(int status, json_t *body, void *arg)
{
    (void)status;
    (void)body;
    (void)arg;
}

/* srun went away without a word: the controller hears of the step's end
 * from here, so that what the step held is free for the job's next ones. */
static void report_gone(struct astep *st)
{
    char path[96];
    snprintf(path, sizeof path, "/v1/jobs/%lld/steps/%d/complete", (long long)st->job_id,
             st->step_id);
    json_t *b = json_pack("{s:i, s:i, s:b}", "exit_code", 0, "signal", SIGKILL, "cancelled", 1);
    http_call(st->a->base, st->a->conf->munge_socket, st->a->conf->ctld_addr,
              st->a->conf->ctld_port, "POST", path, b, LOOKUP_TIMEOUT_S, release_done, NULL);
}

static void step_free(struct astep *st)
{
    if (st->gone && st->layout)
        report_gone(st);
    step_unlink(st);
    stdin_step_free(st);
    for (int i = 0; i < st->ntasks; i++) {
        stdin_task_close(&st->tasks[i]);
        for (int f = 0; f < 2; f++)
            if (st->tasks[i].out[f]) {
                close(event_get_fd(st->tasks[i].out[f]));
                event_free(st->tasks[i].out[f]);
            }
    }
    if (st->beat)
        event_free(st->beat);
    pmi_free(st->pmi);
    if (st->cg_own) {   /* what the tasks left running (daemons, setsid) goes with the step */
        jobcg_kill_all(st->cg);
        jobcg_destroy(st->cg);
    } else
        jobcg_close(st->cg);
    json_decref(st->layout);
    free(st->tasks);
    free(st);
}

/* A task is reported once it has exited and both its pipes are drained;
 * true when that was the last one and the step is gone (freed). */
static bool task_maybe_done(struct task *t)
{
    struct astep *st = t->st;
    if (t->reported || !t->exited || t->out[0] || t->out[1])
        return false;
    t->reported = true;
    stdin_task_close(t);
    int code = WIFEXITED(t->status) ? WEXITSTATUS(t->status) : 0;
    int sig = WIFSIGNALED(t->status) ? WTERMSIG(t->status) : 0;
    frame(st, "X %d %d %d\n", t->procid, code, sig);
    if (--st->left > 0)
        return false;
    http_stream_end(st->r);
    step_free(st);
    return true;
}

static void read_pipe(struct task *t, evutil_socket_t fd, int which)
{
    char buf[65536];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        event_free(t->out[which]);
        t->out[which] = NULL;
        close(fd);
        task_maybe_done(t);
        return;
    }
    frame(t->st, "O %d %d %zd\n", t->procid, which + 1, n);
    if (!t->st->gone && !http_stream_write(t->st->r, buf, (size_t)n))
        t->st->gone = true;
}

static void on_stdout(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    read_pipe(arg, fd, 0);
}

static void on_stderr(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    read_pipe(arg, fd, 1);
}

static void kill_tasks(struct astep *st, int sig)
{
    if (st->pgid > 1)
        sys->kill(-st->pgid, sig);
    if (st->pty_pid > 1)   /* --pty: task 0 leads a session of its own */
        sys->kill(-st->pty_pid, sig);
}

static void on_beat(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct astep *st = arg;
    bool was_gone = st->gone;
    frame(st, "H\n");
    if (st->gone && !was_gone)
        log_info("job %lld step %d: srun went away; killing its tasks", (long long)st->job_id,
                 st->step_id);
    if (st->gone)
        kill_tasks(st, SIGKILL);
}

/* ---- the task's own process ---- */

/* SLURM_GPUS_ON_NODE of a step's task, as slurmstepd sets it: the step's
 * GPUs on this node (the batch script's value is the job's). */
static char *gpus_on_node_env(const json_t *node)
{
    const json_t *per = json_object_get(node, "task_gpus");
    size_t n = 0;
    for (size_t i = 0; per && i < json_array_size(per); i++)
        n += json_array_size(json_array_get(per, i));
    if (!per)
        n = json_array_size(json_object_get(node, "gpus"));
    return n ? xasprintf("SLURM_GPUS_ON_NODE=%zu", n) : NULL;
}

/* srun --gpu-bind=map_gpu|mask_gpu|single: the task's GPUs among the
 * step's on this node replace list (gpubind.h); other forms leave it. */
static void bound_gpus(struct astep *st, json_t *req, const struct task *t, json_t *node,
                       char *list, size_t len)
{
    const char *bind = json_string_value(json_object_get(req, "gpu_bind"));
    json_t *per = json_object_get(node, "task_gpus"), *g;
    int all[64], mine[64];
    size_t n = 0, i, j;
    bool outside;
    if (!bind)
        return;
    json_array_foreach(per ? per : json_object_get(node, "gpus"), i, g) {
        json_t *one = per ? g : NULL;
        for (j = 0; per ? j < json_array_size(one) : j < 1; j++)
            if (n < 64)
                all[n++] = (int)json_integer_value(per ? json_array_get(one, j) : g);
    }
    size_t k = gpubind_task(bind, all, n, t->localid, mine, &outside);
    if (outside)
        dprintf(2, "slurmstepd-%s: error: Bind request gpu:%s does not specify any devices "
                "within the allocation for task %d. Binding to the first device in the "
                "allocation instead.\n", st->a->node->name, bind, t->procid);
    for (i = 0, j = 0; i < k && j < len - 8; i++)
        j += (size_t)snprintf(list + j, len - j, "%s%d", i ? "," : "", mine[i]);
}

static char **task_env(struct astep *st, json_t *req, const struct task *t, json_t *node)
{
    json_t *env = json_object_get(req, "env");
    size_t n = json_array_size(env), k = 0;
    char **v = xcalloc(n + 32, sizeof *v);
    for (size_t i = 0; i < n; i++)   /* srun's bytes (common/rawstr.h) */
        if ((v[k] = json_rawstr_value(json_array_get(env, i))) != NULL)
            k++;
    json_t *L = st->layout;
    json_t *gpus = json_object_get(node, "task_gpus")
                       ? json_array_get(json_object_get(node, "task_gpus"), (size_t)t->localid)
                       : json_object_get(node, "gpus");
    char list[256] = "";
    for (size_t i = 0, off = 0; i < json_array_size(gpus) && off < sizeof list - 8; i++)
        off += (size_t)snprintf(list + off, sizeof list - off, "%s%lld", i ? "," : "",
                                (long long)json_integer_value(json_array_get(gpus, i)));
    bound_gpus(st, req, t, node, list, sizeof list);
    int ntasks = (int)json_integer_value(json_object_get(L, "ntasks"));
    v[k++] = xasprintf("SLURM_STEP_ID=%d", st->step_id);
    v[k++] = xasprintf("SLURM_STEPID=%d", st->step_id);
    v[k++] = xasprintf("SLURM_PROCID=%d", t->procid);
    v[k++] = xasprintf("SLURM_LOCALID=%d", t->localid);
    v[k++] = xasprintf("SLURM_NODEID=%lld", (long long)json_integer_value(json_object_get(node, "node_id")));
    v[k++] = xasprintf("SLURM_NTASKS=%d", ntasks);
    v[k++] = xasprintf("SLURM_NPROCS=%d", ntasks);
    v[k++] = xasprintf("SLURM_STEP_NUM_TASKS=%d", ntasks);
    v[k++] = xasprintf("SLURM_STEP_NUM_NODES=%zu", json_array_size(json_object_get(L, "nodes")));
    v[k++] = xasprintf("SLURM_STEP_NODELIST=%s", env_str(L, "node_list", ""));
    v[k++] = xasprintf("SLURM_STEP_TASKS_PER_NODE=%s", env_str(L, "tasks_per_node", ""));
    v[k++] = xasprintf("SLURMD_NODENAME=%s", st->a->node->name);
    v[k++] = xasprintf("SLURM_TASK_PID=%d", (int)getpid());
    /* who the job is, as slurmstepd tells a step's tasks */
    v[k++] = xasprintf("SLURM_JOB_USER=%s", env_str(L, "user_name", ""));
    v[k++] = xasprintf("SLURM_JOB_UID=%d", (int)st->uid);
    v[k++] = xasprintf("SLURM_JOB_GID=%lld", (long long)json_integer_value(json_object_get(L,
                                                                              "group_id")));
    if (st->pmi) {
        v[k++] = xasprintf("PMI_FD=%d", PMI_TASK_FD);
        v[k++] = xasprintf("PMI_RANK=%d", t->procid);
        v[k++] = xasprintf("PMI_SIZE=%d", ntasks);
        v[k++] = xasprintf("PMI_JOBID=%lld.%d", (long long)st->job_id, st->step_id);
        v[k++] = xstrdup("SLURM_MPI_TYPE=pmi2");
    }
    if ((v[k] = gpus_on_node_env(node)) != NULL)
        k++;
    if (json_array_size(gpus)) {
        v[k++] = xasprintf("CUDA_VISIBLE_DEVICES=%s", list);
        v[k++] = xasprintf("GPU_DEVICE_ORDINAL=%s", list);
        v[k++] = xasprintf("SLURM_STEP_GPUS=%s", list);
    }
    return v;
}

/* Later entries win, as in a shell's environment: the step's over srun's. */
static char **env_dedup(char **v)
{
    size_t n = 0;
    while (v[n])
        n++;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        size_t klen = strcspn(v[i], "=");
        bool later = false;
        for (size_t j = i + 1; j < n && !later; j++)
            later = strncmp(v[i], v[j], klen + 1) == 0;
        if (!later)
            v[k++] = v[i];
    }
    v[k] = NULL;
    return v;
}

static void task_exec(struct astep *st, json_t *req, const struct task *t, json_t *node,
                      int out, int err) __attribute__((noreturn));

static void task_exec(struct astep *st, json_t *req, const struct task *t, json_t *node,
                      int out, int err)
{
    jobexec_reset_signals();
    if (t->pty && pty_take(out) < 0)
        _exit(1);
    if (!t->pty)
        sys->setpgid(0, st->pgid ? st->pgid : 0);
    if (st->cg && jobcg_attach(st->cg, 0) < 0)   /* the job's limits hold for its steps */
        dprintf(2, "slurmstepd: error: cannot join the job's cgroup: %s\n", strerror(errno));
    struct job_spec js = { .uid = st->uid,
                           .gid = (int64_t)json_integer_value(json_object_get(st->layout, "group_id")),
                           .user_name = (char *)env_str(st->layout, "user_name", "") };
    int in = t->pty ? out : t->in.child_fd >= 0 ? t->in.child_fd : open("/dev/null", O_RDONLY);
    if (in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
        _exit(1);
    if (t->pmi_fd >= 0 && (t->pmi_fd == PMI_TASK_FD ? fcntl(PMI_TASK_FD, F_SETFD, 0)
                                                     : dup2(t->pmi_fd, PMI_TASK_FD)) < 0)
        _exit(1);
    if (jobexec_become_user(&js) < 0) {
        dprintf(2, "slurmstepd: error: cannot become uid %d: %s\n", (int)st->uid, strerror(errno));
        _exit(1);
    }
    char *cwd = json_rawstr_value(json_object_get(req, "cwd"));
    if (!cwd)
        cwd = xstrdup("/tmp");
    if (chdir(cwd) < 0) {
        dprintf(2, "slurmstepd: error: couldn't chdir to `%s': %s: going to /tmp instead\n", cwd,
                strerror(errno));
        if (chdir("/tmp") < 0)
            _exit(1);
    }
    free(cwd);
    close_range(t->pmi_fd >= 0 ? PMI_TASK_FD + 1 : 3, ~0U, 0);
    json_t *argv = json_object_get(req, "argv");
    char **av = xcalloc(json_array_size(argv) + 1, sizeof *av);
    for (size_t i = 0; i < json_array_size(argv); i++)
        if (!(av[i] = json_rawstr_value(json_array_get(argv, i))))
            av[i] = xstrdup("");
    extern char **environ;
    environ = env_dedup(task_env(st, req, t, node));
    sys->execvp(av[0], av);
    dprintf(2, "slurmstepd: error: execve(): %s: %s\n", av[0], strerror(errno));
    _exit(2);
}

/* ---- starting ---- */

static void close_pmi_fd(struct task *t)
{
    if (t->pmi_fd >= 0)
        close(t->pmi_fd);
    t->pmi_fd = -1;
}

/* The task's output: two pipes, or with --pty one terminal for both. */
static int open_output(struct task *t, json_t *req, int out[2], int err[2])
{
    err[0] = err[1] = -1;
    if (t->pty) {
        if (pty_open(&out[0], &out[1]) < 0)
            return -1;
        pty_set_size(out[0], json_object_get(req, "pty"));
        return 0;
    }
    if (pipe2(out, O_CLOEXEC) < 0)
        return -1;
    if (pipe2(err, O_CLOEXEC) < 0) {
        close(out[0]);
        close(out[1]);
        return -1;
    }
    return 0;
}

static void close_fds(const int *fds, int n)
{
    for (int i = 0; i < n; i++)
        if (fds[i] >= 0)
            close(fds[i]);
}

static int task_start(struct astep *st, json_t *req, struct task *t, json_t *node)
{
    int out[2], err[2];
    t->pty = t->procid == 0 && json_is_object(json_object_get(req, "pty"));
    t->pmi_fd = st->pmi ? pmi_task_socket(st->pmi, t->localid) : -1;
    if (st->pmi && t->pmi_fd < 0)
        return -1;
    if (open_output(t, req, out, err) < 0) {
        close_pmi_fd(t);
        return -1;
    }
    if (stdin_task_prepare(t, req, t->pty ? out[0] : -1) < 0) {
        close_fds((int[]){ out[0], out[1], err[0], err[1] }, 4);
        close_pmi_fd(t);
        return -1;
    }
    pid_t pid = sys->fork();
    if (pid == 0)
        task_exec(st, req, t, node, out[1], t->pty ? out[1] : err[1]);
    close_fds((int[]){ out[1], err[1] }, 2);
    close_pmi_fd(t);
    stdin_task_forked(t);
    if (pid < 0) {
        close_fds((int[]){ out[0], err[0] }, 2);
        stdin_task_close(t);
        return -1;
    }
    if (t->pty)
        st->pty_pid = pid;
    else {
        if (!st->pgid)
            st->pgid = pid;
        sys->setpgid(pid, st->pgid);   /* both sides, so no signal finds it outside */
    }
    t->pid = pid;
    int fds[2] = { out[0], err[0] };
    for (int f = 0; f < 2 && fds[f] >= 0; f++) {
        evutil_make_socket_nonblocking(fds[f]);
        t->out[f] = event_new(st->a->base, fds[f], EV_READ | EV_PERSIST,
                              f ? on_stderr : on_stdout, t);
        event_add(t->out[f], NULL);
    }
    return 0;
}

/* As on Slurm, a step's tasks live inside the job's cgroup: on the node
 * that runs the batch script, the groups its supervisor made (the job's
 * memory, CPUs and devices; its processes are killed at its end); on the
 * job's other nodes, where nothing of it runs between steps, a group of the
 * step's own inside the job's, with the job's memory there, killed and
 * removed when the step ends. */
static struct jobcg *job_cgroup(struct astep *st, json_t *node)
{
    struct nodeconf nc = { 0 };
    struct jobcg *cg = NULL;
    if (nodeconf_load(&nc, st->a->conf_path) == 0 && (nc.proctrack_cgroup || nc.task_cgroup)) {
        char *dir = spool_job_dir(st->a->spool, st->job_id), err[512], sub[32];
        char *scope = jobctl_cgroup_scope(st->a->node->name, dir);
        if (!(cg = jobcg_open(nc.cgroup_mount, scope, st->job_id)) && jobcg_version(nc.cgroup_mount)) {
            snprintf(sub, sizeof sub, "step_%d", st->step_id);
            json_int_t mb = json_integer_value(json_object_get(node, "mem_mb"));
            struct jobcg_want w = { .node = scope, .job_id = st->job_id, .sub = sub,
                                    .mem_bytes = nc.constrain_ram && mb > 0 ? (uint64_t)mb << 20 : 0 };
            if (!(cg = jobcg_create(nc.cgroup_mount, &w, err, sizeof err)))
                log_warnx("job %lld step %d: %s", (long long)st->job_id, st->step_id, err);
            st->cg_own = cg != NULL;
        }
        free(scope);
        free(dir);
    }
    nodeconf_clear(&nc);
    return cg;
}

/* ---- PMI (srun --mpi=pmi2) ---- */

static void pmi_fence_out(void *arg, const char *puts, size_t len)
{
    struct astep *st = arg;
    frame(st, "K %zu\n", len);
    if (!st->gone && !http_stream_write(st->r, puts, len))
        st->gone = true;
}

/* A task called PMI_Abort: as Slurm, the whole step ends; srun ends it on
 * the other nodes. */
static void pmi_abort(void *arg, int rank, int code, const char *msg)
{
    struct astep *st = arg;
    log_info("job %lld step %d: task %d aborted (%d): %s", (long long)st->job_id, st->step_id,
             rank, code, msg);
    frame(st, "A %d %d\n", rank, code);
    kill_tasks(st, SIGKILL);
}

static struct pmi *step_pmi(struct astep *st, int first)
{
    json_t *nodes = json_object_get(st->layout, "nodes");
    int nn = (int)json_array_size(nodes);
    int *counts = xcalloc((size_t)nn + 1, sizeof *counts);
    for (int i = 0; i < nn; i++)
        counts[i] = (int)json_integer_value(json_object_get(json_array_get(nodes, (size_t)i), "ntasks"));
    char *map = pmi_mapping(counts, nn), jobid[48];
    snprintf(jobid, sizeof jobid, "%lld.%d", (long long)st->job_id, st->step_id);
    struct pmi_info info = { .first_rank = first, .ntasks = st->ntasks,
                             .size = (int)json_integer_value(json_object_get(st->layout, "ntasks")),
                             .jobid = jobid, .mapping = map };
    struct pmi *p = pmi_new(st->a->base, &info, (struct pmi_hooks){ pmi_fence_out, pmi_abort, st });
    free(map);
    free(counts);
    return p;
}

static json_t *my_node(struct astep *st)
{
    size_t i;
    json_t *n;
    json_array_foreach(json_object_get(st->layout, "nodes"), i, n)
        if (strcmp(env_str(n, "name", ""), st->a->node->name) == 0)
            return n;
    return NULL;
}

static void start_tasks(struct astep *st, json_t *node)
{
    json_t *req = st->r->body;
    int first = (int)json_integer_value(json_object_get(node, "first_task"));
    st->ntasks = st->left = (int)json_integer_value(json_object_get(node, "ntasks"));
    st->tasks = xcalloc((size_t)st->ntasks + 1, sizeof *st->tasks);
    for (int i = 0; i < st->ntasks; i++)   /* so that freeing before they start closes nothing */
        st->tasks[i] = (struct task){ .st = st, .pmi_fd = -1, .in = { .fd = -1, .child_fd = -1 } };
    if (!http_stream_start(st->r, "application/octet-stream")) {   /* srun left while the layout came */
        http_stream_end(st->r);
        step_free(st);
        return;
    }
    frame(st, "S\n");   /* srun may send stdin from now on */
    if (strcmp(env_str(req, "mpi", "none"), "pmi2") == 0)
        st->pmi = step_pmi(st, first);
    st->cg = job_cgroup(st, node);
    for (int i = 0; i < st->ntasks; i++) {
        struct task *t = &st->tasks[i];
        *t = (struct task){ .st = st, .procid = first + i, .localid = i, .pmi_fd = -1,
                            .in = { .fd = -1, .child_fd = -1 } };
        if (task_start(st, req, t, node) < 0) {
            frame(st, "E cannot start task %d on %s: %s\n", t->procid, st->a->node->name,
                  strerror(errno));
            t->exited = true;
            t->status = 1 << 8;
        }
    }
    st->beat = event_new(st->a->base, -1, EV_PERSIST, on_beat, st);
    struct timeval tv = { BEAT_S, 0 };
    event_add(st->beat, &tv);
    for (int i = 0, n = st->ntasks; i < n; i++)
        if (task_maybe_done(&st->tasks[i]))
            return;
}

/* The controller's layout came: is the caller the job's user, does the
 * step have tasks here? */
static void on_layout(int status, json_t *body, void *arg)
{
    struct astep *st = arg;
    json_t *node = NULL;
    int64_t owner = json_integer_value(json_object_get(body, "user_id"));
    const struct ajob *job = agent_job_find(st->a, st->job_id);
    if (job && job->ended) {
        /* its batch script ended here (or its supervisor died) and the
         * controller has not heard yet: a step started now would outlive
         * the job's cleanup and hold its GPUs after they went to another */
        http_reply_error(st->r, 409, ESLURM_ALREADY_DONE,
                         "Job/step already completing or completed");
    } else if (status != 200) {
        const char *e = json_string_value(json_object_get(body, "error"));
        http_reply_error(st->r, status ? status : 503, SLURM_ERROR, "%s",
                         e ? e : "Unable to contact slurm controller (connect failure)");
    } else if (st->uid != 0 && st->uid != (uid_t)owner) {
        http_reply_error(st->r, 403, ESLURM_ACCESS_DENIED, "Access/permission denied");
    } else {
        st->layout = json_incref(body);
        st->uid = (uid_t)owner;
        if (!(node = my_node(st)))
            http_reply_error(st->r, 400, SLURM_ERROR, "Step %lld.%d has no tasks on %s",
                             (long long)st->job_id, st->step_id, st->a->node->name);
    }
    if (!node) {
        step_free(st);
        return;
    }
    log_info("job %lld step %d: %lld tasks", (long long)st->job_id, st->step_id,
             (long long)json_integer_value(json_object_get(node, "ntasks")));
    start_tasks(st, node);
    gpumon_step_started(st->a, st->job_id, st->uid, node);
}

static bool valid_request(json_t *b)
{
    json_t *argv = json_object_get(b, "argv"), *env = json_object_get(b, "env");
    if (!json_is_integer(json_object_get(b, "job_id")) ||
        !json_is_integer(json_object_get(b, "step_id")) || !json_is_array(argv) ||
        json_array_size(argv) == 0 || (env && !json_is_array(env)) ||
        !json_is_string(json_object_get(b, "cwd")))
        return false;
    size_t i;
    json_t *v;
    json_array_foreach(argv, i, v) if (!json_is_string(v)) return false;
    return true;
}

void step_launch(struct http_req *r)
{
    struct agent *a = r->ctx;
    if (!valid_request(r->body)) {
        http_reply_error(r, 400, SLURM_ERROR,
                         "step request needs job_id, step_id, argv, env and cwd");
        return;
    }
    if (a->stopping) {
        http_reply_error(r, 503, SLURM_ERROR, "Node %s is shutting down", a->node->name);
        return;
    }
    struct astep *st = xcalloc(1, sizeof *st);
    st->a = a;
    st->r = r;
    st->uid = r->who.uid;
    st->job_id = json_integer_value(json_object_get(r->body, "job_id"));
    st->step_id = (int)json_integer_value(json_object_get(r->body, "step_id"));
    st->next = a->steps;
    a->steps = st;
    char path[96];
    snprintf(path, sizeof path, "/v1/jobs/%lld/steps/%d", (long long)st->job_id, st->step_id);
    http_call(a->base, a->conf->munge_socket, a->conf->ctld_addr, a->conf->ctld_port, "GET",
              path, NULL, LOOKUP_TIMEOUT_S, on_layout, st);
}

void step_signal(struct http_req *r)
{
    json_t *sig = json_object_get(r->body, "signal");
    if (!json_is_integer(sig) || json_integer_value(sig) <= 0 || json_integer_value(sig) >= NSIG) {
        http_reply_error(r, 400, SLURM_ERROR, "Invalid signal");
        return;
    }
    struct astep *st = step_of_request(r);
    if (st && json_integer_value(sig) == SIGKILL)
        agent_job_thaw_steps(st->a, st->job_id);   /* a frozen task dies only once thawed */
    if (st) {
        kill_tasks(st, (int)json_integer_value(sig));
        http_reply(r, 200, NULL);
    }
}

struct astep *step_of_request(struct http_req *r)
{
    struct agent *a = r->ctx;
    int64_t job = json_integer_value(json_object_get(r->body, "job_id"));
    int64_t step = json_integer_value(json_object_get(r->body, "step_id"));
    for (struct astep *st = a->steps; st; st = st->next) {
        if (st->job_id != job || st->step_id != step || !st->layout)
            continue;
        if (r->who.uid == 0 || r->who.uid == st->uid)
            return st;
        http_reply_error(r, 403, ESLURM_ACCESS_DENIED, "Access/permission denied");
        return NULL;
    }
    http_reply_error(r, 404, SLURM_ERROR, "Invalid job step id specified");
    return NULL;
}

void step_pmi_fence(struct http_req *r)
{
    json_t *kvs = json_object_get(r->body, "kvs");
    if (!json_is_object(kvs)) {
        http_reply_error(r, 400, SLURM_ERROR, "PMI fence needs job_id, step_id and kvs");
        return;
    }
    struct astep *st = step_of_request(r);
    if (st && !st->pmi)
        http_reply_error(r, 404, SLURM_ERROR, "Step %lld.%d has no PMI here",
                         (long long)st->job_id, st->step_id);
    else if (st) {
        pmi_fence_in(st->pmi, kvs);
        http_reply(r, 200, NULL);
    }
}

bool step_reaped(struct agent *a, pid_t pid, int status)
{
    for (struct astep *st = a->steps; st; st = st->next)
        for (int i = 0; i < st->ntasks; i++)
            if (st->tasks[i].pid == pid && !st->tasks[i].exited) {
                st->tasks[i].exited = true;
                st->tasks[i].status = status;
                task_maybe_done(&st->tasks[i]);
                return true;
            }
    return false;
}

void step_kill_all(struct agent *a)
{
    for (struct astep *st = a->steps; st; st = st->next)
        kill_tasks(st, SIGKILL);
}

bool step_runs_job(const struct agent *a, int64_t job_id)
{
    for (const struct astep *st = a->steps; st; st = st->next)
        if (st->job_id == job_id && st->layout)
            return true;
    return false;
}

void step_free_all(struct agent *a)
{
    struct astep **pp = &a->steps;
    while (*pp) {
        struct astep *st = *pp;
        if (!st->layout) {   /* its controller lookup is still out: it owns st */
            pp = &st->next;
            continue;
        }
        kill_tasks(st, SIGKILL);
        http_stream_end(st->r);
        step_free(st);
    }
}
