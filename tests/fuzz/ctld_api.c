/*
 * Fuzzes the controller's request handlers whole, through its real HTTP
 * server: a controller brought up as herdctld brings it up (ctld_setup:
 * store, nodes, partitions, accounting, routes, timers, the scheduler's
 * thread) in a private StateSaveLocation, and each input sent as one
 * request over its Unix socket, where the kernel names the caller
 * (SO_PEERCRED). Input: byte 0 picks the route (its top bit: the caller is
 * nobody, not root, so that the refusals are reached too), byte 1 the job
 * or reservation the path names (one of the newest), the rest is the body.
 * Everything after the parse runs: admission, limits, the commit, the
 * answer sent once it is on disk, the scheduler's next pass. No node agent
 * answers (MUNGE is a socket that does not exist): a node that registers
 * gets launches that fail, as one whose munged is down. Every 200 inputs
 * the jobs still held are ended, so the queue stays small.
 */
#include <errno.h>
#include <event2/event.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "common/conf.h"
#include "common/log.h"
#include "ctld/ctld.h"
#include "fuzz_http.h"

static const char *const routes[][2] = {
    { "POST", "/v1/jobs" },                   { "POST", "/v1/jobs/cancel" },
    { "POST", "/v1/jobs/J/cancel" },          { "POST", "/v1/jobs/J/steps" },
    { "POST", "/v1/jobs/J/complete" },        { "POST", "/v1/jobs/J/steps/0/complete" },
    { "POST", "/v1/jobs/J/hold" },            { "POST", "/v1/jobs/J/release" },
    { "POST", "/v1/jobs/J/requeue" },         { "POST", "/v1/jobs/J/suspend" },
    { "POST", "/v1/jobs/J/resume" },          { "POST", "/v1/jobs/J/update" },
    { "POST", "/v1/nodes/update" },           { "POST", "/v1/partitions/update" },
    { "POST", "/v1/acctdb" },                 { "POST", "/v1/reservations" },
    { "POST", "/v1/reservations/R" },         { "DELETE", "/v1/reservations/R" },
    { "POST", "/slurm/v0.0.40/job/submit" },  { "DELETE", "/slurm/v0.0.40/job/J" },
    { "POST", "/v1/node/register" },          { "POST", "/v1/node/job_end" },
    { "POST", "/v1/node/usage" },             { "POST", "/v1/token" },
    { "POST", "/v1/diag/reset" },
};
#define NROUTES (sizeof routes / sizeof routes[0])
#define RESET_EVERY 200

static const char conf_fmt[] =
    "ClusterName=fuzz\nSlurmctldHost=localhost\nSlurmctldPort=1\n"
    "AuthInfo=socket=%s\nStateSaveLocation=%s\nMinJobAge=1\nMaxJobCount=20000\n"
    "GresTypes=gpu\nPriorityType=priority/multifactor\nPriorityWeightAge=100\n"
    "NodeName=g1 NodeAddr=127.0.0.2 Port=1 CPUs=16 RealMemory=64000 Gres=gpu:h100:4\n"
    "NodeName=g2 NodeAddr=127.0.0.3 Port=1 CPUs=16 RealMemory=64000 Gres=gpu:h100:4\n"
    "NodeName=c1 NodeAddr=127.0.0.4 Port=1 CPUs=8 RealMemory=16000\n"
    "PartitionName=gpu Nodes=g[1-2] Default=YES MaxTime=1-00:00:00\n"
    "PartitionName=cpu Nodes=c1 MaxTime=60\n";

static struct ctld ctld;
static char *sock_path;

static void bring_up(void)
{
    char err[512];
    char *state = fuzz_path("state"), *munge = fuzz_path("no-munged.socket");
    char *text = xasprintf(conf_fmt, munge, state);
    char *conf_path = fuzz_write("slurm.conf", text, strlen(text));
    char *dir = fuzz_path("");
    chmod(dir, 0711);     /* nobody reaches the socket (0666) as on a host */
    log_init("herdctld", -1, "/dev/null");
    ctld.conf = conf_load(conf_path, err, sizeof err);
    if (!ctld.conf || ctld_sched_configure(&ctld, err, sizeof err) < 0) {
        fprintf(stderr, "ctld_api: %s\n", err);
        abort();
    }
    ctld.conf->ctld_port = 0;     /* any free port: TCP needs MUNGE, not fuzzed here */
    ctld.base = event_base_new();
    event_base_priority_init(ctld.base, CTLD_NPRIO);
    ctld_setup(&ctld);
    sock_path = xasprintf("%s/herdctld.sock", state);
    free(text);
    free(conf_path);
    free(dir);
    free(state);
    free(munge);
}

/* What is left of the queue ends, and leaves memory with MinJobAge. */
static void reset(void)
{
    struct job *j;
    JOB_FOREACH(&ctld, j) {
        if (!job_is_finished(j))
            job_end(&ctld, j, JOB_CANCELLED, 0, 0, 0);
    }
}

static int connect_as(bool nobody)
{
    nobody = nobody && geteuid() == 0;
    struct sockaddr_un sun = { .sun_family = AF_UNIX };
    snprintf(sun.sun_path, sizeof sun.sun_path, "%s", sock_path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || (nobody && setresuid(-1, 65534, -1) < 0))
        abort();
    int rc = connect(fd, (struct sockaddr *)&sun, sizeof sun);
    if ((nobody && setresuid(-1, 0, -1) < 0) || rc < 0)
        abort();
    return fd;
}

/* The route's path with J (a job id: one of the newest) or R (a
 * reservation's name) put in. */
static char *route_path(const char *pattern, uint8_t pick)
{
    char arg[32];
    const char *at = strpbrk(pattern, "JR");
    if (!at)
        return xstrdup(pattern);
    if (*at == 'J')
        snprintf(arg, sizeof arg, "%llu", (unsigned long long)(ctld.next_job_id > pick % 8
                                          ? ctld.next_job_id - 1 - pick % 8 : 1));
    else
        snprintf(arg, sizeof arg, "r%u", pick % 4);
    return xasprintf("%.*s%s%s", (int)(at - pattern), pattern, arg, at + 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static unsigned long inputs;
    if (size < 2)
        return 0;
    if (!ctld.conf)
        bring_up();
    if (++inputs % RESET_EVERY == 0)
        reset();
    const char *const *route = routes[(data[0] & 0x7f) % NROUTES];
    char *path = route_path(route[1], data[1]);
    fuzz_http_exchange(ctld.base, connect_as(data[0] & 0x80), route[0], path, data + 2, size - 2,
                       20, "ctld_api");
    free(path);
    return 0;
}
