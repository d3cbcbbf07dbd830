/*
 * confless: a host without a slurm.conf of its own (Slurm's "configless"
 * mode). herdd --conf-server HOST[:PORT], or `herd conf-fetch` on a login
 * host, fetches slurm.conf, gres.conf and cgroup.conf from a controller with
 * SlurmctldParameters=enable_configless (GET /v1/config, MUNGE-
 * authenticated) into a cache directory (/run/herd/conf by default), from
 * which it then runs. Without --conf-server the controller is found as
 * Slurm finds it: the DNS SRV record _slurmctld._tcp of the host's domain.
 */
#ifndef HERD_CONFLESS_H
#define HERD_CONFLESS_H

#include <stddef.h>

#define CONFLESS_CACHE "/run/herd/conf"
#define CONFLESS_PORT 6817

/* "host[:port]" into host and *port (CONFLESS_PORT when absent). 0 or -1. */
int confless_server_parse(const char *s, char *host, size_t n, int *port);
/* The controller from DNS: the SRV record _slurmctld._tcp with the lowest
 * priority. 0, or -1 with err. */
int confless_srv_lookup(char *host, size_t n, int *port, char *err, size_t errlen);
/* Fetches the files into cache_dir (created; each file written whole, then
 * renamed; a file the controller no longer serves removed). munge_socket
 * NULL: MUNGE's default, or $HERD_MUNGE_SOCKET. hash (when not NULL)
 * receives the controller's hash of the files. 0, or -1 with err. */
int confless_fetch(const char *host, int port, const char *munge_socket, const char *cache_dir,
                   char *hash, size_t hashlen, char *err, size_t errlen);

#endif
