/*
 * Fuzzes the PMI wire messages a task sends the node agent (pmi.c): PMI-1
 * lines ("cmd=put kvsname=K key=K value=V\n"), the switch to PMI-2 at init,
 * and PMI-2's length-prefixed ";"-separated pairs (";;" escaped), with
 * fences answered as srun would (every put comes back). The input is one
 * task's byte stream; pmi.c's static functions are reached by including
 * its source.
 */
#include "noded/pmi.c"
#include "fuzz.h"

static char *fenced;

static void fence_out(void *arg, const char *puts, size_t len)
{
    (void)arg;
    free(fenced);
    fenced = xstrndup(puts, len);
}

static void pmi_abort(void *arg, int rank, int code, const char *msg)
{
    (void)arg, (void)rank, (void)code, (void)msg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct event_base *base;
    if (!base)
        base = event_base_new();
    const struct pmi_info info = { .first_rank = 4, .ntasks = 1, .size = 8,
                                   .jobid = "42.0", .mapping = "(vector,(0,2,4))" };
    struct pmi *p = pmi_new(base, &info, (struct pmi_hooks){ fence_out, pmi_abort, NULL });
    int fd = pmi_task_socket(p, 0);
    if (fd < 0)
        abort();
    close(fd);
    struct pconn *c = &p->conns[0];
    struct evbuffer *in = evbuffer_new();
    evbuffer_add(in, data, size);
    while (c->bev && next_message(c, in)) {
        if (fenced) {
            json_t *kvs = json_loads(fenced, 0, NULL);
            pmi_fence_in(p, kvs);
            json_decref(kvs);
            xfree(fenced);
        }
        /* as on_read: a task that reads none of its answers is cut off */
        if (c->bev && evbuffer_get_length(bufferevent_get_output(c->bev)) > MAX_PENDING)
            conn_close(c);
    }
    evbuffer_free(in);
    pmi_free(p);
    /* libevent finishes freeing a bufferevent (and closes its socket) from
     * the loop, as the agent's does */
    event_base_loop(base, EVLOOP_NONBLOCK);
    xfree(fenced);
    return 0;
}
