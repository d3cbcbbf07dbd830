/*
 * outtail: POST /v1/output, the last bytes of a job's output file, for the
 * dashboard's job page. Only the controller may ask (uid 0), and only for
 * the job's owner or an admin; it names the path and the job's uid and gid.
 * The path is the user's to choose (a symlink to /etc/shadow, say), so the
 * file is never opened as root: a child drops to the job's uid and gid (no
 * other groups) before it opens it, refuses a final symlink (O_NOFOLLOW)
 * and anything but a regular file, and hands at most OUTTAIL_MAX bytes
 * back through a pipe. What the user could not read, nobody reads here.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/http.h"
#include "common/rawstr.h"
#include "common/slurm_errno.h"
#include "common/xmalloc.h"
#include "noded/agent.h"

#define OUTTAIL_MAX (256 * 1024)

/* The child: drop, open, seek to the tail, copy it to fd. Writes a header
 * "ERRNO SIZE\n" first. Never returns. */
static void tail_child(int fd, const char *path, uid_t uid, gid_t gid, size_t want)
{
    int err = 0;
    int64_t size = 0;
    int in = -1;
    if (setgroups(1, &gid) < 0 || setgid(gid) < 0 || setuid(uid) < 0)
        err = errno ? errno : EPERM;
    if (!err && (in = open(path, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)) < 0)
        err = errno;
    struct stat st;
    if (!err && fstat(in, &st) < 0)
        err = errno;
    if (!err && !S_ISREG(st.st_mode))
        err = EINVAL;
    if (!err) {
        size = st.st_size;
        if ((int64_t)want < size && lseek(in, (off_t)(size - (int64_t)want), SEEK_SET) < 0)
            err = errno;
    }
    dprintf(fd, "%d %lld\n", err, (long long)size);
    char buf[16384];
    for (size_t left = want; !err && left > 0;) {
        ssize_t n = read(in, buf, left < sizeof buf ? left : sizeof buf);
        if (n <= 0 || write(fd, buf, (size_t)n) != n)
            break;
        left -= (size_t)n;
    }
    _exit(0);
}

/* Runs the child and collects what it wrote; -1 with errno, else the
 * bytes in *out (NUL-terminated, caller frees) and the file's size. */
static int tail_read(const char *path, uid_t uid, gid_t gid, size_t want, char **out,
                     size_t *len, int64_t *size)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(p[0]);
        close(p[1]);
        errno = e;
        return -1;
    }
    if (pid == 0) {
        close(p[0]);
        tail_child(p[1], path, uid, gid, want);
    }
    close(p[1]);
    size_t cap = want + 64, n = 0;
    char *buf = xmalloc(cap + 1);
    for (;;) {
        ssize_t k = read(p[0], buf + n, cap - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        n += (size_t)k;
        if (n == cap)
            break;
    }
    close(p[0]);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    buf[n] = '\0';
    int err = 0;
    long long sz = 0;
    char *nl = memchr(buf, '\n', n);
    if (!nl || sscanf(buf, "%d %lld", &err, &sz) != 2)
        err = EIO;
    if (err) {
        free(buf);
        errno = err;
        return -1;
    }
    *len = n - (size_t)(nl + 1 - buf);
    memmove(buf, nl + 1, *len);
    buf[*len] = '\0';
    *out = buf;
    *size = sz;
    return 0;
}

void outtail_req(struct http_req *r)
{
    char *path = json_rawstr_value(json_object_get(r->body, "path"));
    json_t *ju = json_object_get(r->body, "uid"), *jg = json_object_get(r->body, "gid");
    json_int_t want = json_integer_value(json_object_get(r->body, "bytes"));
    if (!path || path[0] != '/' || !json_is_integer(ju) || !json_is_integer(jg)
        || json_integer_value(ju) <= 0 || json_integer_value(jg) < 0) {
        /* uid 0 never: the point is to read as someone who is not root */
        free(path);
        http_reply_error(r, 400, SLURM_ERROR, "output request needs path, uid (not 0), gid");
        return;
    }
    if (want <= 0 || want > OUTTAIL_MAX)
        want = OUTTAIL_MAX;
    char *data = NULL;
    size_t len = 0;
    int64_t size = 0;
    if (tail_read(path, (uid_t)json_integer_value(ju), (gid_t)json_integer_value(jg),
                  (size_t)want, &data, &len, &size) < 0) {
        int e = errno;
        free(path);
        http_reply_error(r, e == ENOENT ? 404 : 403, SLURM_ERROR, "%s", strerror(e));
        return;
    }
    free(path);
    /* bytes as they are (rawstr), a NUL shown as a space: JSON text holds no NUL */
    for (size_t i = 0; i < len; i++)
        if (data[i] == '\0')
            data[i] = ' ';
    json_t *o = json_pack("{s:o, s:I, s:b}", "data", json_rawstr(data), "size", (json_int_t)size,
                          "truncated", size > (int64_t)len);
    free(data);
    http_reply(r, 200, o);
}
