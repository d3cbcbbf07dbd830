/*
 * confd: herdd without a slurm.conf of its own (--conf-server HOST[:PORT],
 * or none given and no file: the DNS SRV record _slurmctld._tcp). It runs
 * from the files fetched into its cache (--conf-cache, default
 * /run/herd/conf), and when a registration answer carries another hash of
 * them (`scontrol reconfigure` on the controller) it fetches them again and
 * starts itself anew from them; jobs run on under their supervisors, as
 * across any restart of herdd.
 */
#ifndef HERD_NODED_CONFD_H
#define HERD_NODED_CONFD_H

#include <stdbool.h>
#include <stddef.h>

struct agent;

struct confd {
    char *server;              /* "host:port"; NULL: not configless */
    char *cache;
    char hash[64];             /* the controller's hash of the files we run from */
    char **argv;               /* ours, to start anew with */
    bool restart;              /* the files changed: re-exec once no step runs here */
};

/* Fetches the files (server NULL: found in DNS) into cache; the path of the
 * fetched slurm.conf (caller frees), or NULL with err. */
char *confd_fetch(struct confd *d, const char *server, const char *cache, char *err,
                  size_t errlen);
/* The answer to a registration named this hash of the files. */
void confd_check(struct agent *a, const char *hash);
/* Each tick: a pending restart happens once no srun step runs here. */
void confd_tick(struct agent *a);
void confd_clear(struct confd *d);

#endif
