/*
 * daemon: how herdctld and herdd go to the background, written once. The
 * parent stays until the child says it serves (the parent exits 0) or the
 * child dies first (exit 1; the child's fatal message is already on the
 * stderr the two share until daemon_ready). `herd up` relies on that: a
 * daemon that cannot start is a failed command with its reason on stderr.
 */
#ifndef HERD_DAEMON_H
#define HERD_DAEMON_H

#include <sys/types.h>

/* The calls daemon_start makes, so that herdd can pass its sys_ops ones
 * (a test may make them fail); NULL members: libc's. */
struct daemon_ops {
    pid_t (*fork)(void);
    pid_t (*setsid)(void);
};

/* Forks (fatal if it cannot); returns only in the child, in a session of
 * its own, with the descriptor to give daemon_ready. ops NULL: libc's. */
int daemon_start(const struct daemon_ops *ops);

/* The child serves: stdin, stdout and stderr to /dev/null, then the word
 * to the waiting parent. fd < 0 (run in the foreground): nothing. */
void daemon_ready(int fd);

#endif
