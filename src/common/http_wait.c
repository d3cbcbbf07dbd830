/*
 * http_wait: one http_call on a loop of its own, waited for. For a
 * command that asks one thing of the controller over TCP and then goes on
 * (herd doctor, a configless fetch), not for daemons, which never block.
 */
#include <event2/event.h>

#include "common/auth.h"
#include "common/http.h"

struct waited {
    struct event_base *base;
    int status;
    json_t *body;
};

static void done(int status, json_t *body, void *arg)
{
    struct waited *w = arg;
    w->status = status;
    w->body = json_incref(body);
    event_base_loopbreak(w->base);
}

int http_call_wait(const char *munge_socket, const char *addr, int port, const char *method,
                   const char *path, json_t *body, int timeout_s, json_t **answer)
{
    struct waited w = { .base = event_base_new() };
    *answer = NULL;
    if (!w.base) {
        json_decref(body);
        return 0;
    }
    http_call(w.base, munge_socket, addr, port, method, path, body, timeout_s, done, &w);
    event_base_dispatch(w.base);
    /* the MUNGE workers' wake-up pipe and the ended call's connection
     * stay on the loop: they go with it */
    http_calls_settle(w.base);
    auth_async_release(w.base);
    event_base_free(w.base);
    *answer = w.body;
    return w.status;
}
