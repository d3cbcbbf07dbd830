/* Unit tests of herdd's job side: the launch JSON's validation, the job's
 * environment and Slurm's filename patterns. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "noded/jobenv.h"
#include "noded/jobspec.h"

static const char *job_json =
    "{\"job_id\": 42, \"name\": \"train\", \"script\": \"#!/bin/sh\\ntrue\\n\","
    " \"user_id\": 1000, \"group_id\": 100, \"user_name\": \"alice\","
    " \"partition\": \"gpu\", \"node_name\": \"node3\", \"node_list\": \"node[3-4]\","
    " \"num_nodes\": 2, \"ntasks\": 4, \"cpus_per_task\": 2, \"cpus_per_task_set\": true,"
    " \"node_cpus\": 8, \"node_gpus\": [1, 3], \"work_dir\": \"/home/alice/run\","
    " \"submit_dir\": \"/home/alice\", \"submit_host\": \"login1\", \"cluster_name\": \"c1\","
    " \"environment\": [\"PATH=/bin\", \"SLURM_JOB_ID=999\", \"CUDA_VISIBLE_DEVICES=7\"],"
    " \"time_limit\": 10, \"start_time\": 1000}";

static struct job_spec *spec_from(const char *text)
{
    json_t *o = json_loads(text, JSON_ALLOW_NUL, NULL);
    assert_non_null(o);
    char err[256] = "";
    struct job_spec *js = job_spec_from_json(o, err, sizeof err);
    json_decref(o);
    return js;
}

static const char *env_get(char **env, const char *key)
{
    size_t n = strlen(key);
    for (size_t i = 0; env[i]; i++)
        if (strncmp(env[i], key, n) == 0 && env[i][n] == '=')
            return env[i] + n + 1;
    return NULL;
}

static size_t env_count(char **env, const char *key)
{
    size_t n = strlen(key), c = 0;
    for (size_t i = 0; env[i]; i++)
        c += strncmp(env[i], key, n) == 0 && env[i][n] == '=';
    return c;
}

static void test_env_slurm_vars(void **state)
{
    (void)state;
    struct job_spec *js = spec_from(job_json);
    assert_non_null(js);
    char **env = jobenv_build(js, "/etc/herd/slurm.conf", 4321);
    assert_string_equal(env_get(env, "PATH"), "/bin");
    assert_string_equal(env_get(env, "SLURM_JOB_ID"), "42");
    assert_int_equal(env_count(env, "SLURM_JOB_ID"), 1);
    assert_string_equal(env_get(env, "SLURM_JOBID"), "42");
    assert_string_equal(env_get(env, "SLURM_JOB_NAME"), "train");
    assert_string_equal(env_get(env, "SLURM_JOB_NODELIST"), "node[3-4]");
    assert_string_equal(env_get(env, "SLURM_NODELIST"), "node[3-4]");
    assert_string_equal(env_get(env, "SLURM_NNODES"), "2");
    assert_string_equal(env_get(env, "SLURM_JOB_NUM_NODES"), "2");
    assert_string_equal(env_get(env, "SLURM_NTASKS"), "4");
    assert_string_equal(env_get(env, "SLURM_NPROCS"), "4");
    assert_string_equal(env_get(env, "SLURM_CPUS_PER_TASK"), "2");
    assert_string_equal(env_get(env, "SLURM_CPUS_ON_NODE"), "8");
    assert_string_equal(env_get(env, "SLURM_JOB_CPUS_PER_NODE"), "8(x2)");
    assert_string_equal(env_get(env, "SLURM_SUBMIT_DIR"), "/home/alice");
    assert_string_equal(env_get(env, "SLURM_SUBMIT_HOST"), "login1");
    assert_string_equal(env_get(env, "SLURM_JOB_PARTITION"), "gpu");
    assert_string_equal(env_get(env, "SLURMD_NODENAME"), "node3");
    assert_string_equal(env_get(env, "SLURM_NODEID"), "0");
    assert_string_equal(env_get(env, "SLURM_PROCID"), "0");
    assert_string_equal(env_get(env, "SLURM_LOCALID"), "0");
    assert_string_equal(env_get(env, "SLURM_TASK_PID"), "4321");
    assert_string_equal(env_get(env, "SLURM_JOB_USER"), "alice");
    assert_string_equal(env_get(env, "SLURM_JOB_UID"), "1000");
    assert_string_equal(env_get(env, "SLURM_JOB_GID"), "100");
    assert_string_equal(env_get(env, "SLURM_CLUSTER_NAME"), "c1");
    assert_string_equal(env_get(env, "SLURM_CONF"), "/etc/herd/slurm.conf");
    assert_string_equal(env_get(env, "SLURM_JOB_START_TIME"), "1000");
    assert_string_equal(env_get(env, "SLURM_JOB_END_TIME"), "1600");
    assert_string_equal(env_get(env, "ENVIRONMENT"), "BATCH");
    jobenv_free(env);
    job_spec_destroy(js);
}

static void test_env_gpus(void **state)
{
    (void)state;
    struct job_spec *js = spec_from(job_json);
    char **env = jobenv_build(js, NULL, 1);
    assert_string_equal(env_get(env, "SLURM_GPUS_ON_NODE"), "2");
    assert_string_equal(env_get(env, "SLURM_JOB_GPUS"), "1,3");
    assert_string_equal(env_get(env, "CUDA_VISIBLE_DEVICES"), "1,3");
    assert_int_equal(env_count(env, "CUDA_VISIBLE_DEVICES"), 1);
    assert_string_equal(env_get(env, "GPU_DEVICE_ORDINAL"), "1,3");
    assert_null(env_get(env, "SLURM_CONF"));
    jobenv_free(env);
    job_spec_destroy(js);
}

static void test_env_gpus_per_task(void **state)
{
    (void)state;
    struct job_spec *js = spec_from("{\"job_id\": 5, \"script\": \"x\", \"user_id\": 0,"
                                    " \"group_id\": 0, \"node_name\": \"n1\", \"node_gpus\": [0, 1],"
                                    " \"gpus_per_task\": 1, \"gpu_type\": \"a100\","
                                    " \"cpus_per_gpu\": 4, \"mem_per_gpu_mb\": 100}");
    assert_non_null(js);
    char **env = jobenv_build(js, NULL, 1);
    assert_string_equal(env_get(env, "SLURM_GPUS_PER_TASK"), "a100:1");
    assert_string_equal(env_get(env, "SLURM_CPUS_PER_GPU"), "4");
    assert_string_equal(env_get(env, "SLURM_MEM_PER_GPU"), "100");
    assert_string_equal(env_get(env, "SLURM_GPUS_ON_NODE"), "2");
    jobenv_free(env);
    job_spec_destroy(js);
    js = spec_from("{\"job_id\": 5, \"script\": \"x\", \"user_id\": 0, \"group_id\": 0,"
                   " \"node_name\": \"n1\", \"gpus\": 2, \"gpus_per_node\": 2,"
                   " \"gpus_per_socket\": 1, \"ntasks_per_gpu\": 3, \"gpu_bind\": \"single:2\"}");
    env = jobenv_build(js, NULL, 1);
    assert_string_equal(env_get(env, "SLURM_GPUS"), "2");
    assert_string_equal(env_get(env, "SLURM_GPUS_PER_NODE"), "2");
    assert_string_equal(env_get(env, "SLURM_GPUS_PER_SOCKET"), "1");
    assert_string_equal(env_get(env, "SLURM_NTASKS_PER_GPU"), "3");
    assert_string_equal(env_get(env, "SLURM_GPU_BIND"), "single:2");
    jobenv_free(env);
    job_spec_destroy(js);
    /* --gres=gpu:2 (job_json's node GPUs come from such a count): no per-node
     * variable, and none of the per-task ones */
    js = spec_from("{\"job_id\": 5, \"script\": \"x\", \"user_id\": 0, \"group_id\": 0,"
                   " \"node_name\": \"n1\", \"gpus_per_node\": 2, \"gpus_per_node_gres\": true}");
    env = jobenv_build(js, NULL, 1);
    assert_null(env_get(env, "SLURM_GPUS_PER_NODE"));
    assert_null(env_get(env, "SLURM_GPU_BIND"));
    jobenv_free(env);
    job_spec_destroy(js);
    js = spec_from(job_json);
    env = jobenv_build(js, NULL, 1);
    assert_null(env_get(env, "SLURM_GPUS_PER_TASK"));
    assert_null(env_get(env, "SLURM_CPUS_PER_GPU"));
    assert_null(env_get(env, "SLURM_MEM_PER_GPU"));
    jobenv_free(env);
    job_spec_destroy(js);
}

