/* Unit tests of the supervisor's helpers: --signal specs, the node-side
 * configuration reader, CPU and GPU device lists, usage in the spool. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/conf.h"
#include "noded/detect.h"
#include "noded/jobctl.h"
#include "noded/jobsig.h"
#include "noded/jobspec.h"
#include "noded/nodeconf.h"
#include "noded/spool.h"

static void test_signal_spec(void **state)
{
    (void)state;
    struct jobsig_warn w;
    assert_int_equal(jobsig_parse("B:USR1@30", &w), 0);
    assert_int_equal(w.sig, SIGUSR1);
    assert_int_equal(w.before_s, 30);
    assert_true(w.batch_only);
    assert_int_equal(jobsig_parse("SIGUSR2", &w), 0);
    assert_int_equal(w.sig, SIGUSR2);
    assert_int_equal(w.before_s, 60);
    assert_false(w.batch_only);
    assert_int_equal(jobsig_parse("R:10@5", &w), 0);
    assert_int_equal(w.sig, 10);
    assert_int_equal(jobsig_parse("", &w), 0);
    assert_int_equal(w.sig, 0);
    assert_int_equal(jobsig_parse("X:USR1", &w), -1);
    assert_int_equal(jobsig_parse("NOPE@3", &w), -1);
    assert_int_equal(jobsig_parse("USR1@", &w), -1);
    assert_int_equal(jobsig_number("term"), SIGTERM);
    assert_int_equal(jobsig_number("0"), -1);
}

static char *write_tmp(const char *dir, const char *name, const char *text)
{
    char *path;
    assert_true(asprintf(&path, "%s/%s", dir, name) > 0);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static void test_nodeconf(void **state)
{
    (void)state;
    char dir[] = "/tmp/herd-nodeconf-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *conf = write_tmp(dir, "slurm.conf",
                           "# Prolog=/not/this\nTaskPlugin=task/affinity,task/cgroup\n"
                           "proctracktype=proctrack/cgroup\nProlog=\"/etc/p.sh\"\n");
    char *cg = write_tmp(dir, "cgroup.conf", "ConstrainRAMSpace=yes\nConstrainCores=no\n"
                         "ConstrainDevices=YES # comment\n");
    struct nodeconf nc;
    assert_int_equal(nodeconf_load(&nc, conf), 0);
    assert_true(nc.task_cgroup);
    assert_true(nc.proctrack_cgroup);
    assert_true(nc.constrain_ram);
    assert_false(nc.constrain_cores);
    assert_true(nc.constrain_devices);
    assert_string_equal(nc.prolog, "/etc/p.sh");
    assert_null(nc.epilog);
    assert_string_equal(nc.cgroup_mount, "/sys/fs/cgroup");
    nodeconf_clear(&nc);
    unlink(cg);
    assert_int_equal(nodeconf_load(&nc, conf), 0);
    assert_false(nc.constrain_ram);       /* no cgroup.conf: no constraint */
    nodeconf_clear(&nc);
    unlink(conf);
    assert_int_equal(nodeconf_load(&nc, conf), -1);
    nodeconf_clear(&nc);
    rmdir(dir);
    free(conf);
    free(cg);
}

static void test_cpuset(void **state)
{
    (void)state;
    int ids[] = { 0, 1, 2, 5, 9 };
    struct job_spec js = { .cpu_ids = ids, .ncpu_ids = 5 };
    char *s = jobctl_cpuset(&js, 16);
    assert_string_equal(s, "0-2,5,9");
    free(s);
    s = jobctl_cpuset(&js, 2);            /* emulated CPUs folded onto two real ones */
    assert_string_equal(s, "0-1");
    free(s);
    js.ncpu_ids = 0;
    assert_null(jobctl_cpuset(&js, 2));
}

static void test_gpu_devs(void **state)
{
    (void)state;
    char *devs[] = { "c 195:0", "c 195:1", "", "c 195:3", NULL };
    int gpus[] = { 1 };
    struct job_spec js = { .gpu_devs = devs, .ngpu_devs = 4, .gpus = gpus, .ngpus = 1 };
    char **deny = jobctl_deny_devs(&js);
    assert_string_equal(deny[0], "c 195:0");
    assert_string_equal(deny[1], "c 195:3");
    assert_null(deny[2]);
    for (size_t i = 0; deny[i]; i++)
        free(deny[i]);
    free(deny);

    struct conf_node n = { .name = "n1", .gpus = 2 };
    int minors[] = { 7, -1 };
    struct detect d = { .ngpus = 2, .gpu_minors = minors };
    char **v = detect_gpu_devs(&n, &d);
    assert_string_equal(v[0], "c 195:7");
    assert_string_equal(v[1], "c 195:1");
    assert_null(v[2]);
    for (size_t i = 0; v[i]; i++)
        free(v[i]);
    free(v);
}

static void test_usage_in_spool(void **state)
{
    (void)state;
    char dir[] = "/tmp/herd-usage-XXXXXX";
    assert_non_null(mkdtemp(dir));
    struct job_result r = { .state = "OUT_OF_MEMORY", .exit_signal = 125, .end_time = 9 }, b;
    r.usage = (struct job_usage){ true, 10, 1500, 1000, 500, 2048, 2, 20, "cgroup" };
    assert_int_equal(spool_result_write(dir, &r), 0);
    assert_int_equal(spool_result_read(dir, &b), 0);
    assert_true(b.usage.known);
    assert_int_equal(b.usage.total_cpu_ms, 1500);
    assert_int_equal(b.usage.gpu_seconds, 20);
    assert_string_equal(b.usage.source, "cgroup");
    json_t *u = spool_usage_json(&b);
    assert_int_equal(json_integer_value(json_object_get(u, "exit_signal")), 125);
    assert_int_equal(json_integer_value(json_object_get(u, "max_rss_kb")), 2048);
    json_decref(u);
    r.usage.known = false;
    assert_null(spool_usage_json(&r));
    assert_int_equal(spool_rmtree(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_signal_spec),
        cmocka_unit_test(test_nodeconf),
        cmocka_unit_test(test_cpuset),
        cmocka_unit_test(test_gpu_devs),
        cmocka_unit_test(test_usage_in_spool),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
