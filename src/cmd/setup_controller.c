/*
 * setup_controller: `herd setup controller`. The key, slurm.conf, the
 * controller's directories, then what to do on this host and the others.
 * An existing slurm.conf stays unless --force; what follows (directories,
 * the commands printed) is taken from the file as herd's parser reads it,
 * so that it also serves an administrator's own file.
 */
#include "cmd/setup.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/xmalloc.h"

/* The key there (checked) or made now. 0, or -1 printed. */
static int controller_key(const char *path)
{
    int rc = setup_munge_check(path);
    if (rc == 1)
        return setup_munge_make(path);
    return rc;
}

/* Each --node is one "NodeName=..." line. 0, or -1 printed. */
static int nodes_valid(const struct setup_opts *o)
{
    for (size_t i = 0; i < o->nnodes; i++) {
        char *name = setup_conf_node_name(o->nodes[i]);
        if (!name) {
            fprintf(stderr, "herd setup: --node '%s': want one line NodeName=NAME CPUs=... "
                    "(as herdd -C prints it)\n", o->nodes[i]);
            return -1;
        }
        free(name);
    }
    return 0;
}

/* SlurmUser: --user, which must exist; else herd, which the package makes;
 * else root, said. NULL (printed) for a --user that does not exist. */
static const char *slurm_user(const struct setup_opts *o)
{
    uid_t uid;
    gid_t gid;
    if (o->user) {
        if (setup_user_ids(o->user, &uid, &gid) == 0)
            return o->user;
        fprintf(stderr, "herd setup: --user %s: no such user here (adduser --system --group "
                "%s makes one)\n", o->user, o->user);
        return NULL;
    }
    if (setup_user_ids("herd", &uid, &gid) == 0)
        return "herd";
    printf("herd setup: there is no user herd (the package makes it): SlurmUser=root, and "
           "herdctld.service, which runs as User=herd, needs an override\n");
    return "root";
}

/* A new slurm.conf at path, unless one is there and --force is off.
 * 0, or -1 printed. */
static int write_conf(const struct setup_opts *o, const char *path, const char *host)
{
    if (!o->force && access(path, F_OK) == 0) {
        printf("slurm.conf: %s is there and stays as it is (--force writes a new one)\n",
               path);
        return 0;
    }
    const char *user = slurm_user(o);
    if (!user)
        return -1;
    char *own = NULL;
    if (o->nnodes == 0 && !(own = setup_node_line(host))) {
        fprintf(stderr, "herd setup: name the nodes with --node 'NodeName=...'\n");
        return -1;
    }
    struct setup_conf sc = { o->cluster, host, user, o->port, own ? &own : o->nodes,
                             own ? 1 : o->nnodes };
    char *text = setup_conf_text(&sc);
    int rc = text ? setup_write_file(path, text, strlen(text), 0644, (uid_t)-1, (gid_t)-1,
                                     o->force) : -1;
    if (!text)
        fprintf(stderr, "herd setup: out of memory\n");
    if (rc == 1)
        printf("slurm.conf: wrote %s\n", path);
    else if (rc == 0)
        printf("slurm.conf: %s appeared meanwhile and stays as it is\n", path);
    free(text);
    free(own);
    return rc < 0 ? -1 : 0;
}

/* What herd's parser makes of it, in a line. */
static void conf_summary(const struct conf *c)
{
    int cpus = 0, gpus = 0;
    for (size_t i = 0; i < c->nnodes; i++) {
        cpus += c->nodes[i].cpus;
        gpus += c->nodes[i].gpus;
    }
    const struct conf_part *p = conf_part_default(c);
    printf("slurm.conf: cluster %s, controller %s:%d, SlurmUser %s, %zu node%s (%d CPUs, "
           "%d GPUs), default partition %s\n", c->cluster_name, c->ctld_host, c->ctld_port,
           c->slurm_user ? c->slurm_user : "root", c->nnodes, c->nnodes == 1 ? "" : "s", cpus,
           gpus, p ? p->name : "(none)");
    if (!c->ctld_params || !strstr(c->ctld_params, "enable_configless"))
        printf("slurm.conf: no SlurmctldParameters=enable_configless: nodes and login hosts "
               "cannot fetch it, copy it to each of them\n");
}

