#include "cmd/setup.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client/selfpath.h"
#include "common/xmalloc.h"

void setup_short_host(char *buf, size_t n)
{
    if (gethostname(buf, n) < 0 || !buf[0])
        snprintf(buf, n, "localhost");
    buf[n - 1] = '\0';
    buf[strcspn(buf, ".")] = '\0';
}

char *setup_node_line(const char *name)
{
    char *path = self_sibling("herdd");
    int fds[2];
    if (pipe(fds) < 0) {
        fprintf(stderr, "herd: cannot run herdd -C: %s\n", strerror(errno));
        free(path);
        return NULL;
    }
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execlp(path, "herdd", "-C", "-N", name, (char *)NULL);
        fprintf(stderr, "herd: cannot run %s: %s\n", path, strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    char *line = NULL;
    FILE *f = pid > 0 ? fdopen(fds[0], "r") : NULL;
    if (f) {
        char buf[4096];
        while (fgets(buf, sizeof buf, f))
            if (!line && !strncmp(buf, "NodeName=", 9)) {
                buf[strcspn(buf, "\n")] = '\0';
                line = xstrdup(buf);
            }
        fclose(f);
    } else {
        close(fds[0]);
    }
    int status = 0;
    if (pid > 0)
        waitpid(pid, &status, 0);
    if (!line)
        fprintf(stderr, "herd: %s -C printed no node line%s\n", path,
                pid < 0 ? " (cannot fork)" : "");
    free(path);
    return line;
}

char *setup_line_value(const char *line, const char *key)
{
    size_t klen = strlen(key);
    for (const char *p = line; (p = strcasestr(p, key)) != NULL; p += klen)
        if ((p == line || p[-1] == ' ') && p[klen] == '=')
            return xstrndup(p + klen + 1, strcspn(p + klen + 1, " \t"));
    return NULL;
}

int setup_gres_gpus(const char *gres)
{
    int total = 0;
    for (const char *p = gres; p && *p;) {
        size_t len = strcspn(p, ",");
        if (!strncmp(p, "gpu", 3) && (p[3] == ':' || p[3] == ',' || !p[3] || len == 3)) {
            const char *colon = memrchr(p, ':', len);
            long n = colon ? strtol(colon + 1, NULL, 10) : 1;
            total += n > 0 ? (int)n : 1;
        }
        p += len + (p[len] == ',');
    }
    return total;
}
