/*
 * netns_ip: iproute2's `ip`, run on the host or inside a node's network
 * namespace, and what sysfs says of the host's links. Making bridges and
 * veth pairs takes netlink; `ip` speaks it, so herd does not.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "up/cluster.h"
#include "up/netns_int.h"

#define IP_MAX_ARGS 24
#define IP_WAIT_S 10

/* PATH may lack the sbin directories (a user's shell, sudo). */
const char *netns_ip_path(void)
{
    static const char *const where[] = {"/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"};
    for (size_t i = 0; i < sizeof where / sizeof *where; i++)
        if (access(where[i], X_OK) == 0)
            return where[i];
    return NULL;
}

static int join_netns(void *handle)
{
    int fd = open(handle, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || setns(fd, CLONE_NEWNET) < 0) {
        fprintf(stderr, "cannot join the network namespace %s: %s\n", (char *)handle,
                strerror(errno));
        return -1;
    }
    close(fd);
    return 0;
}

static void print_argv(char *const argv[])
{
    fputs("herd: error:", stderr);
    for (size_t i = 0; argv[i]; i++)
        fprintf(stderr, " %s", argv[i]);
    fputs(" failed:\n", stderr);
}

int netns_ip(const char *dir, const char *handle, int quiet, ...)
{
    const char *ip = netns_ip_path();
    char *argv[IP_MAX_ARGS + 2] = {(char *)(ip ? ip : "ip")};
    size_t n = 1;
    va_list ap;
    va_start(ap, quiet);
    for (const char *a; n < IP_MAX_ARGS && (a = va_arg(ap, const char *)) != NULL;)
        argv[n++] = (char *)a;
    va_end(ap);
    char *errfile = xasprintf("%s/log/netns-ip.err", dir);
    int rc = cluster_spawn_wait_pre(argv, errfile, IP_WAIT_S, handle ? join_netns : NULL,
                                    (void *)handle);
    if (rc != 0 && !quiet) {
        print_argv(argv);
        cluster_print_file(errfile);
    }
    unlink(errfile);
    free(errfile);
    return rc == 0 ? 0 : -1;
}

bool netns_link_exists(const char *name)
{
    char *p = xasprintf("/sys/class/net/%s", name);
    bool there = access(p, F_OK) == 0;
    free(p);
    return there;
}

char *netns_link_alias(const char *name)
{
    char *p = xasprintf("/sys/class/net/%s/ifalias", name);
    FILE *f = fopen(p, "re");
    free(p);
    if (!f)
        return netns_link_exists(name) ? xstrdup("") : NULL;
    char buf[512] = "";
    if (!fgets(buf, sizeof buf, f))
        buf[0] = '\0';
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
    return xstrdup(buf);
}
