/*
 * setup_host: `herd setup node` and `herd setup login`, the hosts that
 * fetch their configuration from the controller (configless). Neither
 * makes a MUNGE key: a key of their own would not be the controller's, and
 * nothing would trust them; without one they say how to copy it.
 */
#include "cmd/setup.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/confless.h"
#include "common/xmalloc.h"

/* Host and node names go into /etc/default/herdd, which the service
 * manager splits at spaces and reads quotes in. */
static bool plain_name(const char *s)
{
    return *s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_") ==
                     strlen(s);
}

/* --conf-server into host and port. 0, or -1 printed. */
static int server_of(const struct setup_opts *o, const char *role, char *host, size_t n,
                     int *port)
{
    if (!o->conf_server) {
        fprintf(stderr, "herd setup %s: --conf-server HOST[:PORT] names the controller\n",
                role);
        return -1;
    }
    if (confless_server_parse(o->conf_server, host, n, port) < 0 || !plain_name(host)) {
        fprintf(stderr, "herd setup %s: --conf-server wants HOST or HOST:PORT, not '%s'\n",
                role, o->conf_server);
        return -1;
    }
    return 0;
}

/* The controller's key, here: 0, or -1 with what to do printed. */
static int host_key(const struct setup_opts *o, const char *ctld)
{
    char *key = o->munge_key ? xstrdup(o->munge_key) : setup_path(o, SETUP_MUNGE_KEY);
    int rc = setup_munge_check(key);
    if (rc == 1)
        setup_munge_copy_hint(ctld, key);
    free(key);
    return rc == 0 ? 0 : -1;
}

/* /etc/default/herdd, which herdd.service reads: the agent fetches its
 * files from the controller. 0, or -1 printed. */
static int herdd_defaults(const struct setup_opts *o, const char *ctld, int port)
{
    char *path = setup_path(o, SETUP_HERDD_DEFAULTS);
    char *text = xasprintf("# written by herd setup node: herdd fetches slurm.conf from the "
                           "controller\nHERDD_OPTIONS=\"--conf-server %s:%d%s%s\"\n", ctld,
                           port, o->name ? " -N " : "", o->name ? o->name : "");
    int rc = setup_write_file(path, text, strlen(text), 0644, (uid_t)-1, (gid_t)-1, o->force);
    if (rc == 1)
        printf("%s: wrote %s", path, strchr(text, '\n') + 1);
    else if (rc == 0)
        printf("%s is there and stays as it is (--force writes a new one); it would say:\n"
               "  %s", path, strchr(text, '\n') + 1);
    free(text);
    free(path);
    return rc < 0 ? -1 : 0;
}

int setup_node(const struct setup_opts *o)
{
    char ctld[256], name[256];
    int port;
    if (server_of(o, "node", ctld, sizeof ctld, &port) < 0)
        return 1;
    if (o->name && !plain_name(o->name)) {
        fprintf(stderr, "herd setup node: -N '%s': a node name is letters, digits, '.', '-' "
                "and '_'\n", o->name);
        return 1;
    }
    if (host_key(o, ctld) < 0 || herdd_defaults(o, ctld, port) < 0)
        return 1;
    if (o->name)
        snprintf(name, sizeof name, "%s", o->name);
    else
        setup_short_host(name, sizeof name);
    char *line = setup_node_line(name);
    if (!line)
        return 1;
    printf("\nThis node's line (herdd -C: its CPUs, memory and GPUs):\n  %s\n\n"
           "Next, on the controller (%s), as root: add that line to %s\n"
           "(the partitions with Nodes=ALL take it in), then\n"
           "  systemctl restart herdctld\n"
           "(a reconfigure does not add nodes). Then here, as root:\n"
           "  systemctl enable --now munge herdd\n"
           "and `herd doctor` to check this host against the controller.\n",
           line, ctld, SETUP_SLURM_CONF);
    free(line);
    return 0;
}

/* This herd's own path, for the line that runs it at boot. */
static void self_path(char *buf, size_t n)
{
    ssize_t len = readlink("/proc/self/exe", buf, n - 1);
    if (len <= 0)
        snprintf(buf, n, "/usr/bin/herd");
    else
        buf[len] = '\0';
}

int setup_login(const struct setup_opts *o)
{
    char ctld[256], err[512], hash[64], self[PATH_MAX];
    int port;
    if (server_of(o, "login", ctld, sizeof ctld, &port) < 0 || host_key(o, ctld) < 0)
        return 1;
    char *cache = setup_path(o, CONFLESS_CACHE);
    int rc = confless_fetch(ctld, port, NULL, cache, hash, sizeof hash, err, sizeof err);
    if (rc < 0)
        fprintf(stderr, "herd setup login: %s\n", err);
    else
        printf("fetched slurm.conf from %s:%d into %s\n", ctld, port, cache);
    free(cache);
    if (rc < 0)
        return 1;
    char *own = setup_path(o, SETUP_SLURM_CONF);
    if (access(own, F_OK) == 0)
        printf("herd setup: %s is there, and the commands read it first: remove it to use "
               "the controller's\n", own);
    free(own);
    self_path(self, sizeof self);
    printf("\nThe commands (sbatch, squeue, sinfo, ...) now read %s/slurm.conf.\n"
           "/run is emptied at boot: fetch at boot and now and then, e.g. with these lines\n"
           "in /etc/cron.d/herd-conf-fetch:\n"
           "  @reboot root %s conf-fetch --conf-server %s:%d\n"
           "  */10 * * * * root %s conf-fetch --conf-server %s:%d >/dev/null\n",
           CONFLESS_CACHE, self, ctld, port, self, ctld, port);
    return 0;
}
