#include "common/daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "common/log.h"

/* The parent's side: 0 only for the child's one zero byte; EOF (the child
 * died, its message on stderr) or anything else is a failed start. */
static __attribute__((noreturn)) void parent_wait(int fd)
{
    char b = 1;
    ssize_t n;
    while ((n = read(fd, &b, 1)) < 0 && errno == EINTR)
        ;
    _exit(n == 1 && b == 0 ? 0 : 1);
}

int daemon_start(const struct daemon_ops *ops)
{
    pid_t (*fork_fn)(void) = ops && ops->fork ? ops->fork : fork;
    pid_t (*setsid_fn)(void) = ops && ops->setsid ? ops->setsid : setsid;
    int p[2];
    /* Close-on-exec: what the child later runs (herdd's supervisors) must
     * not hold the write end and so keep the parent waiting. */
    if (pipe2(p, O_CLOEXEC) < 0)
        fatal("pipe");
    pid_t pid = fork_fn();
    if (pid < 0)
        fatal("fork");
    if (pid > 0) {
        close(p[1]);
        parent_wait(p[0]);
    }
    close(p[0]);
    setsid_fn();
    return p[1];
}

void daemon_ready(int fd)
{
    if (fd < 0)
        return;
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, 0);
        dup2(null, 1);
        if (log_take_stderr() < 0)
            dup2(null, 2);
        if (null > 2)
            close(null);
    }
    char b = 0;
    ssize_t n = write(fd, &b, 1);
    (void)n;
    close(fd);
}
