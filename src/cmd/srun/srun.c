/*
 * srun: runs a parallel job step inside an allocation (a batch job, or
 * --jobid). See srun.h for the parts.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/time.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "client/alloc.h"
#include "client/client.h"
#include "client/cmdutil.h"
#include "client/paths.h"
#include "cmd/cmds.h"
#include "cmd/srun/srun.h"
#include "common/conf.h"
#include "common/http.h"
#include "common/rawstr.h"
#include "common/xmalloc.h"
#include "client/clock.h"

#define PROG "srun"
/* A node agent writes at least every 2 s (step.h): silence this long means it is gone. */
#define STREAM_TIMEOUT_S 20

static int env_int(const char *name)
{
    const char *v = getenv(name);
    return v ? atoi(v) : 0;
}

/* Inside an allocation a step is, unless told otherwise, the job's shape. */
static json_t *step_request(const struct srun_opts *o)
{
    int ntasks = o->ntasks, nodes = o->nodes, per_node = o->ntasks_per_node;
    if (!ntasks && !nodes && !per_node) {
        ntasks = env_int("SLURM_NTASKS");
        nodes = env_int("SLURM_JOB_NUM_NODES");
    }
    json_t *b = json_object();
    if (ntasks)
        json_object_set_new(b, "ntasks", json_integer(ntasks));
    if (nodes)
        json_object_set_new(b, "nodes", json_integer(nodes));
    if (per_node)
        json_object_set_new(b, "ntasks_per_node", json_integer(per_node));
    int cpt = o->cpus_per_task ? o->cpus_per_task : env_int("SLURM_CPUS_PER_TASK");
    int cpg = o->cpus_per_gpu ? o->cpus_per_gpu : env_int("SLURM_CPUS_PER_GPU");
    if (!cpt && cpg && o->gpus_per_task && !o->gpu_bind_none)   /* as Slurm's srun */
        cpt = cpg * o->gpus_per_task;
    if (cpt)
        json_object_set_new(b, "cpus_per_task", json_integer(cpt));
    if (o->gpus_per_task && !o->gpu_bind_none)
        json_object_set_new(b, "gpus_per_task", json_integer(o->gpus_per_task));
    if (o->nodelist)
        json_object_set_new(b, "nodelist", json_string(o->nodelist));
    if (o->overlap)
        json_object_set_new(b, "overlap", json_true());
    const char *base = strrchr(o->argv[0], '/');   /* as Slurm: the command's base name */
    json_object_set_new(b, "name", json_rawstr(o->name ? o->name : base ? base + 1 : o->argv[0]));
    return b;
}

/* While the job's running steps hold what this one needs, srun asks again,
 * less often as it waits (0.1 s, doubling, at most 2 s), as Slurm's does. */
static json_t *create_step(const char *jobid, const struct srun_opts *o)
{
    char path[96], err[256];
    snprintf(path, sizeof path, PATH_JOB_STEPS("%s"), jobid);
    json_t *body = step_request(o), *answer = NULL;
    int status;
    bool waited = false;
    for (long ms = 100;; ms = ms < 1000 ? ms * 2 : 2000) {
        status = client_call(PROG, "POST", path, body, &answer, err, sizeof err);
        if (status != 409)
            break;
        if (!waited && !o->quiet)
            fprintf(stderr, "srun: Job %s step creation temporarily disabled, retrying "
                            "(Requested nodes are busy)\n", jobid);
        waited = true;
        json_decref(answer);
        answer = NULL;
        nanosleep(&(struct timespec){ ms / 1000, ms % 1000 * 1000000 }, NULL);
    }
    json_decref(body);
    if (status == 200 && waited && !o->quiet)
        fprintf(stderr, "srun: Step created for StepId=%s.%lld\n", jobid,
                (long long)jget_int(answer, "step_id", 0));
    if (status == 200)
        return answer;
    cmd_error(PROG, "Unable to create step for job %s: %s", jobid,
              status < 0 ? err : client_error_text(answer, status));
    json_decref(answer);
    return NULL;
}

/* ---- the streams ---- */

void srun_maybe_exit(struct srun *s)
{
    if (s->open == 0 && s->calls == 0)
        event_base_loopbreak(s->base);
}

static void stream_done(int status, json_t *body, void *arg)
{
    struct srun_node *n = arg;
    struct srun *s = n->run;
    n->done = true;
    s->open--;
    if (n->ended < n->ntasks) {
        const char *e = json_string_value(json_object_get(body, "error"));
        fprintf(stderr, "srun: error: Task launch for StepId=%lld.%d failed on node %s: %s\n",
                (long long)s->job_id, s->step_id, n->name,
                e ? e : status ? "Communication connection failure" : "Connection refused");
        s->failed = true;
    }
    srun_maybe_exit(s);
}

