#include "up/cluster.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/auth.h"
#include "common/xmalloc.h"
#include "client/clock.h"

#define MUNGE_KEY_BYTES 1024

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* All sockets stay bound until every port is read, so the ports differ.
 * Bound on every address, as herdctld listens: a port some socket holds on
 * another address (a netns bridge, 127.1.2.3) is not offered. */
int cluster_free_ports(int *ports, int n)
{
    int *fds = xcalloc((size_t)n, sizeof *fds);
    int rc = 0, i;
    for (i = 0; i < n; i++) {
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
        socklen_t len = sizeof sa;
        fds[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fds[i] < 0 || bind(fds[i], (struct sockaddr *)&sa, sizeof sa) < 0 ||
            getsockname(fds[i], (struct sockaddr *)&sa, &len) < 0) {
            rc = -1;
            i++;
            break;
        }
        ports[i] = ntohs(sa.sin_port);
    }
    int saved = errno;
    while (i-- > 0)
        if (fds[i] >= 0)
            close(fds[i]);
    xfree(fds);
    errno = saved;
    return rc;
}

/* The one-letter state of /proc/PID/stat, or 0 when there is no such process. */
static char proc_state(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    return (p && p[1] == ' ') ? p[2] : 0;
}

bool cluster_pid_alive(pid_t pid)
{
    if (pid <= 0 || (kill(pid, 0) < 0 && errno != EPERM))
        return false;
    char st = proc_state(pid);
    return st != 0 && st != 'Z' && st != 'X';
}

static bool proc_comm_is(pid_t pid, const char *comm)
{
    char path[64], buf[64] = "";
    snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    if (!fgets(buf, sizeof buf, f))
        buf[0] = '\0';
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
    /* The kernel keeps 15 characters of a name. */
    return strncmp(buf, comm, 15) == 0;
}

pid_t cluster_pid_live(const char *pidfile, const char *comm)
{
    FILE *f = fopen(pidfile, "re");
    if (!f)
        return 0;
    long pid = 0;
    if (fscanf(f, "%ld", &pid) != 1)
        pid = 0;
    fclose(f);
    if (pid <= 0 || !cluster_pid_alive((pid_t)pid) || !proc_comm_is((pid_t)pid, comm))
        return 0;
    return (pid_t)pid;
}

static void child_exec(char *const argv[], const char *errfile, int (*pre)(void *), void *arg)
{
    int in = open("/dev/null", O_RDONLY);
    int out = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
        _exit(127);
    /* The daemon must not die with the terminal herd up ran in. */
    setsid();
    if (pre && pre(arg) < 0)
        _exit(126);
    execvp(argv[0], argv);
    fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

int cluster_spawn_wait(char *const argv[], const char *errfile, int timeout_s)
{
    return cluster_spawn_wait_pre(argv, errfile, timeout_s, NULL, NULL);
}

int cluster_spawn_wait_pre(char *const argv[], const char *errfile, int timeout_s,
                           int (*pre)(void *), void *arg)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0)
        child_exec(argv, errfile, pre, arg);
    int64_t end = client_mono_ms() + (int64_t)timeout_s * 1000;
    int status;
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            break;
        if (r < 0 && errno != EINTR)
            return -1;
        if (client_mono_ms() > end) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return -1;
        }
        sleep_ms(20);
    }
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

void cluster_print_file(const char *path)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return;
    char line[1024];
    while (fgets(line, sizeof line, f))
        fprintf(stderr, "    %s%s", line, strchr(line, '\n') ? "" : "\n");
    fclose(f);
}

static bool any_alive(const pid_t *pids, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (cluster_pid_alive(pids[i]))
            return true;
    return false;
}

static void wait_gone(const pid_t *pids, size_t n, int timeout_ms)
{
    for (int waited = 0; waited < timeout_ms && any_alive(pids, n); waited += 50)
        sleep_ms(50);
}

size_t cluster_stop_pids(const pid_t *pids, size_t n, int timeout_s)
{
    size_t killed = 0;
    for (size_t i = 0; i < n; i++)
        kill(pids[i], SIGTERM);
    wait_gone(pids, n, timeout_s * 1000);
    for (size_t i = 0; i < n; i++) {
        if (cluster_pid_alive(pids[i])) {
            kill(pids[i], SIGKILL);
            killed++;
        }
    }
    if (killed)
        wait_gone(pids, n, 2000);
    return killed;
}

static pid_t proc_ppid(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    int ppid = 0;
    if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1)
        return 0;
    return (pid_t)ppid;
}

static bool is_self_or_ancestor(pid_t pid)
{
    for (pid_t p = getpid(); p > 1; p = proc_ppid(p))
        if (p == pid)
            return true;
    return false;
}

/* Whether the environment of pid holds want and, when also is not NULL, a
 * variable that starts with also. */
static bool proc_env_has(pid_t pid, const char *want, const char *also)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    char *var = NULL;
    size_t cap = 0;
    bool found = false, found_also = also == NULL;
    while (getdelim(&var, &cap, '\0', f) > 0) {
        found = found || strcmp(var, want) == 0;
        found_also = found_also || strncmp(var, also, strlen(also)) == 0;
    }
    free(var);
    fclose(f);
    return found && found_also;
}

