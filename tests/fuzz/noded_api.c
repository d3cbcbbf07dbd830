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
#include "fuzz_http.h"

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

static int connect_to(const char *path)
{
    struct sockaddr_un sun = { .sun_family = AF_UNIX };
    snprintf(sun.sun_path, sizeof sun.sun_path, "%s", path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof sun) < 0)
        abort();
    return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    struct harness *h = harness();
    const char *const *route = routes[data[0] % NROUTES];
    fuzz_http_exchange(h->base, connect_to(h->sock), route[0], route[1], data + 1, size - 1, 10,
                       "noded_api");
    return 0;
}
