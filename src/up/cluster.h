/*
 * cluster: what `herd up` and `herd down` share to run a local cluster's
 * daemons: free TCP ports, pid files checked against the process they name
 * (a pid may have been reused), starting a daemon that forks itself into the
 * background, stopping one with a bounded wait, and the MUNGE daemon that
 * herd starts under DIR/munge when the system has none.
 */
#ifndef HERD_CLUSTER_H
#define HERD_CLUSTER_H

#include <stdbool.h>
#include <sys/types.h>

#define CLUSTER_SYSTEM_MUNGE "/run/munge/munge.socket.2"

/* n distinct free TCP ports on 127.0.0.1 into ports. 0, or -1 with errno. */
int cluster_free_ports(int *ports, int n);

/* The pid a pid file names when that process is alive and is the program
 * comm (its /proc comm); 0 otherwise (no file, stale, a zombie). */
pid_t cluster_pid_live(const char *pidfile, const char *comm);

/* Runs argv (argv[0] a path) with stdin /dev/null and stdout+stderr into
 * errfile, waits up to timeout_s for it to exit (a daemon exits once it has
 * forked into the background). Its exit status, or -1 when it could not be
 * run or did not exit in time (then it is killed). */
int cluster_spawn_wait(char *const argv[], const char *errfile, int timeout_s);

/* The same, with pre(arg) run in the child just before the exec (to enter
 * namespaces); when it returns -1 the child exits 126, what it printed to
 * stderr in errfile. */
int cluster_spawn_wait_pre(char *const argv[], const char *errfile, int timeout_s,
                           int (*pre)(void *), void *arg);

/* Prints the file (what a failed daemon said) to stderr, indented. */
void cluster_print_file(const char *path);

/* SIGTERM to every pid, SIGKILL to those still alive after timeout_s.
 * Returns how many had to be killed. */
size_t cluster_stop_pids(const pid_t *pids, size_t n, int timeout_s);

/* Processes that belong to the cluster of conf_path but are none of its
 * daemons' pid files: job processes left by a node agent that was killed,
 * and daemons started by herd up whose pid file is gone. They are told by
 * their environment (SLURM_CONF=conf_path, and SLURM_JOB_ID or a daemon's
 * name); this process and its ancestors are never listed. Caller frees. */
size_t cluster_find_strays(const char *conf_path, pid_t **out);

/* True when pid is alive (a zombie is not). */
bool cluster_pid_alive(pid_t pid);

/* True when a munged answers on socket (a credential encodes). */
bool cluster_munge_answers(const char *socket);

/* Paths of herd's own munged under dir; caller frees. */
char *cluster_munge_socket(const char *dir);
char *cluster_munge_pidfile(const char *dir);

/* Starts herd's own munged under dir/munge (a key is made the first time)
 * unless it runs. 0, or -1 after printing why. */
int cluster_munge_start(const char *dir);

/* mkdir -p with mode for each directory made. 0, or -1 with errno. */
int cluster_mkdirs(const char *path, mode_t mode);
/* A fresh random key at path (1024 bytes, mode 0400), unless one is there:
 * MUNGE's and auth/jwt's. 0, or -1 with errno. */
int cluster_key_make(const char *path);

#endif
