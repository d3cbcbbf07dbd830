#include "up/uts.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int uts_enter(const char *node)
{
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    host[strcspn(host, ".")] = '\0';
    /* the node that describes this machine keeps the machine's own name */
    if (!strcmp(host, node))
        return 0;
    if (unshare(CLONE_NEWUTS) < 0) {
        fprintf(stderr, "herd: cannot make a UTS namespace: %s\n", strerror(errno));
        return -1;
    }
    if (sethostname(node, strlen(node)) < 0) {
        fprintf(stderr, "herd: cannot name the host %s: %s\n", node, strerror(errno));
        return -1;
    }
    return 0;
}

const char *uts_unavailable(void)
{
    static char why[160];
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(why, sizeof why, "fork: %s", strerror(errno));
        return why;
    }
    if (pid == 0) {
        /* the child's errno is its exit status: the parent only names it */
        if (unshare(CLONE_NEWUTS) < 0)
            _exit(errno & 0xff);
        _exit(sethostname("herd-probe", 10) < 0 ? errno & 0xff : 0);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            snprintf(why, sizeof why, "waitpid: %s", strerror(errno));
            return why;
        }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return NULL;
    snprintf(why, sizeof why, "unshare(CLONE_NEWUTS)/sethostname: %s",
             WIFEXITED(status) ? strerror(WEXITSTATUS(status)) : "the probe died");
    return why;
}
