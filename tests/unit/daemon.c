/* Unit tests of daemon.c, the one way herdctld and herdd go to the
 * background: the command that starts a daemon exits 0 once the daemon
 * says it serves and 1 when it dies first (what `herd up` reads), and the
 * fork and setsid are the ones the caller passes (herdd's sys_ops). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/daemon.h"

/* Runs daemon_start in a process of its own, as a daemon's main would; the
 * daemon then says it serves (ready) or exits with 3 without a word. The
 * starting process's exit status is returned. */
static int start_status(int ready)
{
    pid_t starter = fork();
    assert_true(starter >= 0);
    if (starter == 0) {
        int fd = daemon_start(NULL);
        if (ready)
            daemon_ready(fd);
        _exit(3);
    }
    int status = 0;
    assert_int_equal(waitpid(starter, &status, 0), starter);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static void test_ready_exits_0(void **state)
{
    (void)state;
    assert_int_equal(start_status(1), 0);
}

static void test_death_before_ready_exits_1(void **state)
{
    (void)state;
    assert_int_equal(start_status(0), 1);
}

static int setsids;

static pid_t fork_as_child(void)
{
    return 0;
}

static pid_t setsid_counted(void)
{
    setsids++;
    return getpid();
}

/* The caller's table is used: a fork that "is the child" returns the
 * descriptor at once, after the caller's setsid. */
static void test_callers_fork_and_setsid(void **state)
{
    (void)state;
    struct daemon_ops ops = { .fork = fork_as_child, .setsid = setsid_counted };
    int fd = daemon_start(&ops);
    assert_true(fd > 2);
    assert_int_equal(setsids, 1);
    close(fd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ready_exits_0),
        cmocka_unit_test(test_death_before_ready_exits_1),
        cmocka_unit_test(test_callers_fork_and_setsid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
