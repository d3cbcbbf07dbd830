/* scontrol's reader of slurm.conf's plain settings (show config prints the
 * keys Herd does not keep with the file's values). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cmd/scontrol/slurm_file.h"

static char *write_tmp(const char *text)
{
    char *path = strdup("/tmp/herd-unit-slurm-file-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

static void test_settings(void **state)
{
    (void)state;
    char *path = write_tmp("# comment\n"
                           "ProctrackType=proctrack/linuxproc\n"
                           "  TaskPlugin=task/affinity   # trailing\n"
                           "NodeName=n1 State=UNKNOWN Weight=3\n"
                           "PartitionName=p Nodes=n1 MaxTime=10\n"
                           "Prolog=\"/etc/pro log\" InactiveLimit=5\n"
                           "taskplugin=task/cgroup\n");
    struct slurm_file *f = slurm_file_load(path);
    assert_non_null(f);
    assert_string_equal(slurm_file_get(f, "ProctrackType"), "proctrack/linuxproc");
    /* the last value wins, keys match in any case */
    assert_string_equal(slurm_file_get(f, "TASKPLUGIN"), "task/cgroup");
    assert_string_equal(slurm_file_get(f, "InactiveLimit"), "5");
    /* record lines are not settings */
    assert_null(slurm_file_get(f, "State"));
    assert_null(slurm_file_get(f, "MaxTime"));
    assert_null(slurm_file_get(f, "Missing"));
    slurm_file_destroy(f);
    unlink(path);
    free(path);
}

static void test_quotes_and_helpers(void **state)
{
    (void)state;
    char *path = write_tmp("Epilog='/x/epi'\n");
    struct slurm_file *f = slurm_file_load(path);
    assert_string_equal(slurm_file_get(f, "Epilog"), "/x/epi");
    slurm_file_destroy(f);
    unlink(path);
    free(path);
    assert_null(slurm_file_load("/nonexistent/slurm.conf"));
    assert_null(slurm_file_load(NULL));
    slurm_file_destroy(NULL);
    char *b = slurm_file_beside("/etc/herd/slurm.conf", "cgroup.conf");
    assert_string_equal(b, "/etc/herd/cgroup.conf");
    free(b);
    assert_true(slurm_file_yes("YES") && slurm_file_yes("true") && slurm_file_yes("1"));
    assert_false(slurm_file_yes("no") || slurm_file_yes(NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_settings),
        cmocka_unit_test(test_quotes_and_helpers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