static void test_env_no_gpus(void **state)
{
    (void)state;
    struct job_spec *js = spec_from("{\"job_id\": 5, \"script\": \"x\", \"user_id\": 0,"
                                    " \"group_id\": 0, \"node_name\": \"n1\"}");
    assert_non_null(js);
    char **env = jobenv_build(js, NULL, 1);
    assert_null(env_get(env, "CUDA_VISIBLE_DEVICES"));
    assert_null(env_get(env, "SLURM_GPUS_ON_NODE"));
    assert_null(env_get(env, "SLURM_CPUS_PER_TASK"));
    assert_string_equal(env_get(env, "SLURM_JOB_NODELIST"), "n1");
    assert_string_equal(env_get(env, "SLURM_JOB_CPUS_PER_NODE"), "1");
    assert_string_equal(env_get(env, "SLURM_NNODES"), "1");
    jobenv_free(env);
    assert_string_equal(js->work_dir, "/");
    assert_int_equal(js->time_limit, -1);
    assert_int_equal(js->umask, -1);
    job_spec_destroy(js);
}

static void expect_reject(const char *text);

#define ROOT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* Issue #16: a requeued job's next run says how many times it restarted;
 * the first run says nothing, whatever the job's own environment holds. */
static void test_env_restart_count(void **state)
{
    (void)state;
    struct job_spec *js = spec_from("{\"job_id\": 5, \"script\": \"x\", \"user_id\": 0,"
                                    " \"group_id\": 0, \"restart_count\": 2,"
                                    " \"environment\": [\"SLURM_RESTART_COUNT=9\"]}");
    assert_non_null(js);
    char **env = jobenv_build(js, NULL, 1);
    assert_string_equal(env_get(env, "SLURM_RESTART_COUNT"), "2");
    assert_int_equal(env_count(env, "SLURM_RESTART_COUNT"), 1);
    jobenv_free(env);
    job_spec_destroy(js);
    js = spec_from("{\"job_id\": 5, \"script\": \"x\", \"user_id\": 0, \"group_id\": 0}");
    env = jobenv_build(js, NULL, 1);
    assert_null(env_get(env, "SLURM_RESTART_COUNT"));
    jobenv_free(env);
    job_spec_destroy(js);
    expect_reject("{\"job_id\": 7, \"script\": \"x\", \"user_id\": 0, \"group_id\": 0,"
                  " \"restart_count\": -1}");
}

