#include "noded/confd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/confless.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "noded/agent.h"

/* The fetch before herdd daemonizes runs in a child: MUNGE's worker
 * threads, which start with the first call, would not survive the fork
 * that follows. The child says "hash" or the error on a pipe. */
static int fetch_apart(const char *host, int port, const char *cache, char *hash, size_t hlen,
                       char *err, size_t errlen)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        char buf[512];
        int rc = confless_fetch(host, port, NULL, cache, buf, sizeof buf, buf, sizeof buf);
        ssize_t w = write(p[1], buf, strlen(buf));
        (void)w;
        _exit(rc < 0 ? 1 : 0);
    }
    close(p[1]);
    char buf[512] = "";
    ssize_t n = pid > 0 ? read(p[0], buf, sizeof buf - 1) : -1;
    close(p[0]);
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        snprintf(err, errlen, "%s", n > 0 ? buf : "cannot fetch the configuration");
        return -1;
    }
    size_t len = n > 0 ? strnlen(buf, (size_t)n) : 0;
    if (len >= hlen)
        len = hlen - 1;
    memcpy(hash, buf, len);
    hash[len] = '\0';
    return 0;
}

char *confd_fetch(struct confd *d, const char *server, const char *cache, char *err,
                  size_t errlen)
{
    char host[256];
    int port;
    if (server ? confless_server_parse(server, host, sizeof host, &port) < 0
               : confless_srv_lookup(host, sizeof host, &port, err, errlen) < 0) {
        if (server)
            snprintf(err, errlen, "--conf-server %s: not HOST or HOST:PORT", server);
        return NULL;
    }
    if (fetch_apart(host, port, cache, d->hash, sizeof d->hash, err, errlen) < 0)
        return NULL;
    free(d->server);
    free(d->cache);
    d->server = xasprintf("%s:%d", host, port);
    d->cache = xstrdup(cache);
    log_info("configuration fetched from %s into %s", d->server, cache);
    return xasprintf("%s/slurm.conf", cache);
}

void confd_check(struct agent *a, const char *hash)
{
    struct confd *d = &a->confd;
    if (!d->server || !hash || !strcmp(hash, d->hash) || d->restart)
        return;
    char host[256], err[512];
    int port;
    if (confless_server_parse(d->server, host, sizeof host, &port) < 0 ||
        confless_fetch(host, port, NULL, d->cache, d->hash, sizeof d->hash, err,
                       sizeof err) < 0) {
        log_warnx("the controller's configuration changed; fetching it failed: %s", err);
        return;
    }
    log_info("the controller's configuration changed: herdd starts anew with it");
    d->restart = true;
    confd_tick(a);
}

void confd_tick(struct agent *a)
{
    struct confd *d = &a->confd;
    if (!d->restart || a->steps || a->stopping)
        return;
    /* our sockets are close-on-exec; the jobs' supervisors are not ours to lose */
    execv("/proc/self/exe", d->argv);
    log_warn("cannot start anew");
    d->restart = false;
}

void confd_clear(struct confd *d)
{
    free(d->server);
    free(d->cache);
    memset(d, 0, sizeof *d);
}
