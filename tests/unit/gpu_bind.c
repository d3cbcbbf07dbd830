/* Unit tests of --gpu-bind's check (client/gpu_bind.h) and of the GPUs a
 * job's per-task request counts for (ctld/job_gpus.c), each against what
 * Slurm 22.05 takes and refuses. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "client/gpu_bind.h"
#include "ctld/ctld.h"
#include "noded/gpubind.h"

static void test_taken(void **state)
{
    (void)state;
    char why[128];
    static const char *const ok[] = {
        "closest", "CLOSEST", "none", "none:1", "closestx", "verbose,closest",
        "closest,verbose", "single:1", "single:x", "single:", "per_task:2", "map_gpu:0,1",
        "map_gpu:0*2,1", "mask_gpu:0x1,0x2", "mask_gpu:f*2", "mask_gpu:",
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        assert_true(gpu_bind_valid(ok[i], why, sizeof why));
        assert_string_equal(why, "");
    }
}

static void test_refused(void **state)
{
    (void)state;
    char why[128];
    static const char *const bad[] = { "bogus", "verbose", "verbose,bogus", "map_gpu", ",closest" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_false(gpu_bind_valid(bad[i], why, sizeof why));
        assert_string_equal(why, "");
    }
    assert_false(gpu_bind_valid("map_gpu:zz", why, sizeof why));
    assert_string_equal(why, "Failed to validate zz, offending character is z");
    assert_false(gpu_bind_valid("map_gpu:0xf", why, sizeof why));
    assert_false(gpu_bind_valid("mask_gpu:0x1g", why, sizeof why));
    assert_string_equal(why, "Failed to validate 0x1g, offending character is g");
}

static struct sched_job shape(const char *spec_text, struct sched_job r)
{
    json_t *spec = json_loads(spec_text, 0, NULL);
    assert_non_null(spec);
    job_gpus_shape(&r, spec);
    json_decref(spec);
    return r;
}

static void test_gpus_from_tasks(void **state)
{
    (void)state;
    struct sched_job r;
    /* -N2 --ntasks-per-node=4 --gpus-per-task=1: 4 per node */
    r = shape("{\"gpus_per_task\": 1}", (struct sched_job){ .min_nodes = 2, .ntasks_per_node = 4,
                                                            .cpus_per_task = 1 });
    assert_int_equal(r.gpus_per_node, 4);
    assert_int_equal(r.gpus, 0);
    /* -n3 on one node, 2 each */
    r = shape("{\"gpus_per_task\": 2}", (struct sched_job){ .min_nodes = 1, .ntasks = 3 });
    assert_int_equal(r.gpus_per_node, 6);
    /* -N2 -n4: two tasks a node */
    r = shape("{\"gpus_per_task\": 1}", (struct sched_job){ .min_nodes = 2, .ntasks = 4 });
    assert_int_equal(r.gpus_per_node, 2);
    assert_int_equal(r.gpus, 0);
    /* -N2 -n3 --gpus-per-task=2: the node with two tasks needs 4 */
    r = shape("{\"gpus_per_task\": 2}", (struct sched_job){ .min_nodes = 2, .ntasks = 3 });
    assert_int_equal(r.gpus_per_node, 4);
    /* -N2 alone: one task per node */
    r = shape("{\"gpus_per_task\": 1}", (struct sched_job){ .min_nodes = 2 });
    assert_int_equal(r.gpus_per_node, 1);
    /* a count given per node wins */
    r = shape("{\"gpus_per_task\": 1}", (struct sched_job){ .min_nodes = 1, .ntasks = 2,
                                                            .gpus_per_node = 3 });
    assert_int_equal(r.gpus_per_node, 3);
}

static void test_cpus_and_tasks_per_gpu(void **state)
{
    (void)state;
    struct sched_job r;
    r = shape("{\"gpus_per_task\": 2, \"cpus_per_gpu\": 3}",
              (struct sched_job){ .min_nodes = 1, .ntasks = 2, .cpus_per_task = 1 });
    assert_int_equal(r.cpus_per_task, 6);
    /* --gpus-per-node=2 --cpus-per-gpu=4 with 2 tasks a node: 4 CPUs each */
    r = shape("{\"cpus_per_gpu\": 4}", (struct sched_job){ .min_nodes = 1, .ntasks_per_node = 2,
                                                           .gpus_per_node = 2,
                                                           .cpus_per_task = 1 });
    assert_int_equal(r.cpus_per_task, 4);
    /* --ntasks-per-gpu=2 --gpus=1: two tasks; -n5 --ntasks-per-gpu=2: three GPUs */
    r = shape("{\"ntasks_per_gpu\": 2}", (struct sched_job){ .min_nodes = 1, .gpus = 1 });
    assert_int_equal(r.ntasks, 2);
    r = shape("{\"ntasks_per_gpu\": 2}", (struct sched_job){ .min_nodes = 1, .ntasks = 5 });
    assert_int_equal(r.gpus, 3);
    /* nothing asked per task: nothing changes */
    r = shape("{}", (struct sched_job){ .min_nodes = 1, .ntasks = 2, .cpus_per_task = 1 });
    assert_int_equal(r.gpus + r.gpus_per_node, 0);
    assert_int_equal(r.cpus_per_task, 1);
}

/* The task's GPUs as one string, "2,3", with "!" after when outside. */
static const char *bound(const char *bind, const int *gpus, size_t n, int localid)
{
    static char buf[64];
    int out[8];
    bool outside;
    size_t k = gpubind_task(bind, gpus, n, localid, out, &outside);
    size_t off = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < k; i++)
        off += (size_t)snprintf(buf + off, sizeof buf - off, "%s%d", i ? "," : "", out[i]);
    if (outside)
        snprintf(buf + off, sizeof buf - off, "!");
    return buf;
}

static void test_task_binding(void **state)
{
    (void)state;
    const int g[] = { 2, 3, 5 };
    /* what Slurm did on a node whose step held GPUs 2 and 3 */
    assert_string_equal(bound("map_gpu:3,1", g, 2, 0), "3");
    assert_string_equal(bound("map_gpu:3,1", g, 2, 1), "2!");
    assert_string_equal(bound("mask_gpu:0x3,0x4", g, 2, 0), "2!");
    assert_string_equal(bound("mask_gpu:0x3,0x4", g, 2, 1), "2");
    assert_string_equal(bound("mask_gpu:0x3,0x4", g, 2, 2), "2!");
    assert_string_equal(bound("single:2", g, 2, 0), "2");
    assert_string_equal(bound("single:2", g, 2, 1), "2");
    assert_string_equal(bound("single:2", g, 2, 2), "3");
    assert_string_equal(bound("single:2", g, 2, 3), "3");
    /* repeats, a mask of several, verbose, and the forms that choose nothing */
    assert_string_equal(bound("map_gpu:5*2,2", g, 3, 1), "5");
    assert_string_equal(bound("map_gpu:5*2,2", g, 3, 2), "2");
    assert_string_equal(bound("map_gpu:5*2,2", g, 3, 3), "5");
    assert_string_equal(bound("verbose,mask_gpu:0x2c", g, 3, 0), "2,3,5");
    assert_string_equal(bound("closest", g, 3, 0), "");
    assert_string_equal(bound("none", g, 3, 0), "");
    assert_string_equal(bound("map_gpu:3", g, 0, 0), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_taken),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_gpus_from_tasks),
        cmocka_unit_test(test_cpus_and_tasks_per_gpu),
        cmocka_unit_test(test_task_binding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
