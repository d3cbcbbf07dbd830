/*
 * sysops: the operating system as the node agent sees it, behind a table of
 * function pointers, as SQLite's VFS puts it behind sqlite3_vfs. Every call
 * in src/noded that starts, signals, reaps or execs a process, makes or
 * removes a cgroup or writes one of its files, or loads NVML goes through
 * `sys`. herdd and its supervisors run with sys_ops_default, the real calls;
 * a test installs a table of its own with sys_ops_set to make fork, kill or
 * a cgroup write fail (or NVML answer) where making the real one do so
 * would take root, a full process table or a GPU.
 *
 * Only what a fault-injection test wants to fail is here: plain file I/O in
 * the spool is not (a test makes that fail with a directory of its own),
 * nor what a forked child does before exec besides the calls below.
 */
#ifndef HERD_NODED_SYSOPS_H
#define HERD_NODED_SYSOPS_H

#include <signal.h>
#include <spawn.h>
#include <sys/types.h>

struct sys_ops {
    /* processes: each as its libc namesake (return value and errno) */
    pid_t (*fork)(void);
    int (*execve)(const char *path, char *const argv[], char *const envp[]);
    int (*execvp)(const char *file, char *const argv[]);
    int (*spawn)(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                 const posix_spawnattr_t *attr, char *const argv[], char *const envp[]);
                                                    /* posix_spawn: 0 or an errno */
    int (*kill)(pid_t pid, int sig);                /* pid < 0: a process group */
    int (*sigqueue)(pid_t pid, int sig, const union sigval value);
    pid_t (*waitpid)(pid_t pid, int *status, int options);
    pid_t (*setsid)(void);
    int (*setpgid)(pid_t pid, pid_t pgid);
    /* cgroups: a group is a directory, a knob a file that exists */
    int (*mkdir)(const char *path, mode_t mode);
    int (*rmdir)(const char *path);
    /* Writes val whole to the existing file path (no O_CREAT); 0, or -1
     * with errno set (a short write is -1 too). */
    int (*cg_write)(const char *path, const char *val);
    /* NVML, as dlopen(3), dlsym(3), dlclose(3) (a failing test table's
     * dlopen leaves dlerror(3) with nothing to say: callers allow NULL) */
    void *(*dlopen)(const char *file, int flags);
    void *(*dlsym)(void *lib, const char *name);
    int (*dlclose)(void *lib);
};

/* The real calls. */
extern const struct sys_ops sys_ops_default;

/* The table in use; never NULL. */
extern const struct sys_ops *sys;

/* Installs ops (NULL: the default) and returns the table it replaces. A
 * test's table may copy sys_ops_default and change only what it fails. */
const struct sys_ops *sys_ops_set(const struct sys_ops *ops);

#endif
