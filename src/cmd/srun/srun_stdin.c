/*
 * srun_stdin: our stdin to the step's tasks (POST /v1/steps/stdin, base64
 * in JSON), one chunk at a time to every node that has a task --input
 * names: the next chunk is read only once every node took the last, so the
 * tasks' pace sets ours (a node holds its answer while its tasks lag).
 * Pipes and terminals are read as they become readable; files and
 * /dev/null, which cannot be polled, are read straight away.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/event.h>

#include "client/paths.h"
#include "cmd/srun/srun.h"
#include "common/base64.h"
#include "common/http.h"
#include "common/xmalloc.h"

#define CHUNK 65536
#define STDIN_CALL_TIMEOUT_S 600   /* a node may hold the answer while its tasks read */

struct srun_stdin {
    struct srun *s;
    struct event *ev;          /* stdin readable (pipes, terminals); NULL: read directly */
    struct event *next;        /* read again, from the loop (files) */
    int calls;                 /* chunks not answered yet */
    bool eof;
};

static bool targets(const struct srun *s, const struct srun_node *n)
{
    int t = s->o->input_task;
    return t == -1 || (t >= n->first_task && t < n->first_task + n->ntasks);
}

static void read_more(struct srun_stdin *in)
{
    if (in->eof || in->calls)
        return;
    event_add(in->ev ? in->ev : in->next, in->ev ? NULL : &(struct timeval){ 0, 0 });
}

static void chunk_sent(int status, json_t *body, void *arg)
{
    (void)status;   /* a step that has ended takes no more: nothing to do */
    (void)body;
    struct srun_stdin *in = arg;
    struct srun *s = in->s;
    in->calls--;
    s->calls--;
    read_more(in);
    srun_maybe_exit(s);
}

static void send_chunk(struct srun_stdin *in, const char *data, size_t len, bool eof,
                       json_t *size)
{
    struct srun *s = in->s;
    char *b64 = base64_encode(data, len);
    for (size_t i = 0; i < s->nnodes; i++) {
        struct srun_node *n = &s->nodes[i];
        if (n->done || !targets(s, n))
            continue;
        json_t *b = json_pack("{s:s, s:b}", "data", b64, "eof", eof);
        if (size)
            json_object_set(b, "pty", size);
        in->calls++;
        srun_node_call(n, PATH_STEPS_STDIN, b, STDIN_CALL_TIMEOUT_S, chunk_sent, in);
    }
    free(b64);
    json_decref(size);
}

void srun_stdin_resized(struct srun *s, json_t *size)
{
    if (s->in)
        send_chunk(s->in, "", 0, false, size);
    else
        json_decref(size);
}

static void on_stdin(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    struct srun_stdin *in = arg;
    char buf[CHUNK];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
        read_more(in);
        return;
    }
    in->eof = n <= 0;
    send_chunk(in, buf, n > 0 ? (size_t)n : 0, in->eof, NULL);
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    on_stdin(0, what, arg);
}

static bool pollable(int fd)
{
    struct stat st;
    return isatty(fd) || (fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)));
}

static void stdin_start(struct srun *s)
{
    struct srun_stdin *in = s->in = xcalloc(1, sizeof *in);
    in->s = s;
    if (pollable(0))
        in->ev = event_new(s->base, 0, EV_READ, on_stdin, in);
    else
        in->next = evtimer_new(s->base, on_timer, in);
    read_more(in);
}

void srun_stdin_node_started(struct srun_node *n)
{
    struct srun *s = n->run;
    n->started = true;
    if (s->in || s->o->input_task == -2)
        return;
    for (size_t i = 0; i < s->nnodes; i++)
        if (targets(s, &s->nodes[i]) && !s->nodes[i].started && !s->nodes[i].done)
            return;
    stdin_start(s);
}

void srun_stdin_stop(struct srun *s)
{
    if (!s->in)
        return;
    if (s->in->ev)
        event_free(s->in->ev);
    if (s->in->next)
        event_free(s->in->next);
    xfree(s->in);
}