/* Issue #16: a root script's environment is Herd's alone. The job's has
 * BASH_ENV, LD_PRELOAD, PATH and SLURM_* values of the user's choosing. */
static const char *hostile_json =
    "{\"job_id\": 42, \"name\": \"train\", \"script\": \"x\", \"user_id\": 1000,"
    " \"group_id\": 100, \"user_name\": \"alice\", \"partition\": \"gpu\","
    " \"node_name\": \"node3\", \"node_list\": \"node[3-4]\", \"cluster_name\": \"c1\","
    " \"account\": \"physics\", \"node_gpus\": [1, 3],"
    " \"environment\": [\"PATH=/home/alice/bin\", \"BASH_ENV=/home/alice/evil.sh\","
    " \"LD_PRELOAD=/home/alice/pre.so\", \"HOME=/home/alice\", \"SLURM_UID=0\","
    " \"SLURM_JOB_ACCOUNT=root\", \"SLURM_JOB_UID=0\", \"CUDA_VISIBLE_DEVICES=0,1,2,3\","
    " \"SLURM_CONF=/home/alice/slurm.conf\"]}";

static void test_root_script_env(void **state)
{
    (void)state;
    struct job_spec *js = spec_from(hostile_json);
    assert_non_null(js);
    char **env = jobenv_root_script(js, "/etc/herd/slurm.conf", "prolog_slurmd");
    const char *absent[] = { "BASH_ENV", "LD_PRELOAD", "HOME", "SLURM_UID", "ENVIRONMENT",
                             "SLURM_SUBMIT_DIR", "SLURM_TASK_PID" };
    for (size_t i = 0; i < sizeof absent / sizeof *absent; i++)
        assert_null(env_get(env, absent[i]));
    assert_string_equal(env_get(env, "PATH"), ROOT_PATH);
    assert_string_equal(env_get(env, "SLURM_SCRIPT_CONTEXT"), "prolog_slurmd");
    assert_string_equal(env_get(env, "SLURM_JOB_ID"), "42");
    assert_string_equal(env_get(env, "SLURM_JOB_UID"), "1000");
    assert_string_equal(env_get(env, "SLURM_JOB_GID"), "100");
    assert_string_equal(env_get(env, "SLURM_JOB_USER"), "alice");
    assert_string_equal(env_get(env, "SLURM_JOB_ACCOUNT"), "physics");
    assert_string_equal(env_get(env, "SLURM_JOB_NODELIST"), "node[3-4]");
    assert_string_equal(env_get(env, "SLURM_JOB_PARTITION"), "gpu");
    assert_string_equal(env_get(env, "SLURM_CLUSTER_NAME"), "c1");
    assert_string_equal(env_get(env, "SLURMD_NODENAME"), "node3");
    assert_string_equal(env_get(env, "SLURM_CONF"), "/etc/herd/slurm.conf");
    assert_string_equal(env_get(env, "SLURM_JOB_GPUS"), "1,3");
    assert_string_equal(env_get(env, "CUDA_VISIBLE_DEVICES"), "1,3");
    /* every variable one Herd sets, once */
    for (size_t i = 0; env[i]; i++) {
        char key[64];
        snprintf(key, sizeof key, "%.*s", (int)strcspn(env[i], "="), env[i]);
        assert_true(strncmp(key, "SLURM", 5) == 0 || !strcmp(key, "PATH")
                    || !strcmp(key, "CUDA_VISIBLE_DEVICES") || !strcmp(key, "GPU_DEVICE_ORDINAL"));
        assert_int_equal(env_count(env, key), 1);
    }
    jobenv_free(env);
    job_spec_destroy(js);
    /* no account, no GPUs: none made up */
    js = spec_from("{\"job_id\": 5, \"script\": \"x\", \"user_id\": 0, \"group_id\": 0,"
                   " \"account\": 7, \"environment\": [\"SLURM_JOB_GPUS=0\"]}");
    assert_non_null(js);
    env = jobenv_root_script(js, NULL, "epilog_slurmd");
    assert_null(env_get(env, "SLURM_JOB_ACCOUNT"));
    assert_null(env_get(env, "SLURM_JOB_GPUS"));
    assert_null(env_get(env, "CUDA_VISIBLE_DEVICES"));
    assert_null(env_get(env, "SLURM_CONF"));
    assert_string_equal(env_get(env, "SLURM_SCRIPT_CONTEXT"), "epilog_slurmd");
    jobenv_free(env);
    job_spec_destroy(js);
}

