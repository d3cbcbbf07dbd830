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
#define CLIENT_LINES_BUF (256u << 10)   /* client_get_lines: lines longer grow it */
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

/* The value of the header line that starts with name (case aside) among
 * the headers of buf before end, or NULL. */
static const char *header_value(const char *buf, const char *end, const char *name)
{
    size_t n = strlen(name);
    for (const char *h = strstr(buf, "\r\n"); h && h < end; h = strstr(h + 2, "\r\n"))
        if (!strncasecmp(h + 2, name, n))
            return h + 2 + n;
    return NULL;
}

/* The Content-Length of the header block buf[0..end), -1 when it has none. */
static long long content_length(const char *buf, const char *end)
{
    const char *v = header_value(buf, end, "Content-Length:");
    return v ? (long long)strtoull(v, NULL, 10) : -1;
}

/* Whether buf holds a whole answer with a Content-Length (an answer
 * without one ends at EOF). Stopping there spares waiting for the server's
 * close, a tenth of a short command's run. */
static bool answer_complete(const char *buf, size_t n)
{
    const char *end = strstr(buf, "\r\n\r\n");
    long long cl = end ? content_length(buf, end) : -1;
    return cl >= 0 && n - (size_t)(end + 4 - buf) >= (unsigned long long)cl;
}

/* An answer as it is read: buf[0..n), NUL-terminated. */
struct reader {
    int fd;
    char *buf;
    size_t n, cap;
};

/* One read more, the buffer doubled first when full: the bytes read, 0 at
 * EOF, -1 on a read error, a timeout or an answer over the limit. */
static ssize_t reader_more(struct reader *r)
{
    if (r->n + 1 >= r->cap) {
        if (r->cap >= CLIENT_MAX_ANSWER)
            return -1;
        r->cap *= 2;
        r->buf = xrealloc(r->buf, r->cap);
    }
    for (;;) {
        ssize_t k = read(r->fd, r->buf + r->n, r->cap - r->n - 1);
        if (k < 0 && errno == EINTR)
            continue;
        if (k > 0)
            r->n += (size_t)k;
        r->buf[r->n] = '\0';
        return k;
    }
}

/* Reads the rest of the answer; false on a read error or timeout. */
static bool reader_all(struct reader *r)
{
    while (!answer_complete(r->buf, r->n)) {
        ssize_t k = reader_more(r);
        if (k <= 0)
            return k == 0;
    }
    return true;
}

