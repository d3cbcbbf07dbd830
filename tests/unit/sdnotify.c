/* Unit tests of sdnotify: the datagrams reach a bound socket, by path and
 * by abstract name, and nothing happens without $NOTIFY_SOCKET. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/sdnotify.h"

/* A datagram socket bound to name ('@': abstract); its descriptor. */
static int bind_dgram(const char *name)
{
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    assert_true(fd >= 0);
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    size_t len = strlen(name);
    memcpy(sa.sun_path, name, len);
    if (name[0] == '@')
        sa.sun_path[0] = '\0';
    socklen_t salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len +
                                  (name[0] == '@' ? 0 : 1));
    assert_int_equal(bind(fd, (struct sockaddr *)&sa, salen), 0);
    return fd;
}

static void expect_datagram(int fd, const char *want)
{
    char buf[256];
    ssize_t n = recv(fd, buf, sizeof buf - 1, MSG_DONTWAIT);
    assert_true(n >= 0);
    buf[n] = '\0';
    assert_string_equal(buf, want);
}

static void test_path(void **state)
{
    (void)state;
    char dir[] = "/tmp/sdnotify-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/notify", dir);
    int fd = bind_dgram(path);
    setenv("NOTIFY_SOCKET", path, 1);
    assert_int_equal(sd_notify_state("READY=1"), 1);
    expect_datagram(fd, "READY=1");
    assert_int_equal(sd_notify_state("STOPPING=1"), 1);
    expect_datagram(fd, "STOPPING=1");
    close(fd);
    unlink(path);
    rmdir(dir);
    unsetenv("NOTIFY_SOCKET");
}

static void test_abstract(void **state)
{
    (void)state;
    char name[64];
    snprintf(name, sizeof name, "@herd-sdnotify-test-%d", (int)getpid());
    int fd = bind_dgram(name);
    setenv("NOTIFY_SOCKET", name, 1);
    assert_int_equal(sd_notify_state("RELOADING=1"), 1);
    expect_datagram(fd, "RELOADING=1");
    close(fd);
    unsetenv("NOTIFY_SOCKET");
}

static void test_unset_and_bad(void **state)
{
    (void)state;
    unsetenv("NOTIFY_SOCKET");
    assert_int_equal(sd_notify_state("READY=1"), 0);
    setenv("NOTIFY_SOCKET", "relative/path", 1);
    assert_int_equal(sd_notify_state("READY=1"), -1);
    setenv("NOTIFY_SOCKET", "/nonexistent/herd/notify", 1);
    assert_int_equal(sd_notify_state("READY=1"), -1);
    unsetenv("NOTIFY_SOCKET");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_path),
        cmocka_unit_test(test_abstract),
        cmocka_unit_test(test_unset_and_bad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