static void check_expand(const struct job_spec *js, const char *pat, const char *want)
{
    char *got = jobenv_expand(pat, js);
    assert_string_equal(got, want);
    free(got);
}

static void test_patterns(void **state)
{
    (void)state;
    struct job_spec *js = spec_from(job_json);
    check_expand(js, "slurm-%j.out", "slurm-42.out");
    check_expand(js, "%x-%u-%N-%n.log", "train-alice-node3-0.log");
    check_expand(js, "100%%", "100%");
    check_expand(js, "%5j", "00042");
    check_expand(js, "%A_%a", "42_4294967294");
    check_expand(js, "%t", "0");
    check_expand(js, "%q%Z", "%q%Z");
    check_expand(js, "end%", "end%");
    check_expand(js, "%3x", "train");
    check_expand(js, "lit\\%j", "lit%j");
    check_expand(js, "", "");
    job_spec_destroy(js);
}

static void test_paths(void **state)
{
    (void)state;
    struct job_spec *js = spec_from(job_json);
    char *p = jobenv_path("", "slurm-%j.out", js);
    assert_string_equal(p, "/home/alice/run/slurm-42.out");
    free(p);
    p = jobenv_path("/tmp/o-%j", "x", js);
    assert_string_equal(p, "/tmp/o-42");
    free(p);
    p = jobenv_path("sub/%x.err", "x", js);
    assert_string_equal(p, "/home/alice/run/sub/train.err");
    free(p);
    job_spec_destroy(js);
}

