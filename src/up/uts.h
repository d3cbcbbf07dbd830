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

/* Why nodes cannot be named here (unshare(CLONE_NEWUTS) or sethostname is
 * not allowed: not root, a container without CAP_SYS_ADMIN), or NULL.
 * Tried in a child process, so this one's host name never changes. The
 * text lives until the next call. */
const char *uts_unavailable(void);

/* In the child that becomes node's agent, before the exec: a UTS
 * namespace of its own with the node's name. 0, or -1 after saying why
 * on stderr. */
int uts_enter(const char *node);

#endif
