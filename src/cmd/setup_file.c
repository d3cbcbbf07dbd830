/*
 * setup_file: how herd setup writes to a machine's /etc and /var. A file
 * is written whole under a temporary name and only then given its real
 * name, so a crash or a full disk never leaves half a key or half a
 * slurm.conf; an administrator's file is replaced only when asked.
 */
#include "cmd/setup.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/xmalloc.h"

char *setup_path(const struct setup_opts *o, const char *abs)
{
    return xasprintf("%s%s", o->root ? o->root : "", abs);
}

int setup_user_ids(const char *user, uid_t *uid, gid_t *gid)
{
    struct passwd *pw = getpwnam(user);
    if (!pw)
        return -1;
    *uid = pw->pw_uid;
    *gid = pw->pw_gid;
    return 0;
}

/* The parents of path that are missing, made 0755 (owned by whoever runs
 * this: root on a real host). 0, or -1 printed. */
static int mkdir_parents(const char *path)
{
    char *p = xstrdup(path);
    int rc = 0;
    for (char *s = strchr(p + 1, '/'); s && rc == 0; s = strchr(s + 1, '/')) {
        *s = '\0';
        if (mkdir(p, 0755) < 0 && errno != EEXIST) {
            fprintf(stderr, "herd setup: cannot make %s: %s\n", p, strerror(errno));
            rc = -1;
        }
        *s = '/';
    }
    free(p);
    return rc;
}

int setup_mkdir(const char *path, mode_t mode, uid_t uid, gid_t gid)
{
    if (mkdir_parents(path) < 0)
        return -1;
    if (mkdir(path, mode) < 0) {
        if (errno == EEXIST)
            return 0;
        fprintf(stderr, "herd setup: cannot make %s: %s\n", path, strerror(errno));
        return -1;
    }
    /* mkdir's mode passes through the umask; the owner may differ */
    if (chmod(path, mode) < 0 || chown(path, uid, gid) < 0) {
        fprintf(stderr, "herd setup: cannot give %s its owner and mode: %s\n", path,
                strerror(errno));
        return -1;
    }
    return 1;
}

static int write_all(int fd, const char *p, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

/* The temporary file's contents, owner and mode, on disk. 0 or -1 (errno). */
static int fill_tmp(int fd, const void *data, size_t len, mode_t mode, uid_t uid, gid_t gid)
{
    if (write_all(fd, data, len) < 0 || fchmod(fd, mode) < 0 || fchown(fd, uid, gid) < 0 ||
        fsync(fd) < 0)
        return -1;
    return 0;
}

int setup_write_file(const char *path, const void *data, size_t len, mode_t mode, uid_t uid,
                     gid_t gid, bool replace)
{
    if (!replace && access(path, F_OK) == 0)
        return 0;
    if (mkdir_parents(path) < 0)
        return -1;
    char *tmp = xasprintf("%s.XXXXXX", path);
    int fd = mkstemp(tmp);   /* O_EXCL, 0600: no one reads it half written */
    if (fd < 0) {
        fprintf(stderr, "herd setup: cannot write %s: %s\n", path, strerror(errno));
        free(tmp);
        return -1;
    }
    int rc = fill_tmp(fd, data, len, mode, uid, gid);
    int e = errno;
    if (close(fd) < 0 && rc == 0) {
        rc = -1;
        e = errno;
    }
    /* link() fails on an existing path where rename() would replace it: a
     * file that appeared since the check above stays too */
    if (rc == 0 && (replace ? rename(tmp, path) : link(tmp, path)) < 0) {
        rc = -1;
        e = errno;
    }
    if (rc < 0 || !replace)
        unlink(tmp);
    free(tmp);
    if (rc < 0 && e == EEXIST)
        return 0;
    if (rc < 0) {
        fprintf(stderr, "herd setup: cannot write %s: %s\n", path, strerror(e));
        return -1;
    }
    return 1;
}
