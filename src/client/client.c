/*
 * The only hand-written HTTP in the tree: libevent 2.1's evhttp cannot make
 * client connections over a Unix socket, and a command needs exactly one
 * blocking request, so this writes it and reads the answer to EOF.
 */
#include "client/client.h"

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "client/cmdutil.h"
#include "common/auth.h"
#include "common/conf.h"
#include "common/xmalloc.h"
#include "client/clock.h"

#define CLIENT_TIMEOUT_S 60
#define CLIENT_MAX_ANSWER (256u << 20)
#define CONNECT_FAILURE "Unable to contact slurm controller (connect failure)"

static struct conf *client_conf_cache;

static void client_conf_free(void)
{
    conf_destroy(client_conf_cache);
    client_conf_cache = NULL;
}

const struct conf *client_conf(const char *prog)
{
    if (client_conf_cache)
        return client_conf_cache;
    char err[512];
    client_conf_cache = conf_load(conf_default_path(), err, sizeof err);
    if (!client_conf_cache) {
        cmd_error(prog, "%s", err);
        exit(1);
    }
    atexit(client_conf_free);
    return client_conf_cache;
}

static void client_set_timeouts(int fd)
{
    struct timeval tv = {.tv_sec = CLIENT_TIMEOUT_S};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

/* A connected socket, or -1 with errno set. */
static int client_connect_unix(const char *path)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof sa.sun_path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(sa.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    client_set_timeouts(fd);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

/* A connected socket, or -1 with errno set (EHOSTUNREACH: no address). */
static int client_connect_tcp(const char *host, int port)
{
    char service[16];
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res, *ai;
    snprintf(service, sizeof service, "%d", port);
    if (getaddrinfo(host, service, &hints, &res) != 0) {
        errno = EHOSTUNREACH;
        return -1;
    }
    int fd = -1, e = EHOSTUNREACH;
    for (ai = res; ai && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            e = errno;
            continue;
        }
        client_set_timeouts(fd);
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
            e = errno;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    errno = e;
    return fd;
}

/* MSG_NOSIGNAL: a controller that closes early (a request over its
 * limits) is an error to report, not a SIGPIPE that kills the command. */
static int client_write_all(int fd, const char *buf, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, buf, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        buf += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Whether buf holds a whole answer with a Content-Length (an answer
 * without one ends at EOF). Stopping there spares waiting for the server's
 * close, a tenth of a short command's run. */
static bool answer_complete(char *buf, size_t n)
{
    buf[n] = '\0';
    char *end = strstr(buf, "\r\n\r\n");
    if (!end)
        return false;
    for (char *h = strstr(buf, "\r\n"); h && h < end; h = strstr(h + 2, "\r\n"))
        if (!strncasecmp(h + 2, "Content-Length:", 15))
            return n - (size_t)(end + 4 - buf) >= strtoul(h + 17, NULL, 10);
    return false;
}

/* Reads the answer; NULL on a read error or timeout. */
static char *client_read_all(int fd, size_t *len)
{
    size_t cap = 64u << 10, n = 0;   /* squeue's 10,000 jobs: 750 kB in a few reallocs */
    char *buf = xmalloc(cap);
    for (;;) {
        if (n + 1 >= cap) {
            if (cap >= CLIENT_MAX_ANSWER) {
                free(buf);
                return NULL;
            }
            cap *= 2;
            buf = xrealloc(buf, cap);
        }
        ssize_t r = read(fd, buf + n, cap - n - 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            free(buf);
            return NULL;
        }
        if (r == 0)
            break;
        n += (size_t)r;
        if (answer_complete(buf, n))
            break;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* Status and body (*body into buf, *blen bytes) of an answer; -1 when it
 * is not HTTP. */
static int client_split_answer(char *buf, size_t len, char **body, size_t *blenp)
{
    int status;
    if (sscanf(buf, "HTTP/%*d.%*d %d", &status) != 1)
        return -1;
    char *b = strstr(buf, "\r\n\r\n");
    if (!b)
        return -1;
    b += 4;
    size_t blen = len - (size_t)(b - buf);
    for (const char *h = strstr(buf, "\r\n"); h && h + 2 < b; h = strstr(h + 2, "\r\n")) {
        if (!strncasecmp(h + 2, "Content-Length:", 15)) {
            size_t cl = strtoul(h + 17, NULL, 10);
            if (cl < blen)
                blen = cl;
            break;
        }
    }
    *body = b;
    *blenp = blen;
    return status;
}

static int client_parse_answer(char *buf, size_t len, json_t **resp)
{
    char *body;
    size_t blen;
    int status = client_split_answer(buf, len, &body, &blen);
    if (status < 0)
        return -1;
    *resp = blen ? json_loadb(body, blen, 0, NULL) : NULL;
    if (!*resp)
        *resp = json_object();
    return status;
}

/* One try at the controller: its Unix socket when this host has it, else
 * TCP with a MUNGE credential (made once, kept in *auth for the next try:
 * a credential no connection carried was never decoded). -1 with errno
 * set; *fatal when another try cannot help (no credential). */
static int client_open_once(const char *prog, const struct conf *c, char **auth,
                            const char **host, bool *fatal)
{
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/herdctld.sock", c->state_save);
    if (stat(path, &st) == 0 && S_ISSOCK(st.st_mode)) {
        *host = "localhost";
        free(*auth);
        *auth = NULL;
        return client_connect_unix(path);
    }
    if (!*auth) {
        char err[256];
        char *cred = auth_munge_encode(c->munge_socket, err, sizeof err);
        if (!cred) {
            cmd_error(prog, "%s", err);
            *fatal = true;
            return -1;
        }
        *auth = xasprintf("Authorization: Munge %s\r\n", cred);
        free(cred);
    }
    *host = c->ctld_addr;
    return client_connect_tcp(c->ctld_addr, c->ctld_port);
}

/* Nothing listens there yet: a controller starting, or restarting. */
static bool connect_retryable(int e)
{
    return e == ECONNREFUSED || e == ENOENT || e == EAGAIN;
}

/* The connection and, over TCP, the Authorization header (caller frees).
 * As Slurm's commands, a controller that is not there is tried again, less
 * often as it stays away (50 ms doubling to 1 s), for MessageTimeout. */
static int client_open(const char *prog, const struct conf *c, char **auth, const char **host)
{
    int64_t deadline = client_mono_ms() + (int64_t)c->msg_timeout * 1000;
    bool fatal = false;
    *auth = NULL;
    for (long ms = 50;; ms = ms < 500 ? ms * 2 : 1000) {
        int fd = client_open_once(prog, c, auth, host, &fatal);
        if (fd >= 0 || fatal || !connect_retryable(errno))
            return fd;
        int64_t left = deadline - client_mono_ms();
        if (left <= 0)
            return -1;
        long wait = left < ms ? (long)left : ms;
        nanosleep(&(struct timespec){ wait / 1000, wait % 1000 * 1000000 }, NULL);
    }
}

/* Why no answer came, in Slurm's words. */
enum client_fail { FAIL_CONNECT, FAIL_SEND, FAIL_RECEIVE };

static const char *const fail_text[] = {
    [FAIL_CONNECT] = CONNECT_FAILURE,
    [FAIL_SEND] = "Unable to contact slurm controller (send failure)",
    [FAIL_RECEIVE] = "Unable to contact slurm controller (receive failure)",
};

/* The whole answer to one request (caller frees), NULL when none came
 * (why in *fail). A send cut short may still have an answer behind it: the
 * controller refusing a request over its limits before reading it all. */
static char *client_exchange(const char *prog, const char *method, const char *path,
                             json_t *body, size_t *alen, enum client_fail *fail)
{
    const struct conf *c = client_conf(prog);
    char *auth, *data = body ? json_dumps(body, JSON_COMPACT) : NULL, *answer = NULL;
    const char *host;
    int fd = client_open(prog, c, &auth, &host);
    *fail = FAIL_CONNECT;
    if (fd >= 0) {
        size_t dlen = data ? strlen(data) : 0;
        char *req = xasprintf("%s %s HTTP/1.1\r\nHost: %s\r\n%sContent-Type: application/json"
                              "\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
                              method, path, host, auth ? auth : "", dlen, data ? data : "");
        bool sent = client_write_all(fd, req, strlen(req)) == 0;
        answer = client_read_all(fd, alen);   /* what is not HTTP fails as none */
        *fail = sent ? FAIL_RECEIVE : FAIL_SEND;
        free(req);
        close(fd);
    }
    free(auth);
    free(data);
    return answer;
}

int client_call(const char *prog, const char *method, const char *path, json_t *body,
                json_t **resp, char *err, size_t errlen)
{
    size_t alen;
    int status = -1;
    enum client_fail fail;
    *resp = NULL;
    char *answer = client_exchange(prog, method, path, body, &alen, &fail);
    if (answer)
        status = client_parse_answer(answer, alen, resp);
    free(answer);
    if (status < 0)
        snprintf(err, errlen, "%s", fail_text[fail]);
    return status;
}

int client_get_text(const char *prog, const char *path, char **text, size_t *len,
                    json_t **error, char *err, size_t errlen)
{
    size_t alen;
    char *body;
    int status = -1;
    enum client_fail fail;
    *text = NULL;
    *error = NULL;
    char *answer = client_exchange(prog, "GET", path, NULL, &alen, &fail);
    if (answer && (status = client_split_answer(answer, alen, &body, len)) == 200) {
        memmove(answer, body, *len);
        answer[*len] = '\0';
        *text = answer;
        return status;
    }
    if (status > 0 && !(*error = json_loadb(body, *len, 0, NULL)))
        *error = json_object();
    free(answer);
    if (status < 0)
        snprintf(err, errlen, "%s", fail_text[fail]);
    return status;
}

const char *client_error_text(json_t *resp, int status)
{
    const char *e = jget_str(resp, "error", NULL);
    if (e && *e)
        return e;
    if (status == 413)   /* the server's limit on a request: a script over it */
        return "Pathname of a file, directory or other parameter too long";
    return status == 401 || status == 403 ? "Access/permission denied"
                                          : "Unexpected message received";
}