/* dir (under --root) for SlurmUser, unless it is there; one that is not
 * SlurmUser's is said. 0, or -1 printed. */
static int user_dir(const struct setup_opts *o, const char *dir, mode_t mode, const char *user)
{
    uid_t uid = 0;
    gid_t gid = 0;
    if (setup_user_ids(user, &uid, &gid) < 0)
        printf("herd setup: no user %s here: %s is root's\n", user, dir);
    char *path = setup_path(o, dir);
    int rc = setup_mkdir(path, mode, uid, gid);
    struct stat st;
    if (rc == 1)
        printf("made %s (%s, mode %04o)\n", path, user, (unsigned)mode);
    else if (rc == 0 && stat(path, &st) == 0 && st.st_uid != uid)
        printf("herd setup: %s is uid %d's, not %s's: herdctld cannot write there "
               "(chown -R %s: %s)\n", path, (int)st.st_uid, user, user, dir);
    free(path);
    return rc < 0 ? -1 : 0;
}

/* StateSaveLocation and the log's directory. 0, or -1 printed. */
static int controller_dirs(const struct setup_opts *o, const struct conf *c)
{
    const char *user = c->slurm_user ? c->slurm_user : "root";
    if (c->state_save && user_dir(o, c->state_save, 0700, user) < 0)
        return -1;
    if (!c->log_file_ctld)
        return 0;
    char *log = xstrdup(c->log_file_ctld);
    int rc = user_dir(o, dirname(log), 0750, user);
    free(log);
    return rc;
}

static void key_copy_lines(const char *host, const char *key)
{
    printf("  scp %s:%s %s\n"
           "  chown munge:munge %s\n"
           "  chmod 0400 %s\n"
           "  systemctl restart munge\n",
           host, key, SETUP_MUNGE_KEY, SETUP_MUNGE_KEY, SETUP_MUNGE_KEY);
}

static void next_steps(const struct conf *c, const char *host, const char *key)
{
    bool node_too = conf_node_find(c, host) != NULL;
    printf("\nNext, on this host (%s), as root:\n"
           "  systemctl enable --now munge herdctld%s\n",
           host, node_too ? " herdd" : "");
    printf("\nOn each GPU server, as root, with herd installed:\n");
    key_copy_lines(c->ctld_host, key);
    printf("  herd setup node --conf-server %s:%d\n"
           "then add the NodeName line it prints to %s here, and here:\n"
           "  systemctl restart herdctld\n",
           c->ctld_host, c->ctld_port, SETUP_SLURM_CONF);
    printf("\nOn each login host, as root, with herd installed:\n");
    key_copy_lines(c->ctld_host, key);
    printf("  herd setup login --conf-server %s:%d\n", c->ctld_host, c->ctld_port);
    printf("\nTo add a node later: the same as for a GPU server (herd setup node there, its\n"
           "NodeName line into %s here, systemctl restart herdctld here:\n"
           "a reconfigure does not add nodes).\n"
           "\nOn any host, `herd doctor` says what is wrong with it, if anything.\n",
           SETUP_SLURM_CONF);
}

/* The file as herd reads it: the directories and the steps. 0 or -1. */
static int after_conf(const struct setup_opts *o, const char *path, const char *host)
{
    char err[512];
    struct conf *c = conf_load(path, err, sizeof err);
    if (!c) {
        fprintf(stderr, "herd setup: herd cannot read %s: %s\n", path, err);
        return -1;
    }
    conf_summary(c);
    int rc = controller_dirs(o, c);
    if (rc == 0)
        next_steps(c, host, o->munge_key ? o->munge_key : SETUP_MUNGE_KEY);
    conf_destroy(c);
    return rc;
}

int setup_controller(const struct setup_opts *o)
{
    char host[256];
    setup_short_host(host, sizeof host);
    if (nodes_valid(o) < 0 || (o->user && !slurm_user(o)))
        return 1;
    char *key = o->munge_key ? xstrdup(o->munge_key) : setup_path(o, SETUP_MUNGE_KEY);
    char *conf = setup_path(o, SETUP_SLURM_CONF);
    int rc = controller_key(key);
    if (rc == 0)
        rc = write_conf(o, conf, host);
    if (rc == 0)
        rc = after_conf(o, conf, host);
    free(key);
    free(conf);
    return rc < 0 ? 1 : 0;
}
