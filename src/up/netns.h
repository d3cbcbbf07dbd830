/*
 * netns: the network of `herd up --netns`. Each emulated node's agent runs
 * in network, UTS and mount namespaces of its own, so that the programs of
 * its jobs (MPI, PyTorch) see distinct hosts: the node's name as host name,
 * an address of its own, every other node by name. On the host, one bridge
 * per cluster (hbXXXXXXXX, XXXXXXXX a hash of DIR, its alias "herd DIR"
 * says whose) holds the controller's address (.254 of a private /24); each
 * node has a veth pair (hvXXXXXXXX-I on the bridge, eth0 inside) and a
 * namespace handle DIR/netns/NODE.net (a bind mount of the namespace), so
 * that its network outlives a restart of its agent. DIR/netns/hosts, the
 * cluster's names, is the nodes' /etc/hosts. The links are made with `ip`
 * from iproute2; joining and naming with setns, unshare, sethostname, mount.
 */
#ifndef HERD_NETNS_H
#define HERD_NETNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct conf;

/* Addresses .1 to .253 of the /24 are nodes', .254 the controller's. */
#define NETNS_MAX_NODES 253
#define NETNS_CTLD_OCTET 254

/* The hash of DIR (absolute) that the cluster's link names carry. */
uint32_t netns_dir_hash(const char *dir);

/* Whether DIR's cluster was made with --netns (DIR/netns exists). */
bool netns_enabled(const char *dir);

/* Why namespaces cannot be used here (not root, no `ip`), or NULL. */
const char *netns_unavailable(void);

/* Marks DIR's cluster as one with namespaces (makes DIR/netns). 0 or -1
 * after printing why. */
int netns_mark(const char *dir);

/* A private /24 that no address or route of this machine touches, for a
 * new cluster in dir: its first three octets into base ("10.213.7"). 0, or
 * -1 after printing why. */
int netns_pick_subnet(const char *dir, char *base, size_t n);

/* Makes what is missing of the cluster's network: the bridge with
 * c->ctld_addr, the hosts file, each node's namespace (at its NodeAddr)
 * and veth. A node whose agent runs keeps its own. 0, or -1 after printing
 * why (what this call made stays until netns_down). */
int netns_up(const char *dir, const struct conf *c);

/* In the child that becomes node's agent, before the exec: joins the
 * node's network namespace, makes UTS and mount namespaces of its own,
 * names the host after the node and mounts the hosts file over /etc/hosts.
 * 0, or -1 after saying why on stderr. */
int netns_enter(const char *dir, const char *node);

/* Removes the cluster's veths, namespace handles and bridge (once nothing
 * runs in them); says what on stderr. DIR/netns stays, the mark. */
void netns_down(const char *dir);

#endif
