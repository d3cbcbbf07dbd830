/*
 * uts: the default cluster's nodes as hosts by name. Without --netns the
 * emulated nodes share this machine; each node agent still gets a UTS
 * namespace of its own named after its node, so that `hostname` in a job
 * says the node's name and Open MPI, which tells hosts apart by name, does
 * not take ranks on two nodes for ranks on one host (its shared-memory
 * transport would crash). The network stays the machine's.
 */
#ifndef HERD_UP_UTS_H
#define HERD_UP_UTS_H

struct conf;

/* Writes DIR/run/hosts: this machine's /etc/hosts and a line per node of
 * c. 0, or -1 after saying why on stderr. */
int uts_hosts_write(const char *dir, const struct conf *c);

/* Why nodes cannot be named here (unshare(CLONE_NEWUTS) or sethostname is
 * not allowed: not root, a container without CAP_SYS_ADMIN), or NULL.
 * Tried in a child process, so this one's host name never changes. The
 * text lives until the next call. */
const char *uts_unavailable(void);

/* In the child that becomes node's agent, before the exec: UTS and mount
 * namespaces of its own, the node's name, DIR/run/hosts on /etc/hosts.
 * The node that describes this machine (named as it is) keeps the
 * machine's. 0, or -1 after saying why on stderr. */
int uts_enter(const char *dir, const char *node);

#endif
