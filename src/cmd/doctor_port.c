/* herd doctor: who listens on a TCP port of this host, from /proc (the
 * socket's inode in /proc/net/tcp*, then the process holding it), so that
 * a port taken by something else is named, not just found taken. */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/doctor.h"

#define TCP_LISTEN 0x0A

/* The inode of a socket listening on port, or 0. */
static unsigned long listen_inode(int port)
{
    static const char *const tables[] = { "/proc/net/tcp", "/proc/net/tcp6" };
    for (size_t t = 0; t < 2; t++) {
        FILE *f = fopen(tables[t], "r");
        char line[512];
        while (f && fgets(line, sizeof line, f)) {
            char local[64];
            unsigned st;
            unsigned long ino;
            /* sl local rem st tx:rx tr:when retrnsmt uid timeout inode */
            if (sscanf(line, " %*s %63s %*s %x %*s %*s %*s %*s %*s %lu", local, &st, &ino) != 3)
                continue;
            const char *colon = strrchr(local, ':');
            if (st == TCP_LISTEN && colon && strtol(colon + 1, NULL, 16) == port) {
                fclose(f);
                return ino;
            }
        }
        if (f)
            fclose(f);
    }
    return 0;
}

static bool holds(const char *pid, const char *want)
{
    char path[300], link[64];
    snprintf(path, sizeof path, "/proc/%s/fd", pid);
    DIR *d = opendir(path);
    struct dirent *e;
    bool found = false;
    while (d && !found && (e = readdir(d))) {
        char fd[600];
        snprintf(fd, sizeof fd, "%s/%s", path, e->d_name);
        ssize_t n = readlink(fd, link, sizeof link - 1);
        found = n > 0 && (link[n] = '\0', !strcmp(link, want));
    }
    if (d)
        closedir(d);
    return found;
}

const char *doctor_port_holder(int port)
{
    static char who[400];
    unsigned long ino = listen_inode(port);
    if (!ino)
        return "";
    char want[48];
    snprintf(want, sizeof want, "socket:[%lu]", ino);
    DIR *proc = opendir("/proc");
    struct dirent *e;
    const char *found = NULL;
    while (proc && !found && (e = readdir(proc))) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9' || !holds(e->d_name, want))
            continue;
        char path[300], comm[64] = "?";
        snprintf(path, sizeof path, "/proc/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (f && fgets(comm, sizeof comm, f))
            comm[strcspn(comm, "\n")] = '\0';
        if (f)
            fclose(f);
        snprintf(who, sizeof who, "%s (pid %s)", comm, e->d_name);
        found = who;
    }
    if (proc)
        closedir(proc);
    return found;
}
