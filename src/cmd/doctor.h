/*
 * doctor: `herd doctor`, a host checked the way an admin would check it by
 * hand, each finding said in plain words: the MUNGE key and munged, the
 * controller (reachable, same key, same clock, same configuration files),
 * and by the host's role the controller's state directory and port, or a
 * node's cgroups, NVML, port and spool. One line a check; exit 1 when any
 * fails.
 */
#ifndef HERD_CMD_DOCTOR_H
#define HERD_CMD_DOCTOR_H

#include <stdbool.h>

struct conf;

enum doctor_role { ROLE_LOGIN, ROLE_CONTROLLER, ROLE_NODE };

struct doctor {
    const char *munge_key;     /* the key file; default /etc/munge/munge.key */
    const char *munge_socket;  /* $HERD_MUNGE_SOCKET; NULL: munged's default */
    const char *conf_path;     /* this host's slurm.conf (or a fetched copy) */
    struct conf *conf;         /* NULL when this host has none and none came */
    char fetched[64];          /* where a configless host's files were fetched; "" */
    char ctld_host[256];       /* the controller as reached: --conf-server, */
    int ctld_port;             /* slurm.conf, or DNS SRV; "" when unknown */
    bool munged_ok;            /* munged gave this host a credential */
    bool ctld_answers;         /* whether /v1/ping answered as herdctld */
    enum doctor_role role;
    char node[256];            /* the node this host is, for ROLE_NODE */
    int failures, warnings;
};

enum doctor_verdict { DOC_OK, DOC_WARN, DOC_FAIL };

/* Prints one finding ("ok    munge key   ...") and counts it. */
void doctor_say(struct doctor *d, enum doctor_verdict v, const char *check, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

void doctor_munge(struct doctor *d);       /* doctor_munge.c: key file, munged */
void doctor_controller(struct doctor *d);  /* doctor_ctld.c: reach, key, clock, hash */
void doctor_ctld_host(struct doctor *d);   /* doctor_dirs.c: StateSaveLocation, port */
void doctor_node_host(struct doctor *d);   /* doctor_dirs.c: spool, port; doctor_hw.c: */
void doctor_cgroups(struct doctor *d);     /* cgroups, */
void doctor_nvml(struct doctor *d);        /* NVML */

/* Removes what doctor_controller fetched. */
void doctor_forget_fetched(struct doctor *d);

/* Who holds TCP port on this host ("herdd (pid 12)"), "" when it is free;
 * NULL when taken by a process this user cannot see. Static buffer. */
const char *doctor_port_holder(int port);

#endif
