/* Unit tests of client_get_lines (src/client/client.h), against a fake
 * controller on a Unix socket that writes canned answers in pieces: lines
 * split across reads, a line longer than the reader's buffer, the last line
 * without its newline, nothing past the Content-Length handed over, an
 * answer without one read to EOF, an error answer's JSON, an answer cut
 * short, a reader that stops early, and a streamed (chunked) answer, whole
 * and cut short. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "client/client.h"
#include "common/xmalloc.h"

#define BIG 300000   /* longer than the reader's 256 KiB buffer */

static char dir[] = "/tmp/herd-client-lines-XXXXXX";
static pid_t server;

/* The answers, one per connection, in the order the tests ask. */
static char *answer(int i)
{
    static const char *const fixed[] = {
        NULL,
        "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\na\nb\n",
        "HTTP/1.1 404 Not Found\r\nContent-Length: 15\r\n\r\n{\"error\":\"no\"}\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n1\n2\n3\n4\n5",
        /* streamed: chunks that cut lines, an extension, the last chunk */
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        "4\r\n{\"no\r\n18;x=y\r\nw\":1}\nfirst\nsecond half \r\n5\r\nof it\r\n0\r\n\r\n",
        /* streamed and cut short: no last chunk */
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nwhole\n\r\n3\r\npa",
    };
    if (i > 0)
        return xstrdup(fixed[i]);
    char *big = xmalloc(BIG + 1);
    memset(big, 'x', BIG);
    big[BIG] = '\0';
    char *body = xasprintf("{\"now\":1}\nline2\n%s\nlast", big);
    char *a = xasprintf("HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n\r\n%sGARBAGE\n",
                        strlen(body), body);
    free(big);
    free(body);
    return a;
}

/* Writes a in pieces that cut lines and the header block anywhere. */
static void serve(int lfd)
{
    signal(SIGPIPE, SIG_IGN);   /* a reader that stops early closes first */
    for (int i = 0; i < 7; i++) {
        int c = accept(lfd, NULL, NULL);
        char req[4096];
        size_t n = 0;
        while (n < sizeof req - 1 && !memmem(req, n, "\r\n\r\n", 4)) {
            ssize_t k = read(c, req + n, sizeof req - 1 - n);
            if (k <= 0)
                break;
            n += (size_t)k;
        }
        char *a = answer(i);
        size_t len = strlen(a), at = 0;
        static const size_t pieces[] = { 3, 40, 7, 65536, 1, 200000 };
        for (size_t p = 0; at < len; p = (p + 1) % 6) {
            size_t k = pieces[p] < len - at ? pieces[p] : len - at;
            if (write(c, a + at, k) != (ssize_t)k)
                break;
            at += k;
            usleep(200);
        }
        free(a);
        close(c);
    }
    _exit(0);
}

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(dir))
        return -1;
    char *conf = xasprintf("%s/slurm.conf", dir), *sock = xasprintf("%s/herdctld.sock", dir);
    FILE *f = fopen(conf, "w");
    fprintf(f, "ClusterName=t\nSlurmctldHost=localhost\nStateSaveLocation=%s\n"
               "NodeName=n1 CPUs=1\nPartitionName=p Nodes=n1 Default=YES\n", dir);
    fclose(f);
    setenv("SLURM_CONF", conf, 1);
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", sock);
    int lfd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (bind(lfd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(lfd, 8) < 0)
        return -1;
    free(conf);
    free(sock);
    if ((server = fork()) == 0)
        serve(lfd);
    close(lfd);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    int st;
    waitpid(server, &st, 0);
    char *cmd = xasprintf("rm -rf %s", dir);
    int rc = system(cmd);
    free(cmd);
    return rc;
}

struct got {
    char *lines[8];
    size_t len[8];
    size_t n, stop_at;
};

static int take(char *line, size_t len, void *arg)
{
    struct got *g = arg;
    assert_int_equal(strlen(line), len);
    g->len[g->n] = len;
    g->lines[g->n++] = xstrdup(line);
    return g->n == g->stop_at;
}

static void got_free(struct got *g)
{
    for (size_t i = 0; i < g->n; i++)
        free(g->lines[i]);
}

static int get(struct got *g, json_t **error, char *err)
{
    return client_get_lines("t", "/v1/x", take, g, error, err, 256);
}

static void test_answers(void **state)
{
    (void)state;
    json_t *error;
    char err[256];
    struct got g = {0};
    assert_int_equal(get(&g, &error, err), 200);
    assert_int_equal(g.n, 4);
    assert_string_equal(g.lines[0], "{\"now\":1}");
    assert_string_equal(g.lines[1], "line2");
    assert_int_equal(g.len[2], BIG);
    assert_int_equal(strspn(g.lines[2], "x"), BIG);
    assert_string_equal(g.lines[3], "last");   /* no newline; nothing past the body */
    got_free(&g);

    struct got eof = {0};   /* no Content-Length: to EOF */
    assert_int_equal(get(&eof, &error, err), 200);
    assert_int_equal(eof.n, 2);
    assert_string_equal(eof.lines[1], "b");
    got_free(&eof);

    struct got none = {0};   /* an error answer: its JSON, no lines */
    assert_int_equal(get(&none, &error, err), 404);
    assert_int_equal(none.n, 0);
    assert_string_equal(client_error_text(error, 404), "no");
    json_decref(error);

    struct got cut = {0};   /* shorter than it said: a receive failure */
    assert_int_equal(get(&cut, &error, err), -1);
    assert_non_null(strstr(err, "receive failure"));
    got_free(&cut);

    struct got early = { .stop_at = 2 };   /* the reader stops: no more lines */
    assert_int_equal(get(&early, &error, err), 200);
    assert_int_equal(early.n, 2);
    assert_string_equal(early.lines[1], "2");
    got_free(&early);

    struct got chunked = {0};
    assert_int_equal(get(&chunked, &error, err), 200);
    assert_int_equal(chunked.n, 3);
    assert_string_equal(chunked.lines[0], "{\"now\":1}");
    assert_string_equal(chunked.lines[1], "first");
    assert_string_equal(chunked.lines[2], "second half of it");
    got_free(&chunked);

    struct got stream_cut = {0};
    assert_int_equal(get(&stream_cut, &error, err), -1);
    assert_int_equal(stream_cut.n, 1);
    got_free(&stream_cut);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_answers),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
