/*
 * netns: making and removing a cluster's bridge, its nodes' namespace
 * handles and veth pairs (see netns.h for the layout).
 */
#include "up/netns.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <dirent.h>
#include <linux/magic.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/xmalloc.h"
#include "up/netns_int.h"

/* Room for a link name; the kernel takes 15 bytes, and ours are at most 14
 * (up to 253 nodes). */
#define LINK_BUF 32

/* FNV-1a: stable across runs and builds, which the link names must be. */
uint32_t netns_dir_hash(const char *dir)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)dir; *p; p++)
        h = (h ^ *p) * 16777619u;
    return h;
}

static void bridge_name(const char *dir, char out[LINK_BUF])
{
    snprintf(out, LINK_BUF, "hb%08x", netns_dir_hash(dir));
}

/* The host end of node i's pair; i is its place in slurm.conf. */
static void veth_name(const char *dir, size_t i, char out[LINK_BUF])
{
    snprintf(out, LINK_BUF, "hv%08x-%zu", netns_dir_hash(dir), i + 1);
}

/* The kernel keeps 255 bytes of an alias. */
static char *bridge_alias(const char *dir)
{
    return xasprintf("herd %.250s", dir);
}

char *netns_handle_path(const char *dir, const char *node)
{
    return xasprintf("%s/netns/%s.net", dir, node);
}

char *netns_hosts_path(const char *dir)
{
    return xasprintf("%s/netns/hosts", dir);
}

bool netns_enabled(const char *dir)
{
    char *p = xasprintf("%s/netns", dir);
    struct stat st;
    bool on = stat(p, &st) == 0 && S_ISDIR(st.st_mode);
    free(p);
    return on;
}

int netns_mark(const char *dir)
{
    char *p = xasprintf("%s/netns", dir);
    int rc = mkdir(p, 0755) < 0 && errno != EEXIST ? -1 : 0;
    if (rc < 0)
        fprintf(stderr, "herd: error: %s: %s\n", p, strerror(errno));
    free(p);
    return rc;
}

const char *netns_unavailable(void)
{
    if (geteuid() != 0)
        return "--netns needs root (namespaces, links, mounts)";
    if (access("/proc/self/ns/net", F_OK) != 0 || access("/proc/self/ns/uts", F_OK) != 0)
        return "this kernel has no network or UTS namespaces";
    if (!netns_ip_path())
        return "--netns needs `ip` (Debian package iproute2)";
    return NULL;
}

static bool handle_is_netns(const char *path)
{
    struct statfs st;
    return statfs(path, &st) == 0 && st.f_type == NSFS_MAGIC;
}

static void handle_remove(const char *path)
{
    if (umount2(path, MNT_DETACH) < 0 && errno != EINVAL && errno != ENOENT)
        fprintf(stderr, "herd: warning: umount %s: %s\n", path, strerror(errno));
    unlink(path);
}

/* A new network namespace, kept by a bind mount on path: made by a child,
 * which then exits, so that this process stays where it is. */
static int handle_make(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0444);
    if (fd < 0 || close(fd) < 0) {
        fprintf(stderr, "herd: error: %s: %s\n", path, strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        if (unshare(CLONE_NEWNET) < 0 ||
            mount("/proc/self/ns/net", path, NULL, MS_BIND, NULL) < 0) {
            fprintf(stderr, "herd: error: network namespace %s: %s\n", path, strerror(errno));
            _exit(1);
        }
        _exit(0);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0) {
        unlink(path);
        return -1;
    }
    return 0;
}

/* The bridge, ours by its alias: a link of that name that is not ours
 * (another cluster whose DIR hashes alike) is refused, never taken. */
static int bridge_ensure(const char *dir, const char *addr)
{
    char br[LINK_BUF];
    bridge_name(dir, br);
    char *alias = bridge_alias(dir), *have = netns_link_alias(br);
    char *cidr = xasprintf("%s/24", addr);
    int rc = 0;
    if (have && strcmp(have, alias) != 0) {
        fprintf(stderr, "herd: error: link %s exists and is not this cluster's (alias '%s')\n",
                br, have);
        rc = -1;
    } else if (!have) {
        rc = netns_ip(dir, NULL, false, "link", "add", br, "type", "bridge", NULL);
        if (rc == 0)
            rc = netns_ip(dir, NULL, false, "link", "set", br, "alias", alias, NULL);
    }
    if (rc == 0)
        rc = netns_ip(dir, NULL, false, "addr", "replace", cidr, "dev", br, NULL);
    if (rc == 0)
        rc = netns_ip(dir, NULL, false, "link", "set", br, "up", NULL);
    free(alias); free(have); free(cidr);
    return rc;
}

