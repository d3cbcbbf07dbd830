/*
 * netns_enter: what makes a node agent's process a host of its own: the
 * node's network namespace, its own host name, and the cluster's hosts file
 * as /etc/hosts. Its jobs and their tasks are its children and inherit all
 * three.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/xmalloc.h"
#include "up/netns.h"
#include "up/netns_int.h"

static char *hosts_text(const struct conf *c)
{
    char *t = xstrdup("# Written by `herd up --netns` from slurm.conf: what the cluster's nodes\n"
                      "# see as /etc/hosts.\n"
                      "127.0.0.1\tlocalhost\n"
                      "::1\tlocalhost ip6-localhost ip6-loopback\n");
    /* the controller's line, unless its name is loopback's */
    if (c->ctld_host && strcmp(c->ctld_host, "localhost") != 0) {
        char *more = xasprintf("%s%s\t%s\n", t, c->ctld_addr, c->ctld_host);
        free(t);
        t = more;
    }
    for (size_t i = 0; i < c->nnodes; i++) {
        char *more = xasprintf("%s%s\t%s\n", t, c->nodes[i].addr, c->nodes[i].name);
        free(t);
        t = more;
    }
    return t;
}

/* Whether path already holds exactly text (then it is left alone). */
static bool file_holds(const char *path, const char *text)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    size_t len = strlen(text);
    char *buf = xmalloc(len + 2);
    size_t n = fread(buf, 1, len + 1, f);
    fclose(f);
    bool same = n == len && memcmp(buf, text, len) == 0;
    free(buf);
    return same;
}

int netns_hosts_write(const char *dir, const struct conf *c)
{
    char *path = netns_hosts_path(dir), *text = hosts_text(c);
    int rc = 0;
    if (!file_holds(path, text)) {
        /* in place, not renamed over: running agents have this inode mounted */
        FILE *f = fopen(path, "we");
        rc = f && fputs(text, f) >= 0 ? 0 : -1;
        if (f && fclose(f) != 0)
            rc = -1;
        if (rc < 0)
            fprintf(stderr, "herd: error: cannot write %s: %s\n", path, strerror(errno));
        else
            chmod(path, 0644);
    }
    free(text);
    free(path);
    return rc;
}

static int join_netns(const char *dir, const char *node)
{
    char *handle = netns_handle_path(dir, node);
    int fd = open(handle, O_RDONLY | O_CLOEXEC);
    int rc = fd >= 0 && setns(fd, CLONE_NEWNET) == 0 ? 0 : -1;
    if (rc < 0)
        fprintf(stderr, "herd: cannot join the network namespace %s: %s\n", handle,
                strerror(errno));
    if (fd >= 0)
        close(fd);
    free(handle);
    return rc;
}

/* Mounts made here stay here (slave: the host's later mounts still come
 * in); /etc/hosts becomes the cluster's. */
static int own_mounts(const char *dir)
{
    char *hosts = netns_hosts_path(dir);
    int rc = 0;
    if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0) {
        fprintf(stderr, "herd: cannot make / a slave mount: %s\n", strerror(errno));
        rc = -1;
    } else if (mount(hosts, "/etc/hosts", NULL, MS_BIND, NULL) < 0) {
        fprintf(stderr, "herd: cannot mount %s on /etc/hosts: %s\n", hosts, strerror(errno));
        rc = -1;
    }
    free(hosts);
    return rc;
}

int netns_enter(const char *dir, const char *node)
{
    if (join_netns(dir, node) < 0)
        return -1;
    if (unshare(CLONE_NEWUTS | CLONE_NEWNS) < 0) {
        fprintf(stderr, "herd: cannot make UTS and mount namespaces: %s\n", strerror(errno));
        return -1;
    }
    if (sethostname(node, strlen(node)) < 0) {
        fprintf(stderr, "herd: cannot name the host %s: %s\n", node, strerror(errno));
        return -1;
    }
    return own_mounts(dir);
}
