/*
 * srun_io: the node streams of a step, parsed (framing in
 * src/noded/step.h), written out, and the tasks' ends turned into srun's
 * messages and exit code.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "client/paths.h"
#include "cmd/srun/srun.h"
#include "common/http.h"
#include "common/xmalloc.h"

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

static int label_width(const struct srun *s)
{
    int w = 1;
    for (int n = s->ntasks - 1; n >= 10; n /= 10)
        w++;
    return w;
}

static void write_labelled(struct srun *s, int task, int fd, const char *line, size_t n)
{
    char pre[32];
    int k = s->o->label ? snprintf(pre, sizeof pre, "%*d: ", label_width(s), task) : 0;
    write_all(fd, pre, (size_t)k);
    write_all(fd, line, n);
}

/* As Slurm's stepd, whole lines (with -l, each behind its task's prefix):
 * a partial line waits for its end, so tasks' lines do not mix; -u writes
 * bytes as they come. */
static void output(struct srun *s, int task, int fd, const char *p, size_t n)
{
    size_t slot = (size_t)task * 2 + (fd == 2);
    if (s->o->pty && task != 0)   /* as Slurm: only task 0's terminal is shown */
        return;
    fd = srun_task_fd(s, task, fd);
    if ((s->o->unbuffered && !s->o->label) || task < 0 || task >= s->ntasks) {
        write_all(fd, p, n);
        return;
    }
    for (const char *nl; n > 0 && (nl = memchr(p, '\n', n)); n -= (size_t)(nl + 1 - p), p = nl + 1) {
        size_t part = (size_t)(nl + 1 - p);
        s->line[slot] = xrealloc(s->line[slot], s->line_len[slot] + part);
        memcpy(s->line[slot] + s->line_len[slot], p, part);
        write_labelled(s, task, fd, s->line[slot], s->line_len[slot] + part);
        s->line_len[slot] = 0;
    }
    if (n > 0) {
        s->line[slot] = xrealloc(s->line[slot], s->line_len[slot] + n);
        memcpy(s->line[slot] + s->line_len[slot], p, n);
        s->line_len[slot] += n;
    }
}

void srun_flush_lines(struct srun *s)
{
    for (int t = 0; t < s->ntasks; t++)
        for (int f = 0; f < 2; f++) {
            size_t slot = (size_t)t * 2 + (size_t)f;
            if (s->line_len[slot]) {
                int fd = srun_task_fd(s, t, f + 1);
                write_labelled(s, t, fd, s->line[slot], s->line_len[slot]);
                if (s->o->label)
                    write_all(fd, "\n", 1);
                s->line_len[slot] = 0;
            }
        }
}

static const char *sig_words(int sig)
{
    switch (sig) {
    case SIGKILL: return "Killed";
    case SIGTERM: return "Terminated";
    case SIGSEGV: return "Segmentation fault";
    case SIGABRT: return "Aborted";
    case SIGINT: return "Interrupt";
    case SIGBUS: return "Bus error";
    default: return strsignal(sig);
    }
}

static void task_ended(struct srun_node *n, int task, int code, int sig)
{
    struct srun *s = n->run;
    n->ended++;
    int rc = sig ? 128 + sig : code;
    if (sig)
        fprintf(stderr, "srun: error: %s: task %d: %s\n", n->name, task, sig_words(sig));
    else if (code)
        fprintf(stderr, "srun: error: %s: task %d: Exited with exit code %d\n", n->name, task,
                code);
    if (rc > s->rc) {
        s->rc = rc;
        s->worst_code = code;
        s->worst_sig = sig;
    }
    if (rc && s->o->kill_on_bad_exit && !s->bad_exit_seen) {
        s->bad_exit_seen = s->cancelled = true;
        fprintf(stderr, "srun: Terminating StepId=%lld.%d\n", (long long)s->job_id, s->step_id);
        srun_signal_tasks(s, SIGKILL);
    }
}

/* As Slurm: a task's PMI_Abort ends the whole step. */
static void pmi_aborted(struct srun_node *n, int task, int code)
{
    struct srun *s = n->run;
    fprintf(stderr, "srun: error: %s: task %d: PMI abort with exit code %d\n", n->name, task,
            code);
    if (!s->bad_exit_seen) {
        s->bad_exit_seen = true;
        fprintf(stderr, "srun: Terminating StepId=%lld.%d\n", (long long)s->job_id, s->step_id);
        srun_signal_tasks(s, SIGKILL);
    }
}

/* One complete frame at n->buf; its length, or 0 when more bytes are needed. */
static size_t parse_frame(struct srun_node *n)
{
    char *nl = memchr(n->buf, '\n', n->len);
    if (!nl)
        return 0;
    size_t head = (size_t)(nl - n->buf) + 1;
    int task, fd, code, sig;
    size_t len;
    char kind = n->buf[0];
    *nl = '\0';
    bool out = kind == 'O' && sscanf(n->buf + 1, "%d %d %zu", &task, &fd, &len) == 3;
    if (out || (kind == 'K' && sscanf(n->buf + 1, "%zu", &len) == 1)) {
        if (n->len < head + len) {
            *nl = '\n';
            return 0;
        }
        if (out)
            output(n->run, task, fd == 2 ? 2 : 1, n->buf + head, len);
        else
            srun_pmi_fence(n, n->buf + head, len);
        return head + len;
    }
    if (kind == 'X' && sscanf(n->buf + 1, "%d %d %d", &task, &code, &sig) == 3)
        task_ended(n, task, code, sig);
    else if (kind == 'A' && sscanf(n->buf + 1, "%d %d", &task, &code) == 2)
        pmi_aborted(n, task, code);
    else if (kind == 'S')
        srun_stdin_node_started(n);
    else if (kind == 'E') {
        fprintf(stderr, "srun: error: %s\n", n->buf + 2);
        n->run->failed = true;
    }
    return head;
}

void srun_stream_chunk(const char *data, size_t len, void *arg)
{
    struct srun_node *n = arg;
    if (n->len + len > n->cap) {
        n->cap = (n->len + len) * 2;
        n->buf = xrealloc(n->buf, n->cap);
    }
    memcpy(n->buf + n->len, data, len);
    n->len += len;
    for (size_t used; n->len && (used = parse_frame(n)) > 0;) {
        memmove(n->buf, n->buf + used, n->len - used);
        n->len -= used;
    }
}

bool srun_all_reported(const struct srun *s)
{
    for (size_t i = 0; i < s->nnodes; i++)
        if (s->nodes[i].ended < s->nodes[i].ntasks)
            return false;
    return true;
}

static void signal_sent(int status, json_t *body, void *arg)
{
    (void)status;
    (void)body;
    struct srun *s = arg;
    s->calls--;
    srun_maybe_exit(s);
}

void srun_node_call(struct srun_node *n, const char *path, json_t *body, int timeout_s,
                    http_done done, void *arg)
{
    struct srun *s = n->run;
    json_object_set_new(body, "job_id", json_integer(s->job_id));
    json_object_set_new(body, "step_id", json_integer(s->step_id));
    s->calls++;
    http_call(s->base, s->munge_socket, n->addr, n->port, "POST", path, body, timeout_s, done,
              arg);
}

void srun_signal_tasks(struct srun *s, int sig)
{
    for (size_t i = 0; i < s->nnodes; i++)
        if (!s->nodes[i].done)
            srun_node_call(&s->nodes[i], PATH_STEPS_SIGNAL, json_pack("{s:i}", "signal", sig),
                           10, signal_sent, s);
}