/* Inside the node: its address on eth0, loopback up, the host as gateway
 * (so that the host's other addresses answer too). */
static int node_inside(const char *dir, const char *handle, const char *addr, const char *gw)
{
    char *cidr = xasprintf("%s/24", addr);
    int rc = netns_ip(dir, handle, false, "addr", "add", cidr, "dev", "eth0", NULL);
    if (rc == 0)
        rc = netns_ip(dir, handle, false, "link", "set", "eth0", "up", NULL);
    if (rc == 0)
        rc = netns_ip(dir, handle, false, "link", "set", "lo", "up", NULL);
    if (rc == 0)
        rc = netns_ip(dir, handle, false, "route", "add", "default", "via", gw, NULL);
    free(cidr);
    return rc;
}

/* Node i's namespace and veth, made afresh unless both are there. */
static int node_ensure(const char *dir, size_t i, const struct conf_node *n, const char *gw)
{
    char veth[LINK_BUF], br[LINK_BUF];
    veth_name(dir, i, veth);
    bridge_name(dir, br);
    char *handle = netns_handle_path(dir, n->name);
    bool have_ns = handle_is_netns(handle), have_veth = netns_link_exists(veth);
    int rc = 0;
    if (!have_ns || !have_veth) {
        if (have_ns)
            handle_remove(handle);
        if (have_veth)
            netns_ip(dir, NULL, true, "link", "del", veth, NULL);
        rc = handle_make(handle);
        if (rc == 0)
            rc = netns_ip(dir, NULL, false, "link", "add", veth, "type", "veth", "peer",
                          "name", "eth0", "netns", handle, NULL);
        if (rc == 0)
            rc = netns_ip(dir, NULL, false, "link", "set", veth, "master", br, "up", NULL);
        if (rc == 0)
            rc = node_inside(dir, handle, n->addr, gw);
    }
    free(handle);
    return rc;
}

int netns_up(const char *dir, const struct conf *c)
{
    if (c->nnodes > NETNS_MAX_NODES) {
        fprintf(stderr, "herd: error: --netns takes at most %d nodes\n", NETNS_MAX_NODES);
        return -1;
    }
    if (bridge_ensure(dir, c->ctld_addr) < 0 || netns_hosts_write(dir, c) < 0)
        return -1;
    for (size_t i = 0; i < c->nnodes; i++)
        if (node_ensure(dir, i, &c->nodes[i], c->ctld_addr) < 0)
            return -1;
    return 0;
}

/* Host ends of the cluster's pairs, whatever slurm.conf says now; the
 * inner end goes with each. */
static size_t veths_remove(const char *dir)
{
    char prefix[LINK_BUF];
    snprintf(prefix, sizeof prefix, "hv%08x-", netns_dir_hash(dir));
    DIR *d = opendir("/sys/class/net");
    size_t n = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0 &&
            netns_ip(dir, NULL, false, "link", "del", e->d_name, NULL) == 0)
            n++;
    if (d)
        closedir(d);
    return n;
}

static size_t handles_remove(const char *dir)
{
    char *pat = xasprintf("%s/netns/*.net", dir);
    glob_t g;
    size_t n = 0;
    if (glob(pat, 0, NULL, &g) == 0) {
        for (; n < g.gl_pathc; n++)
            handle_remove(g.gl_pathv[n]);
        globfree(&g);
    }
    free(pat);
    return n;
}

void netns_down(const char *dir)
{
    char br[LINK_BUF];
    bridge_name(dir, br);
    char *alias = bridge_alias(dir), *have = netns_link_alias(br);
    size_t veths = veths_remove(dir), handles = handles_remove(dir);
    bool bridge = have && strcmp(have, alias) == 0 &&
                  netns_ip(dir, NULL, false, "link", "del", br, NULL) == 0;
    if (veths || handles || bridge)
        fprintf(stderr, "herd: removed the network: %zu veth pair%s, %zu namespace%s%s%s\n",
                veths, veths == 1 ? "" : "s", handles, handles == 1 ? "" : "s",
                bridge ? ", bridge " : "", bridge ? br : "");
    free(alias);
    free(have);
}
