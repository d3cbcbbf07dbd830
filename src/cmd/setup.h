/*
 * setup: `herd setup controller|node|login` (herd_setup.c parses and
 * dispatches) and what it shares with `herd doctor` about this machine: its
 * short host name and the node line `herdd -C` prints for it (CPUs, memory,
 * GPUs through NVML). herd itself does not link the node agent's NVML code:
 * it asks herdd, found beside herd or in ../sbin as herd up finds it.
 */
#ifndef HERD_CMD_SETUP_H
#define HERD_CMD_SETUP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define SETUP_MUNGE_KEY "/etc/munge/munge.key"
#define SETUP_SLURM_CONF "/etc/herd/slurm.conf"
#define SETUP_HERDD_DEFAULTS "/etc/default/herdd"

/* herd setup's options, one set for the three roles. */
struct setup_opts {
    const char *root;          /* prefix of every /etc, /var and /run path; "" none */
    const char *munge_key;     /* a key path given as is; NULL: root + SETUP_MUNGE_KEY */
    bool force;                /* overwrite slurm.conf, /etc/default/herdd */
    const char *cluster;       /* controller: ClusterName */
    const char *user;          /* controller: SlurmUser; NULL: herd if it exists, else root */
    int port;                  /* controller: SlurmctldPort */
    char **nodes;              /* controller: NodeName lines; none: this host's */
    size_t nnodes;
    const char *conf_server;   /* node, login: HOST[:PORT] */
    const char *name;          /* node: -N NAME; NULL: the short host name */
};

/* setup_controller.c, setup_host.c: each role; the exit code. */
int setup_controller(const struct setup_opts *o);
int setup_node(const struct setup_opts *o);
int setup_login(const struct setup_opts *o);

/* setup_node.c */
/* This host's name up to the first dot. */
void setup_short_host(char *buf, size_t n);

/* The "NodeName=..." line of `herdd -C [-N name]`, without its newline;
 * caller frees. NULL (after printing why) when herdd cannot say. */
char *setup_node_line(const char *name);

/* The value of KEY=VALUE in a node line ("Gres" -> "gpu:a100:8"); caller
 * frees; NULL when absent. */
char *setup_line_value(const char *line, const char *key);

/* GPUs a Gres= value declares ("gpu:a100:8,gpu:2" -> 10); 0 for none. */
int setup_gres_gpus(const char *gres);

/* setup_file.c */
/* abs (an absolute path) under o->root; caller frees. */
char *setup_path(const struct setup_opts *o, const char *abs);
/* Writes len bytes to path, whole or not at all: a new file beside it,
 * then renamed over path (replace) or linked to it, which never replaces
 * what is there. Missing parents are made (0755). 1: written; 0: path
 * exists and replace is off, nothing written; -1: an error, printed. */
int setup_write_file(const char *path, const void *data, size_t len, mode_t mode, uid_t uid,
                     gid_t gid, bool replace);
/* Makes directory path (mode, owner) and its missing parents (0755,
 * root). 1: made; 0: it was there; -1: an error, printed. */
int setup_mkdir(const char *path, mode_t mode, uid_t uid, gid_t gid);
/* A user's uid and gid; -1 when there is no such user. */
int setup_user_ids(const char *user, uid_t *uid, gid_t *gid);

/* setup_munge.c */
/* Makes a key at path (1024 random bytes, mode 0400, owner munge when that
 * user exists). 0, or -1 printed. */
int setup_munge_make(const char *path);
/* A key that is there is checked and put right (owner munge, no group or
 * other bits), saying what changed. 0: in order; 1: missing; -1: unusable
 * or cannot be put right, printed. */
int setup_munge_check(const char *path);
/* The commands that copy the controller's key to this host, on stderr. */
void setup_munge_copy_hint(const char *ctld_host, const char *path);

/* setup_conf.c */
/* The slurm.conf text of a new cluster; caller frees. */
struct setup_conf {
    const char *cluster, *host, *user;
    int port;
    char *const *nodes;
    size_t nnodes;
};
char *setup_conf_text(const struct setup_conf *sc);
/* The node name of a "NodeName=..." line (a host list: "gpu[01-04]");
 * caller frees; NULL when the line does not start with NodeName=. */
char *setup_conf_node_name(const char *line);

#endif
