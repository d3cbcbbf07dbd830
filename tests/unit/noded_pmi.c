/* Unit tests of herdd's PMI server (src/noded/pmi.h): PMI-1 as Debian's
 * MPICH speaks it, the fence handed to srun and back, PMI-2's framing, the
 * process mapping, and a task sending garbage cut off. */
#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include <event2/event.h>

#include "noded/pmi.h"

struct world {
    struct event_base *base;
    struct pmi *pmi;
    int fd[2];
    char *fenced;          /* what the last fence_out sent */
    int fences, aborts, abort_code;
};

static void fence_out(void *arg, const char *puts, size_t len)
{
    struct world *w = arg;
    free(w->fenced);
    w->fenced = strndup(puts, len);
    w->fences++;
}

static void on_abort(void *arg, int rank, int code, const char *msg)
{
    (void)rank;
    (void)msg;
    struct world *w = arg;
    w->aborts++;
    w->abort_code = code;
}

static int setup(void **state)
{
    struct world *w = calloc(1, sizeof *w);
    w->base = event_base_new();
    struct pmi_info info = { .first_rank = 4, .ntasks = 2, .size = 6, .jobid = "12.0",
                             .mapping = "(vector,(0,3,2))" };
    w->pmi = pmi_new(w->base, &info, (struct pmi_hooks){ fence_out, on_abort, w });
    for (int i = 0; i < 2; i++)
        w->fd[i] = pmi_task_socket(w->pmi, i);
    *state = w;
    return 0;
}

static int teardown(void **state)
{
    struct world *w = *state;
    pmi_free(w->pmi);
    for (int i = 0; i < 2; i++)
        close(w->fd[i]);
    event_base_free(w->base);
    free(w->fenced);
    free(w);
    return 0;
}

static void pump(struct world *w)
{
    for (int i = 0; i < 5; i++)
        event_base_loop(w->base, EVLOOP_NONBLOCK);
}

static void say(struct world *w, int task, const char *msg)
{
    assert_int_equal(write(w->fd[task], msg, strlen(msg)), (ssize_t)strlen(msg));
    pump(w);
}

/* What the server has written to task's socket so far. */
static char *heard(struct world *w, int task)
{
    static char buf[4096];
    usleep(1000);
    ssize_t n = recv(w->fd[task], buf, sizeof buf - 1, MSG_DONTWAIT);
    buf[n > 0 ? n : 0] = '\0';
    return buf;
}

/* The server hung up: EOF, or a reset since our bytes were left unread. */
static bool closed(int fd)
{
    char buf[16];
    ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    return n == 0 || (n < 0 && errno == ECONNRESET);
}

static void test_pmi1_handshake(void **state)
{
    struct world *w = *state;
    say(w, 0, "cmd=init pmi_version=1 pmi_subversion=1\n");
    assert_string_equal(heard(w, 0), "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n");
    say(w, 0, "cmd=get_maxes\ncmd=get_appnum\ncmd=get_my_kvsname\ncmd=get_universe_size\n");
    assert_string_equal(heard(w, 0),
                        "cmd=maxes rc=0 kvsname_max=256 keylen_max=256 vallen_max=1024\n"
                        "cmd=appnum rc=0 appnum=0\n"
                        "cmd=my_kvsname rc=0 kvsname=12.0\n"
                        "cmd=universe_size rc=0 size=6\n");
    say(w, 0, "cmd=get kvsname=12.0 key=PMI_process_mapping\n");
    assert_string_equal(heard(w, 0), "cmd=get_result rc=-1 msg=key_PMI_process_mapping_not_found "
                                     "value=unknown\n");
}

static void test_fence_goes_to_srun_and_back(void **state)
{
    struct world *w = *state;
    say(w, 0, "cmd=put kvsname=12.0 key=a value=1\ncmd=barrier_in\n");
    assert_string_equal(heard(w, 0), "cmd=put_result rc=0 msg=success\n");
    assert_int_equal(w->fences, 0);    /* task 1 is not in yet */
    say(w, 1, "cmd=put kvsname=12.0 key=b value=2\ncmd=barrier_in\n");
    assert_int_equal(w->fences, 1);
    assert_string_equal(w->fenced, "{\"a\":\"1\",\"b\":\"2\"}");
    assert_string_equal(heard(w, 0), "");   /* held until every node is in */
    json_t *all = json_pack("{s:s, s:s, s:s}", "a", "1", "b", "2", "c", "3");
    pmi_fence_in(w->pmi, all);
    pmi_fence_in(w->pmi, all);   /* a repeated answer changes nothing */
    json_decref(all);
    pump(w);
    assert_string_equal(heard(w, 0), "cmd=barrier_out rc=0\n");
    assert_string_equal(heard(w, 1), "cmd=put_result rc=0 msg=success\ncmd=barrier_out rc=0\n");
    say(w, 1, "cmd=get kvsname=12.0 key=c\n");
    assert_string_equal(heard(w, 1), "cmd=get_result rc=0 msg=success value=3\n");
}

static void test_pmi2_framing(void **state)
{
    struct world *w = *state;
    say(w, 0, "cmd=init pmi_version=2 pmi_subversion=0\n");
    assert_string_equal(heard(w, 0), "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n");
    say(w, 0, "44    cmd=info-getjobattr;key=PMI_process_mapping;");
    assert_string_equal(heard(w, 0), "68    cmd=info-getjobattr-response;found=TRUE;"
                                     "value=(vector,(0,3,2));rc=0;");
    say(w, 0, "29    cmd=kvs-put;key=k;value=x;;y;");
    assert_string_equal(heard(w, 0), "26    cmd=kvs-put-response;rc=0;");
    say(w, 0, "29    cmd=kvs-get;jobid=12.0;key=k;");
    assert_string_equal(heard(w, 0), "48    cmd=kvs-get-response;found=TRUE;value=x;;y;rc=0;");
    say(w, 0, "22    cmd=abort;message=bye;");
    assert_int_equal(w->aborts, 1);
}

static void test_garbage_cuts_the_task_off(void **state)
{
    struct world *w = *state;
    say(w, 0, "cmd=init pmi_version=2 pmi_subversion=0\n");
    heard(w, 0);
    say(w, 0, "xx    cmd=finalize;");
    assert_string_equal(heard(w, 0), "");
    assert_true(closed(w->fd[0]));
    char *big = malloc(70000);
    memset(big, 'a', 69999);
    big[69999] = '\0';
    say(w, 1, big);
    free(big);
    assert_true(closed(w->fd[1]));
}

static void test_mapping(void **state)
{
    (void)state;
    char *m = pmi_mapping((int[]){ 2, 2, 2, 1, 3 }, 5);
    assert_string_equal(m, "(vector,(0,3,2),(3,1,1),(4,1,3))");
    free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_pmi1_handshake, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fence_goes_to_srun_and_back, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pmi2_framing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_garbage_cuts_the_task_off, setup, teardown),
        cmocka_unit_test(test_mapping),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
