#include "noded/sysops.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int real_cg_write(const char *path, const char *val)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t len = strlen(val);
    int rc = write(fd, val, len) == (ssize_t)len ? 0 : -1;
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

const struct sys_ops sys_ops_default = {
    .fork = fork,
    .execve = execve,
    .execvp = execvp,
    .spawn = posix_spawn,
    .kill = kill,
    .sigqueue = sigqueue,
    .waitpid = waitpid,
    .setsid = setsid,
    .setpgid = setpgid,
    .mkdir = mkdir,
    .rmdir = rmdir,
    .cg_write = real_cg_write,
    .dlopen = dlopen,
    .dlsym = dlsym,
    .dlclose = dlclose,
};

const struct sys_ops *sys = &sys_ops_default;

const struct sys_ops *sys_ops_set(const struct sys_ops *ops)
{
    const struct sys_ops *old = sys;
    sys = ops ? ops : &sys_ops_default;
    return old;
}
