/*
 * netns_int: what the files of the netns module share and nothing else
 * uses: the paths under DIR/netns, running `ip`, reading links in sysfs,
 * writing the hosts file.
 */
#ifndef HERD_NETNS_INT_H
#define HERD_NETNS_INT_H

#include <stdbool.h>

struct conf;

/* DIR/netns/NODE.net and DIR/netns/hosts; caller frees. */
char *netns_handle_path(const char *dir, const char *node);
char *netns_hosts_path(const char *dir);

/* Where iproute2's ip is, NULL when it is not installed. */
const char *netns_ip_path(void);

/* Runs `ip ARGS...` (NULL-terminated), inside the network namespace of
 * handle unless it is NULL. 0, or -1 after printing what ip said (unless
 * quiet). */
int netns_ip(const char *dir, const char *handle, int quiet, ...);

/* Whether the link name exists on the host. */
bool netns_link_exists(const char *name);

/* The link's alias (empty when it has none), NULL when there is no such
 * link; caller frees. */
char *netns_link_alias(const char *name);

/* Writes the cluster's names (controller and nodes) to DIR/netns/hosts,
 * in place: agents that run have it mounted. 0, or -1 after printing why. */
int netns_hosts_write(const char *dir, const struct conf *c);

#endif