static json_t *terminal_size(void)
{
    struct winsize ws = { .ws_row = 24, .ws_col = 80 };
    if (ioctl(0, TIOCGWINSZ, &ws) < 0 || !ws.ws_row || !ws.ws_col)
        ws = (struct winsize){ .ws_row = 24, .ws_col = 80 };
    return json_pack("{s:i, s:i}", "rows", ws.ws_row, "cols", ws.ws_col);
}

static json_t *environ_json(void)
{
    extern char **environ;
    json_t *a = json_array();
    for (char **e = environ; *e; e++)
        json_array_append_new(a, json_rawstr(*e));   /* bytes as they are: rawstr.h */
    return a;
}

static void launch_node(struct srun *s, struct srun_node *n, const char *cwd)
{
    int in = s->o->input_task;
    json_t *b = json_pack("{s:I, s:i, s:o, s:o, s:o, s:s, s:o}", "job_id", (json_int_t)s->job_id,
                          "step_id", s->step_id, "argv", json_array(), "env", environ_json(),
                          "cwd", json_rawstr(cwd), "mpi", s->o->mpi, "stdin",
                          in >= 0 ? json_integer(in) : json_string(in == -1 ? "all" : "none"));
    if (s->o->pty)
        json_object_set_new(b, "pty", terminal_size());
    if (s->o->gpu_bind)
        json_object_set_new(b, "gpu_bind", json_string(s->o->gpu_bind));
    for (char **a = (char **)s->o->argv; *a; a++)
        json_array_append_new(json_object_get(b, "argv"), json_rawstr(*a));
    s->open++;
    http_stream(s->base, s->munge_socket, n->addr, n->port, PATH_STEPS, b, STREAM_TIMEOUT_S,
                srun_stream_chunk, stream_done, n);
}

static void nodes_from(struct srun *s, json_t *layout)
{
    json_t *nodes = json_object_get(layout, "nodes");
    s->nnodes = json_array_size(nodes);
    s->nodes = xcalloc(s->nnodes + 1, sizeof *s->nodes);
    for (size_t i = 0; i < s->nnodes; i++) {
        json_t *j = json_array_get(nodes, i);
        struct srun_node *n = &s->nodes[i];
        n->run = s;
        n->name = xstrdup(jget_str(j, "name", "?"));
        n->addr = xstrdup(jget_str(j, "addr", "127.0.0.1"));
        n->port = (int)jget_int(j, "port", 0);
        n->ntasks = (int)jget_int(j, "ntasks", 0);
        n->first_task = (int)jget_int(j, "first_task", 0);
    }
}

/* Ctrl-C: the first only says how to stop; a second within a second sends
 * SIGINT to the tasks, and a third SIGKILL, as Slurm's srun. */
static void on_signal(evutil_socket_t sig, short what, void *arg)
{
    (void)what;
    struct srun *s = arg;
    static int64_t last_ms;
    static int presses;
    int64_t now_ms = client_mono_ms();
    if (sig == SIGWINCH) {
        srun_stdin_resized(s, terminal_size());
        return;
    }
    if (sig != SIGINT) {
        srun_signal_tasks(s, (int)sig);
        return;
    }
    bool quick = presses && now_ms - last_ms < 1000;
    last_ms = now_ms;
    if (!quick && presses < 2) {
        presses = 1;
        fprintf(stderr, "srun: interrupt (one more within 1 sec to abort)\n");
        return;
    }
    presses++;
    s->cancelled = true;
    fprintf(stderr, presses > 2 ? "srun: forcing job termination\n"
                                : "srun: sending Ctrl-C to StepId=%lld.%d\n",
            (long long)s->job_id, s->step_id);
    srun_signal_tasks(s, presses > 2 ? SIGKILL : SIGINT);
}

static void run_loop(struct srun *s, const char *cwd)
{
    const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH };
    struct event *ev[5];
    for (int i = 0; i < (s->o->pty ? 5 : 4); i++) {
        ev[i] = evsignal_new(s->base, sigs[i], on_signal, s);
        event_add(ev[i], NULL);
    }
    for (size_t i = 0; i < s->nnodes; i++)
        launch_node(s, &s->nodes[i], cwd);
    /* --pty: keys go to the remote terminal as typed, ^C included */
    struct termios saved;
    bool raw = s->o->pty && isatty(0) && tcgetattr(0, &saved) == 0;
    if (raw) {
        struct termios t = saved;
        cfmakeraw(&t);
        tcsetattr(0, TCSADRAIN, &t);
    }
    if (s->open)
        event_base_dispatch(s->base);
    if (raw)
        tcsetattr(0, TCSADRAIN, &saved);
    for (int i = 0; i < (s->o->pty ? 5 : 4); i++)
        event_free(ev[i]);
    srun_stdin_stop(s);
    srun_flush_lines(s);
}

