/*
 * step_stdin: srun's stdin to a step's tasks (POST /v1/steps/stdin). As
 * Slurm's, it goes to every task unless srun names one (--input=N) or none
 * (--input=none). What a task has not read yet waits here; past a bound
 * srun's request is answered only once the tasks have read enough, so a
 * fast writer is slowed to the tasks' pace rather than filling memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "common/base64.h"
#include "common/http.h"
#include "common/xmalloc.h"
#include "noded/agent.h"
#include "noded/pty.h"
#include "noded/step.h"
#include "noded/step_int.h"
#include "common/slurm_errno.h"

#define HOLD_BYTES (1 << 20)   /* unread by a task: srun's next chunk waits */

static bool wanted(const struct task *t, json_t *req)
{
    json_t *who = json_object_get(req, "stdin");
    if (json_is_integer(who))
        return json_integer_value(who) == t->procid;
    return json_is_string(who) && strcmp(json_string_value(who), "all") == 0;
}

int stdin_task_prepare(struct task *t, json_t *req, int pty_master)
{
    int p[2];
    t->in = (struct task_in){ .fd = -1, .child_fd = -1 };
    if (!wanted(t, req))
        return 0;
    if (pty_master >= 0) {   /* written to our own copy, read from the terminal */
        p[0] = -1;
        if ((p[1] = fcntl(pty_master, F_DUPFD_CLOEXEC, 0)) < 0)
            return -1;
    } else if (pipe2(p, O_CLOEXEC) < 0)
        return -1;
    t->in.child_fd = p[0];
    t->in.fd = p[1];
    evutil_make_socket_nonblocking(p[1]);
    t->in.buf = evbuffer_new();
    return 0;
}

void stdin_task_forked(struct task *t)
{
    if (t->in.child_fd >= 0)
        close(t->in.child_fd);
    t->in.child_fd = -1;
}

void stdin_task_close(struct task *t)
{
    stdin_task_forked(t);
    if (t->in.ev)
        event_free(t->in.ev);
    if (t->in.buf)
        evbuffer_free(t->in.buf);
    if (t->in.fd >= 0)
        close(t->in.fd);
    t->in = (struct task_in){ .fd = -1, .child_fd = -1 };
}

static bool tasks_caught_up(const struct astep *st)
{
    for (int i = 0; i < st->ntasks; i++)
        if (st->tasks[i].in.buf && evbuffer_get_length(st->tasks[i].in.buf) >= HOLD_BYTES)
            return false;
    return true;
}

static void release_held(struct astep *st)
{
    if (st->in_req && tasks_caught_up(st)) {
        http_reply(st->in_req, 200, NULL);
        st->in_req = NULL;
    }
}

void stdin_step_free(struct astep *st)
{
    if (st->in_req)
        http_reply_error(st->in_req, 404, SLURM_ERROR, "The step has ended");
    st->in_req = NULL;
}

static void on_writable(evutil_socket_t fd, short what, void *arg);

/* Writes what the pipe takes; a task that closed its stdin gets no more. */
static void flush(struct task *t)
{
    struct task_in *in = &t->in;
    while (evbuffer_get_length(in->buf) > 0) {
        int n = evbuffer_write(in->buf, in->fd);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            break;
        if (n <= 0) {
            evbuffer_drain(in->buf, evbuffer_get_length(in->buf));
            in->eof = true;
        }
    }
    if (evbuffer_get_length(in->buf) == 0 && in->eof) {
        struct astep *st = t->st;
        stdin_task_close(t);
        release_held(st);
        return;
    }
    if (evbuffer_get_length(in->buf) > 0) {
        if (!in->ev)
            in->ev = event_new(t->st->a->base, in->fd, EV_WRITE, on_writable, t);
        event_add(in->ev, NULL);
    }
    release_held(t->st);
}

static void on_writable(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    flush(arg);
}

static struct astep *stdin_step(struct http_req *r, const unsigned char **data, size_t *len,
                                unsigned char **owned)
{
    json_t *b = r->body, *d = json_object_get(b, "data");
    *owned = NULL;
    if (!json_is_integer(json_object_get(b, "job_id")) ||
        !json_is_integer(json_object_get(b, "step_id")) || (d && !json_is_string(d)) ||
        (d && !(*owned = base64_decode(json_string_value(d), len)))) {
        http_reply_error(r, 400, SLURM_ERROR, "stdin needs job_id, step_id and base64 data");
        return NULL;
    }
    *data = *owned;
    if (!d)
        *len = 0;
    struct astep *st = step_of_request(r);
    if (st && st->in_req) {
        http_reply_error(r, 409, SLURM_ERROR, "stdin of the step is still being written");
        st = NULL;
    }
    if (!st)
        xfree(*owned);
    return st;
}

void step_stdin(struct http_req *r)
{
    const unsigned char *data;
    unsigned char *owned;
    size_t len;
    struct astep *st = stdin_step(r, &data, &len, &owned);
    if (!st)
        return;
    bool eof = json_is_true(json_object_get(r->body, "eof"));
    json_t *size = json_object_get(r->body, "pty");
    for (int i = 0; size && i < st->ntasks; i++)   /* srun's terminal was resized */
        if (st->tasks[i].pty && st->tasks[i].out[0])
            pty_set_size(event_get_fd(st->tasks[i].out[0]), size);
    st->in_req = r;
    for (int i = 0; i < st->ntasks; i++) {
        struct task *t = &st->tasks[i];
        if (t->in.fd < 0 || t->in.eof)
            continue;
        evbuffer_add(t->in.buf, data, len);
        t->in.eof = eof;
        flush(t);
    }
    free(owned);
    release_held(st);
}
