#include "client/selfpath.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"

char *self_dir(void)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return xstrdup(".");
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    return xstrdup(exe);
}

char *self_sibling(const char *prog)
{
    char *dir = self_dir();
    char *p = xasprintf("%s/%s", dir, prog);
    if (access(p, X_OK) != 0) {
        char *sbin = xasprintf("%s/../sbin/%s", dir, prog);
        if (access(sbin, X_OK) == 0) {
            free(p);
            p = sbin;
        } else {
            free(sbin);
        }
    }
    free(dir);
    return p;
}