/* Reads the answer; NULL on a read error or timeout. */
static char *client_read_all(int fd, size_t *len)
{
    /* squeue's 10,000 jobs: 750 kB in a few reallocs */
    struct reader r = { fd, xmalloc(64u << 10), 0, 64u << 10 };
    r.buf[0] = '\0';
    if (!reader_all(&r)) {
        free(r.buf);
        return NULL;
    }
    *len = r.n;
    return r.buf;
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
    long long cl = content_length(buf, b);
    b += 4;
    size_t blen = len - (size_t)(b - buf);
    if (cl >= 0 && (unsigned long long)cl < blen)
        blen = (size_t)cl;
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

/* The request written: its connection (*sent false when the write was
 * cut short), or -1 when the controller cannot be reached. */
static int client_request(const char *prog, const char *method, const char *path, json_t *body,
                          bool *sent)
{
    const struct conf *c = client_conf(prog);
    char *auth, *data = body ? json_dumps(body, JSON_COMPACT) : NULL;
    const char *host;
    int fd = client_open(prog, c, &auth, &host);
    if (fd >= 0) {
        size_t dlen = data ? strlen(data) : 0;
        char *req = xasprintf("%s %s HTTP/1.1\r\nHost: %s\r\n%sContent-Type: application/json"
                              "\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
                              method, path, host, auth ? auth : "", dlen, data ? data : "");
        *sent = client_write_all(fd, req, strlen(req)) == 0;
        free(req);
    }
    free(auth);
    free(data);
    return fd;
}

/* The whole answer to one request (caller frees), NULL when none came
 * (why in *fail). A send cut short may still have an answer behind it: the
 * controller refusing a request over its limits before reading it all. */
static char *client_exchange(const char *prog, const char *method, const char *path,
                             json_t *body, size_t *alen, enum client_fail *fail)
{
    bool sent = false;
    int fd = client_request(prog, method, path, body, &sent);
    *fail = FAIL_CONNECT;
    if (fd < 0)
        return NULL;
    char *answer = client_read_all(fd, alen);   /* what is not HTTP fails as none */
    *fail = sent ? FAIL_RECEIVE : FAIL_SEND;
    close(fd);
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

/* A body as it is read: r->buf[0..d) is body not handed over yet, and
 * r->buf[at..n) bytes read and not yet decoded. A chunked body (a streamed
 * answer) is decoded in place; a plain one runs to its Content-Length, or
 * to EOF without one. */
struct body {
    struct reader *r;
    size_t d, at;
    bool chunked, crlf, end;
    unsigned long long left;   /* of the current chunk, or of the plain body */
};

/* Decodes what has been read; -1 on a chunk header that is not one. */
static int body_decode(struct body *b)
{
    struct reader *r = b->r;
    while (b->at < r->n && !b->end) {
        if (b->left) {
            size_t k = r->n - b->at < b->left ? r->n - b->at : (size_t)b->left;
            memmove(r->buf + b->d, r->buf + b->at, k);
            b->d += k;
            b->at += k;
            b->left -= k;
            b->crlf = b->chunked && !b->left;
            b->end = !b->chunked && !b->left;
            continue;
        }
        char *eol = memmem(r->buf + b->at, r->n - b->at, "\r\n", 2);
        if (!eol)
            return r->n - b->at > 64 ? -1 : 0;
        char *end;
        unsigned long long size = strtoull(r->buf + b->at, &end, 16);
        if (b->crlf ? eol != r->buf + b->at : (end == r->buf + b->at || (*end != ';' && end != eol)))
            return -1;
        b->at = (size_t)(eol + 2 - r->buf);
        if (!b->crlf) {
            b->left = size;
            b->end = size == 0;   /* the last chunk; trailers are not read */
        }
        b->crlf = false;
    }
    return 0;
}

/* The complete lines of what is decoded to fn, the rest moved up to the
 * start with what is still to decode; false once fn says stop. */
static bool body_hand(struct body *b, client_line_fn fn, void *arg)
{
    struct reader *r = b->r;
    char *p = r->buf, *end = r->buf + b->d, *nl;
    bool go = true;
    while (go && (nl = memchr(p, '\n', (size_t)(end - p)))) {
        *nl = '\0';
        go = fn(p, (size_t)(nl - p), arg) == 0;
        p = nl + 1;
    }
    size_t tail = (size_t)(end - p), raw = r->n - b->at;
    memmove(r->buf, p, tail);
    memmove(r->buf + tail, r->buf + b->at, raw);
    b->d = tail;
    b->at = tail;
    r->n = tail + raw;
    r->buf[r->n] = '\0';
    return go;
}

/* A 200 answer's body, from what r holds past the header block head, to fn
 * a line at a time as it is read; the last line may lack its newline.
 * -1 when the answer stopped short (of its Content-Length, of its last
 * chunk). */
static int body_lines(struct reader *r, const char *head, client_line_fn fn, void *arg)
{
    size_t hlen = (size_t)(head + 4 - r->buf);
    long long cl = content_length(r->buf, head);
    struct body b = { r, 0, hlen, false, false, false, cl < 0 ? ~0ull : (unsigned long long)cl };
    if (header_value(r->buf, head, "Transfer-Encoding: chunked")) {
        b.chunked = true;
        b.left = 0;
    }
    b.end = !b.chunked && b.left == 0;
    for (;;) {
        if (body_decode(&b) < 0)
            return -1;
        if (!body_hand(&b, fn, arg))
            return 0;
        if (b.end)
            break;
        ssize_t k = reader_more(r);
        if (k < 0 || (k == 0 && (b.chunked || cl >= 0)))
            return -1;
        if (k == 0)
            break;
    }
    r->buf[b.d] = '\0';
    if (b.d)
        fn(r->buf, b.d, arg);
    return 0;
}

int client_get_lines(const char *prog, const char *path, client_line_fn fn, void *arg,
                     json_t **error, char *err, size_t errlen)
{
    bool sent = false;
    *error = NULL;
    int fd = client_request(prog, "GET", path, NULL, &sent), status = -1;
    enum client_fail fail = fd < 0 ? FAIL_CONNECT : sent ? FAIL_RECEIVE : FAIL_SEND;
    struct reader r = { fd, xmalloc(CLIENT_LINES_BUF), 0, CLIENT_LINES_BUF };
    char *head = NULL;
    r.buf[0] = '\0';
    while (fd >= 0 && !(head = strstr(r.buf, "\r\n\r\n")) && reader_more(&r) > 0)
        ;
    if (head && sscanf(r.buf, "HTTP/%*d.%*d %d", &status) != 1)
        status = -1;
    if (status == 200 && body_lines(&r, head, fn, arg) < 0)
        status = -1;
    else if (status > 0 && status != 200) {
        char *body;
        size_t blen;
        if (!reader_all(&r) || client_split_answer(r.buf, r.n, &body, &blen) < 0 ||
            !(*error = json_loadb(body, blen, 0, NULL)))
            *error = json_object();
    }
    if (status < 0)
        snprintf(err, errlen, "%s", fail_text[fail]);
    if (fd >= 0)
        close(fd);
    free(r.buf);
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