size_t cluster_find_strays(const char *conf_path, pid_t **out)
{
    char *want = xasprintf("SLURM_CONF=%s", conf_path);
    DIR *d = opendir("/proc");
    size_t n = 0;
    *out = NULL;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 1 || !cluster_pid_alive((pid_t)pid))
            continue;
        bool daemon = proc_comm_is((pid_t)pid, "herdd") || proc_comm_is((pid_t)pid, "herdctld");
        if (!proc_env_has((pid_t)pid, want, daemon ? NULL : "SLURM_JOB_ID=") ||
            is_self_or_ancestor((pid_t)pid))
            continue;
        *out = xrealloc(*out, (n + 1) * sizeof **out);
        (*out)[n++] = (pid_t)pid;
    }
    if (d)
        closedir(d);
    free(want);
    return n;
}

bool cluster_munge_answers(const char *socket)
{
    char err[256];
    char *cred = auth_munge_encode(socket, err, sizeof err);
    bool ok = cred != NULL;
    free(cred);
    return ok;
}

char *cluster_munge_socket(const char *dir)
{
    return xasprintf("%s/munge/munge.socket", dir);
}

char *cluster_munge_pidfile(const char *dir)
{
    return xasprintf("%s/munge/munged.pid", dir);
}

int cluster_mkdirs(const char *path, mode_t mode)
{
    char *p = xstrdup(path);
    int rc = 0;
    for (char *s = p + 1; rc == 0; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char c = *s;
        *s = '\0';
        if (mkdir(p, mode) < 0 && errno != EEXIST)
            rc = -1;
        *s = c;
        if (c == '\0')
            break;
    }
    int saved = errno;
    xfree(p);
    errno = saved;
    return rc;
}

int cluster_key_make(const char *path)
{
    if (access(path, F_OK) == 0)
        return 0;
    unsigned char key[MUNGE_KEY_BYTES];
    size_t got = 0;
    while (got < sizeof key) {
        ssize_t n = getrandom(key + got, sizeof key - got, 0);
        if (n < 0 && errno != EINTR)
            return -1;
        got += n > 0 ? (size_t)n : 0;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0400);
    if (fd < 0)
        return -1;
    ssize_t w = write(fd, key, sizeof key);
    explicit_bzero(key, sizeof key);
    if (close(fd) < 0 || w != (ssize_t)sizeof key) {
        unlink(path);
        return -1;
    }
    return 0;
}

/* munged refuses some setups (ownership, permissions) that are harmless for
 * a private cluster under DIR; --force turns those refusals into warnings. */
static int munged_run(const char *dir, bool force)
{
    char *sock = cluster_munge_socket(dir), *pid = cluster_munge_pidfile(dir);
    char *key = xasprintf("--key-file=%s/munge/munge.key", dir);
    char *log = xasprintf("--log-file=%s/munge/munged.log", dir);
    char *seed = xasprintf("--seed-file=%s/munge/munged.seed", dir);
    char *sockopt = xasprintf("--socket=%s", sock), *pidopt = xasprintf("--pid-file=%s", pid);
    char *errfile = xasprintf("%s/munge/munged.err", dir);
    const char *bin = access("/usr/sbin/munged", X_OK) == 0 ? "/usr/sbin/munged" : "munged";
    char *argv[] = {(char *)bin, sockopt, key, pidopt, log, seed, force ? "--force" : NULL, NULL};
    int rc = cluster_spawn_wait(argv, errfile, 30);
    if (rc != 0 && force) {
        fprintf(stderr, "herd: error: munged failed to start (log: %s/munge/munged.log):\n", dir);
        cluster_print_file(errfile);
    }
    xfree(sock); xfree(pid); xfree(key); xfree(log); xfree(seed);
    xfree(sockopt); xfree(pidopt); xfree(errfile);
    return rc == 0 ? 0 : -1;
}

int cluster_munge_start(const char *dir)
{
    char *mdir = xasprintf("%s/munge", dir), *keyfile = xasprintf("%s/munge/munge.key", dir);
    char *pidfile = cluster_munge_pidfile(dir), *sock = cluster_munge_socket(dir);
    int rc = -1;
    if (cluster_pid_live(pidfile, "munged") && cluster_munge_answers(sock)) {
        rc = 0;
        goto out;
    }
    if (cluster_mkdirs(mdir, 0755) < 0 || cluster_key_make(keyfile) < 0) {
        fprintf(stderr, "herd: error: %s: %s\n", keyfile, strerror(errno));
        goto out;
    }
    if (munged_run(dir, false) < 0 && munged_run(dir, true) < 0)
        goto out;
    for (int i = 0; i < 100 && rc < 0; i++) {
        if (cluster_munge_answers(sock))
            rc = 0;
        else
            sleep_ms(50);
    }
    if (rc < 0)
        fprintf(stderr, "herd: error: munged does not answer on %s\n", sock);
    else
        fprintf(stderr, "herd: munged started (socket %s)\n", sock);
out:
    xfree(mdir); xfree(keyfile); xfree(pidfile); xfree(sock);
    return rc;
}
