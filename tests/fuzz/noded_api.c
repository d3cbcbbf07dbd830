/*
 * Fuzzes the node agent's request handlers through its real HTTP server:
 * an agent made as herdd makes it (agent_create: spool, routes, the local
 * Unix socket), not started (no heartbeat, no registration, no jobs), and
 * each input sent as one request over that socket, whose callers are told
 * apart by SO_PEERCRED: the fuzzer runs as root, as the controller's calls
 * are. The first byte picks the route, the rest is the body. Left out:
 * POST /v1/launch (it forks a supervisor; its body has the launch harness)
 * and /v1/local/adopt (it moves a process into a job's cgroup). A step
 * request asks the controller for its layout: here MUNGE is a socket that
 * does not exist, so that call fails at once, as with munged down.
 */
#include <errno.h>
#include <event2/event.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "common/conf.h"
#include "noded/agent.h"
#include "noded/local.h"
#include "fuzz.h"

static const char *const routes[][2] = {
    { "POST", "/v1/timelimit" }, { "POST", "/v1/signal" },      { "POST", "/v1/suspend" },
    { "POST", "/v1/output" },    { "POST", "/v1/steps" },       { "POST", "/v1/steps/signal" },
    { "POST", "/v1/steps/pmi" }, { "POST", "/v1/steps/stdin" }, { "GET", "/v1/local/jobs" },
};
#define NROUTES (sizeof routes / sizeof routes[0])

struct harness {
    struct event_base *base;
    struct agent *agent;
    char *sock;
};

static struct harness *harness(void)
{
    static struct harness h;
    if (h.agent)
        return &h;
    char err[512];
    char *spool = fuzz_path("spool"), *munge = fuzz_path("no-munged.socket");
    char *text = xasprintf("ClusterName=fuzz\nSlurmctldHost=localhost\nSlurmctldPort=1\n"
                           "AuthInfo=socket=%s\nSlurmdSpoolDir=%s/%%n\n"
                           "NodeName=n1 NodeAddr=127.0.0.1 CPUs=4 RealMemory=1000 Port=1\n"
                           "PartitionName=p Nodes=n1 Default=YES\n", munge, spool);
    char *conf_path = fuzz_write("slurm.conf", text, strlen(text));
    struct conf *conf = conf_load(conf_path, err, sizeof err);
    if (!conf || conf->nnodes != 1) {
        fprintf(stderr, "noded_api: slurm.conf: %s\n", err);
        abort();
    }
    conf->nodes[0].port = 0;     /* any free port: the TCP side is not fuzzed */
    h.base = event_base_new();
    h.agent = agent_create(h.base, conf, &conf->nodes[0], conf_path, NULL, 0, err, sizeof err);
    if (!h.agent) {
        fprintf(stderr, "noded_api: agent: %s\n", err);
        abort();
    }
    h.sock = xasprintf("%s/%s", h.agent->spool, LOCAL_SOCK_NAME);
    free(text);
    free(conf_path);
    free(spool);
    free(munge);
    return &h;
}

struct exchange {
    struct event_base *base;
    int fd;
    size_t got;
};

/* The answer is read and dropped; the server closes after it. */
static void readable(evutil_socket_t fd, short what, void *arg)
{
    struct exchange *x = arg;
    char buf[4096];
    (void)what;
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n > 0)
        x->got += (size_t)n;
    else if (n == 0 || (errno != EAGAIN && errno != EINTR))
        event_base_loopbreak(x->base);
}

static void hung(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    (void)arg;
    fprintf(stderr, "noded_api: no answer within 10 s\n");
    abort();
}

static int connect_to(const char *path)
{
    struct sockaddr_un sun = { .sun_family = AF_UNIX };
    snprintf(sun.sun_path, sizeof sun.sun_path, "%s", path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof sun) < 0)
        abort();
    return fd;
}

static void send_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w <= 0)
            return;     /* the server may close on a request it refuses */
        p += w;
        n -= (size_t)w;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    struct harness *h = harness();
    const char *const *route = routes[data[0] % NROUTES];
    struct exchange x = { h->base, connect_to(h->sock), 0 };
    char *head = xasprintf("%s %s HTTP/1.1\r\nHost: n1\r\nConnection: close\r\n"
                           "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n",
                           route[0], route[1], size - 1);
    send_all(x.fd, head, strlen(head));
    send_all(x.fd, (const char *)data + 1, size - 1);
    free(head);
    evutil_make_socket_nonblocking(x.fd);
    struct event *rd = event_new(h->base, x.fd, EV_READ | EV_PERSIST, readable, &x);
    struct event *limit = evtimer_new(h->base, hung, NULL);
    struct timeval ten = { 10, 0 };
    event_add(rd, NULL);
    event_add(limit, &ten);
    event_base_dispatch(h->base);
    event_free(rd);
    event_free(limit);
    close(x.fd);
    if (!x.got)
        abort();     /* every request gets an answer */
    return 0;
}
