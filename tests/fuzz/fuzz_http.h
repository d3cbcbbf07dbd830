/*
 * For the harnesses that send their input to a daemon's real HTTP server
 * in the same process (ctld_api, noded_api): one request over a Unix
 * socket already connected, the event loop run until the answer has come
 * and the server has closed. A request that gets no answer within the
 * bound is a finding (abort), as is one answered with nothing.
 */
#ifndef HERD_TESTS_FUZZ_HTTP_H
#define HERD_TESTS_FUZZ_HTTP_H

#include <errno.h>
#include <event2/event.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz.h"

struct fuzz_exchange_ {
    struct event_base *base;
    size_t got;
};

static void fuzz_readable_(evutil_socket_t fd, short what, void *arg)
{
    struct fuzz_exchange_ *x = arg;
    char buf[8192];
    (void)what;
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n > 0)
        x->got += (size_t)n;
    else if (n == 0 || (errno != EAGAIN && errno != EINTR))
        event_base_loopbreak(x->base);
}

static void fuzz_hung_(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    fprintf(stderr, "%s: no answer within the bound\n", (const char *)arg);
    abort();
}

static void fuzz_send_all_(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w <= 0)
            return;     /* the server may close on a request it refuses */
        p += w;
        n -= (size_t)w;
    }
}

/* Sends method path with body on fd (connected; closed here) and runs
 * base until the server has answered and closed. */
static void fuzz_http_exchange(struct event_base *base, int fd, const char *method,
                               const char *path, const uint8_t *body, size_t len,
                               int bound_s, const char *who)
{
    char *head = xasprintf("%s %s HTTP/1.1\r\nHost: fuzz\r\nConnection: close\r\n"
                           "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n",
                           method, path, len);
    fuzz_send_all_(fd, head, strlen(head));
    fuzz_send_all_(fd, (const char *)body, len);
    free(head);
    evutil_make_socket_nonblocking(fd);
    struct fuzz_exchange_ x = { base, 0 };
    struct event *rd = event_new(base, fd, EV_READ | EV_PERSIST, fuzz_readable_, &x);
    struct event *limit = evtimer_new(base, fuzz_hung_, (void *)who);
    struct timeval tv = { bound_s, 0 };
    event_add(rd, NULL);
    event_add(limit, &tv);
    event_base_dispatch(base);
    event_free(rd);
    event_free(limit);
    close(fd);
    if (!x.got) {
        fprintf(stderr, "%s: an empty answer\n", who);
        abort();
    }
}

#endif
