/* One request to herdd's local socket: see adopt_client.h. */
#include "pam/adopt_client.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "pam/clock.h"

#define MAX_REPLY (1 << 20)

/* Waits for fd to be ready for ev until deadline; 0, or -1 (ETIMEDOUT). */
static int wait_fd(int fd, short ev, long long deadline)
{
    for (;;) {
        long long left = deadline - pam_clock_ms();
        if (left <= 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        struct pollfd p = { .fd = fd, .events = ev };
        int n = poll(&p, 1, (int)left);
        if (n > 0)
            return 0;
        if (n < 0 && errno != EINTR)
            return -1;
    }
}

static int send_all(int fd, const char *buf, size_t len, long long deadline)
{
    while (len) {
        if (wait_fd(fd, POLLOUT, deadline) < 0)
            return -1;
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            continue;
        if (n < 0)
            return -1;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Whether buf holds a whole answer: headers, and the body Content-Length says. */
static int complete(const char *buf, size_t len)
{
    const char *hend = memmem(buf, len, "\r\n\r\n", 4);
    if (!hend)
        return 0;
    const char *cl = strcasestr(buf, "\r\ncontent-length:");
    if (!cl || cl > hend)
        return 0;       /* till the server closes */
    size_t want = (size_t)strtoul(cl + 17, NULL, 10);
    return len - (size_t)(hend + 4 - buf) >= want;
}

/* Reads the answer into a NUL-terminated buffer; NULL on error (errno). */
static char *recv_all(int fd, long long deadline, size_t *lenp)
{
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (len + 1 >= cap) {
            char *nb = cap >= MAX_REPLY ? NULL : realloc(buf, cap * 2);
            if (!nb) {
                errno = EMSGSIZE;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        buf[len] = '\0';
        if (complete(buf, len)) {
            *lenp = len;
            return buf;
        }
        if (wait_fd(fd, POLLIN, deadline) < 0)
            break;
        ssize_t n = recv(fd, buf + len, cap - 1 - len, MSG_DONTWAIT);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            continue;
        if (n < 0)
            break;
        if (n == 0) {
            *lenp = len;
            return buf;
        }
        len += (size_t)n;
    }
    int e = errno;
    free(buf);
    errno = e;
    return NULL;
}

static int connect_to(const char *path, long long deadline)
{
    struct sockaddr_un sun = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof sun.sun_path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(sun.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&sun, sizeof sun) < 0
        && !(errno == EINPROGRESS || errno == EAGAIN)) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    if (wait_fd(fd, POLLOUT, deadline) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

int adopt_call(const char *sock_path, const char *method, const char *path, const json_t *body,
               int timeout_ms, json_t **reply, char *err, size_t errlen)
{
    long long deadline = pam_clock_ms() + timeout_ms;
    *reply = NULL;
    char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
    char head[512];
    int hl = snprintf(head, sizeof head,
                      "%s %s HTTP/1.0\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                      "Content-Length: %zu\r\n\r\n", method, path, text ? strlen(text) : 0);
    if (hl < 0 || (size_t)hl >= sizeof head || (body && !text)) {
        free(text);
        snprintf(err, errlen, "request too large");
        return -1;
    }
    int fd = connect_to(sock_path, deadline);
    if (fd < 0) {
        snprintf(err, errlen, "cannot connect to %s: %s", sock_path, strerror(errno));
        free(text);
        return -1;
    }
    size_t len = 0;
    char *ans = NULL;
    if (send_all(fd, head, (size_t)hl, deadline) == 0
        && (!text || send_all(fd, text, strlen(text), deadline) == 0))
        ans = recv_all(fd, deadline, &len);
    int e = errno;
    close(fd);
    free(text);
    int status = -1;
    if (!ans || sscanf(ans, "HTTP/%*d.%*d %d", &status) != 1) {
        snprintf(err, errlen, "no answer from %s: %s", sock_path,
                 ans ? "not HTTP" : strerror(e));
        free(ans);
        return -1;
    }
    const char *b = memmem(ans, len, "\r\n\r\n", 4);
    if (b)
        *reply = json_loads(b + 4, JSON_DISABLE_EOF_CHECK, NULL);
    free(ans);
    return status;
}