static void expect_reject(const char *text)
{
    assert_null(spec_from(text));
}

static void test_spec_rejects(void **state)
{
    (void)state;
    expect_reject("[]");
    expect_reject("{\"script\": \"x\", \"user_id\": 0, \"group_id\": 0}");
    expect_reject("{\"job_id\": \"7\", \"script\": \"x\", \"user_id\": 0, \"group_id\": 0}");
    expect_reject("{\"job_id\": 0, \"script\": \"x\", \"user_id\": 0, \"group_id\": 0}");
    expect_reject("{\"job_id\": 7, \"script\": \"\", \"user_id\": 0, \"group_id\": 0}");
    expect_reject("{\"job_id\": 7, \"script\": \"x\", \"user_id\": -1, \"group_id\": 0}");
    expect_reject("{\"job_id\": 7, \"script\": \"x\", \"user_id\": 0, \"group_id\": 0,"
                  " \"environment\": [\"NOEQUALS\"]}");
    expect_reject("{\"job_id\": 7, \"script\": \"x\", \"user_id\": 0, \"group_id\": 0,"
                  " \"environment\": \"A=1\"}");
    expect_reject("{\"job_id\": 7, \"script\": \"x\", \"user_id\": 0, \"group_id\": 0,"
                  " \"argv\": [1]}");
    expect_reject("{\"job_id\": 7, \"script\": \"x\", \"user_id\": 0, \"group_id\": 0,"
                  " \"node_gpus\": [-1]}");
    expect_reject("{\"job_id\": 7, \"script\": \"x\", \"user_id\": 0, \"group_id\": 0,"
                  " \"name\": 5}");
    expect_reject("{\"job_id\": 7, \"script\": \"x\", \"user_id\": 0, \"group_id\": 0,"
                  " \"name\": \"a\\u0000b\"}");
    expect_reject("{\"job_id\": 7, \"script\": \"x\", \"user_id\": 0, \"group_id\": 0,"
                  " \"cpus_per_task_set\": 1}");
    expect_reject("{\"job_id\": 7, \"script\": \"x\", \"user_id\": 0, \"group_id\": 0,"
                  " \"umask\": 4096}");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_env_slurm_vars),
        cmocka_unit_test(test_env_gpus),
        cmocka_unit_test(test_env_no_gpus),
        cmocka_unit_test(test_env_gpus_per_task),
        cmocka_unit_test(test_env_restart_count),
        cmocka_unit_test(test_root_script_env),
        cmocka_unit_test(test_patterns),
        cmocka_unit_test(test_paths),
        cmocka_unit_test(test_spec_rejects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