/* For accounting: how the step ended (sacct's 123.0 row). */
static void report_end(const char *jobid, int step, int code, int sig, bool cancelled)
{
    char path[96], err[256];
    json_t *body = json_pack("{s:i, s:i, s:b}", "exit_code", code, "signal", sig, "cancelled",
                             cancelled), *answer = NULL;
    snprintf(path, sizeof path, PATH_JOB_STEP_COMPLETE("%s", "%d"), jobid, step);
    client_call(PROG, "POST", path, body, &answer, err, sizeof err);
    json_decref(body);
    json_decref(answer);
}

static void srun_free(struct srun *s)
{
    for (size_t i = 0; i < s->nnodes; i++) {
        free(s->nodes[i].name);
        free(s->nodes[i].addr);
        free(s->nodes[i].buf);
        json_decref(s->nodes[i].fence);
    }
    free(s->nodes);
    for (int i = 0; s->line && i < s->ntasks * 2; i++)
        free(s->line[i]);
    free(s->line);
    free(s->line_len);
    srun_files_close(s);
    if (s->base) {
        http_calls_settle(s->base);
        event_base_free(s->base);
    }
}

static int run_step(const struct srun_opts *o, const char *jobid, json_t *layout)
{
    char cwd[4096], dir[8192];
    if (!getcwd(cwd, sizeof cwd))
        snprintf(cwd, sizeof cwd, "/tmp");
    /* -D is relative to where srun runs, as in Slurm, not to the node's */
    if (o->chdir && o->chdir[0] != '/')
        snprintf(dir, sizeof dir, "%s/%s", cwd, o->chdir);
    else
        snprintf(dir, sizeof dir, "%s", o->chdir ? o->chdir : cwd);
    struct srun s = { .o = o, .munge_socket = client_conf(PROG)->munge_socket };
    s.job_id = strtoll(jobid, NULL, 10);
    s.step_id = (int)jget_int(layout, "step_id", 0);
    s.ntasks = (int)jget_int(layout, "ntasks", 1);
    s.line = xcalloc((size_t)s.ntasks * 2, sizeof *s.line);
    s.line_len = xcalloc((size_t)s.ntasks * 2, sizeof *s.line_len);
    s.base = event_base_new();
    nodes_from(&s, layout);
    if (srun_files_open(&s) == 0)
        run_loop(&s, dir);
    else
        s.failed = true;
    int rc = s.rc ? s.rc : s.failed || !srun_all_reported(&s) ? 1 : 0;
    report_end(jobid, s.step_id, s.rc ? s.worst_code : rc, s.worst_sig, s.cancelled);
    srun_free(&s);
    return rc;
}

static int step_in(const char *jobid, const struct srun_opts *o)
{
    json_t *layout = create_step(jobid, o);
    if (!layout)
        return 1;
    int rc = run_step(o, jobid, layout);
    json_decref(layout);
    return rc;
}

/* Outside an allocation srun makes one, runs the step in it and ends it. */
static int step_in_new_allocation(struct srun_opts *o)
{
    alloc_quiet(o->quiet);
    const char *base = strrchr(o->argv[0], '/');
    int64_t id = alloc_create(PROG, o->alloc_argc, o->alloc_argv, base ? base + 1 : o->argv[0]);
    json_t *job = NULL;
    if (!id)
        return 1;
    if (alloc_wait(PROG, id, &job) < 0)
        return 1;
    alloc_setenv(PROG, job);
    json_decref(job);
    char jobid[32];
    snprintf(jobid, sizeof jobid, "%lld", (long long)id);
    int rc = step_in(jobid, o);
    alloc_release(PROG, id, rc);
    return rc;
}

int cmd_srun(int argc, char **argv)
{
    struct srun_opts o = { 0 };
    int rc = 1;
    signal(SIGPIPE, SIG_IGN);
    int parsed = srun_parse(PROG, argc, argv, &o);
    if (parsed < 0)
        rc = parsed == SRUN_PARSE_FATAL ? 255 : 1;
    else if (!o.argv[0])
        fprintf(stderr, "srun: fatal: No command given to execute.\n");
    else {
        const char *jobid = o.jobid ? o.jobid : getenv("SLURM_JOB_ID");
        rc = jobid && *jobid ? step_in(jobid, &o) : step_in_new_allocation(&o);
    }
    srun_opts_free(&o);
    return o.error_rc ? o.error_rc : rc;
}
