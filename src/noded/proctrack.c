#include "noded/proctrack.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "noded/sysops.h"

#define KILL_WAIT_MS 5000

struct pp {
    pid_t pid, ppid;
};

int proctrack_init(void)
{
    return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

static pid_t stat_ppid(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *rp = strrchr(buf, ')');
    char state;
    long ppid;
    if (!rp || sscanf(rp + 1, " %c %ld", &state, &ppid) != 2)
        return -1;
    return (pid_t)ppid;
}

/* Every process with its parent. */
static struct pp *scan(size_t *n)
{
    *n = 0;
    DIR *d = opendir("/proc");
    if (!d)
        return NULL;
    size_t cap = 256;
    struct pp *v = xmalloc(cap * sizeof *v);
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 1)
            continue;
        pid_t ppid = stat_ppid((pid_t)pid);
        if (ppid < 0)
            continue;
        if (*n == cap)
            v = xrealloc(v, (cap *= 2) * sizeof *v);
        v[(*n)++] = (struct pp){ (pid_t)pid, ppid };
    }
    closedir(d);
    return v;
}

/* Marks the descendants of root; their pids in out, the count returned. */
static size_t descendants(const struct pp *v, size_t n, pid_t root, pid_t *out)
{
    size_t k = 0;
    out[k++] = root;
    for (size_t head = 0; head < k; head++)
        for (size_t i = 0; i < n; i++)
            if (v[i].ppid == out[head])
                out[k++] = v[i].pid;
    memmove(out, out + 1, (k - 1) * sizeof *out);
    return k - 1;
}

int proctrack_signal(int sig, pid_t skip)
{
    size_t n;
    struct pp *v = scan(&n);
    if (!v)
        return 0;
    pid_t *d = xmalloc((n + 1) * sizeof *d);
    size_t k = descendants(v, n, getpid(), d);
    int sent = 0;
    for (size_t i = 0; i < k; i++)
        if (d[i] != skip)
            sent += sys->kill(d[i], sig) == 0;
    free(d);
    free(v);
    return sent;
}

int proctrack_reap_all(void)
{
    struct timespec ts = { 0, 1000000L };
    for (int waited = 0; waited < KILL_WAIT_MS; waited++) {
        pid_t p;
        while ((p = sys->waitpid(-1, NULL, WNOHANG)) > 0)
            ;
        if (p < 0)
            return 0;      /* ECHILD: none left */
        nanosleep(&ts, NULL);
    }
    return -1;
}

int proctrack_kill_all(void)
{
    struct timespec ts = { 0, 20 * 1000000L };
    for (int waited = 0; ; waited += 20) {
        while (sys->waitpid(-1, NULL, WNOHANG) > 0)
            ;
        if (proctrack_signal(SIGKILL, 0) == 0)
            return 0;
        if (waited >= KILL_WAIT_MS)
            return -1;
        nanosleep(&ts, NULL);
    }
}
