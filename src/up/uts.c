#include "up/uts.h"

#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/xmalloc.h"

static char *hosts_path(const char *dir)
{
    return xasprintf("%s/run/hosts", dir);
}

int uts_hosts_write(const char *dir, const struct conf *c)
{
    char *path = hosts_path(dir);
    FILE *out = fopen(path, "we");
    if (!out) {
        fprintf(stderr, "herd: error: %s: %s\n", path, strerror(errno));
        free(path);
        return -1;
    }
    FILE *in = fopen("/etc/hosts", "re");
    char line[1024];
    while (in && fgets(line, sizeof line, in))
        fputs(line, out);
    if (in)
        fclose(in);
    fprintf(out, "# herd up: the cluster's nodes\n");
    for (size_t i = 0; i < c->nnodes; i++) {
        const struct conf_node *n = &c->nodes[i];
        /* a node without NodeAddr is reached by name: on this machine */
        bool by_name = !n->addr || !strcmp(n->addr, n->name);
        fprintf(out, "%s %s\n", by_name ? "127.0.0.1" : n->addr, n->name);
    }
    int rc = fclose(out) == 0 ? 0 : -1;
    if (rc < 0)
        fprintf(stderr, "herd: error: %s: %s\n", path, strerror(errno));
    free(path);
    return rc;
}

/* Namespaces of its own; mounts made here stay here (slave: the host's
 * later mounts still come in). */
static int own_namespaces(void)
{
    if (unshare(CLONE_NEWUTS | CLONE_NEWNS) < 0)
        return -1;
    return mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL);
}

int uts_enter(const char *dir, const char *node)
{
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    host[strcspn(host, ".")] = '\0';
    /* the node that describes this machine keeps the machine's own name */
    if (!strcmp(host, node))
        return 0;
    if (own_namespaces() < 0) {
        fprintf(stderr, "herd: cannot make UTS and mount namespaces: %s\n", strerror(errno));
        return -1;
    }
    char *hosts = hosts_path(dir);
    int rc = mount(hosts, "/etc/hosts", NULL, MS_BIND, NULL);
    if (rc < 0)
        fprintf(stderr, "herd: cannot mount %s on /etc/hosts: %s\n", hosts, strerror(errno));
    free(hosts);
    if (rc == 0 && (rc = sethostname(node, strlen(node))) < 0)
        fprintf(stderr, "herd: cannot name the host %s: %s\n", node, strerror(errno));
    return rc;
}

const char *uts_unavailable(void)
{
    static char why[160];
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(why, sizeof why, "fork: %s", strerror(errno));
        return why;
    }
    if (pid == 0) {
        /* the child's errno is its exit status: the parent only names it */
        if (own_namespaces() < 0)
            _exit(errno & 0xff);
        _exit(sethostname("herd-probe", 10) < 0 ? errno & 0xff : 0);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            snprintf(why, sizeof why, "waitpid: %s", strerror(errno));
            return why;
        }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return NULL;
    snprintf(why, sizeof why, "unshare(CLONE_NEWUTS|CLONE_NEWNS)/sethostname: %s",
             WIFEXITED(status) ? strerror(WEXITSTATUS(status)) : "the probe died");
    return why;
}
