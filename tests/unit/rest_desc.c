/* rest_desc: slurmrestd's v0.0.40 job description into Herd's job spec, and
 * the number and state shapes every REST answer uses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ctld/rest.h"

/* The spec of a description given as JSON text; NULL (err set) if refused. */
static json_t *spec_of(const char *text, json_t *warnings, char *err, size_t errlen)
{
    json_t *desc = json_loads(text, 0, NULL);
    assert_non_null(desc);
    json_t *spec = rest_job_desc_spec(desc, NULL, warnings, err, errlen);
    json_decref(desc);
    return spec;
}

static json_int_t inum(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    assert_true(json_is_integer(v));
    return json_integer_value(v);
}

static void test_fields_mapped(void **state)
{
    (void)state;
    char err[256];
    json_t *w = json_array();
    json_t *s = spec_of("{\"name\": \"n\", \"partition\": \"gpu\", \"script\": \"#!/bin/sh\\n\","
                        " \"current_working_directory\": \"/w\", \"environment\": [\"A=b\"],"
                        " \"time_limit\": {\"set\": true, \"infinite\": false, \"number\": 30},"
                        " \"memory_per_node\": 2000, \"nodes\": \"2-4\", \"tasks\": 4,"
                        " \"cpus_per_task\": {\"set\": true, \"number\": 2},"
                        " \"tres_per_node\": \"gres/gpu:a100:2\","
                        " \"required_nodes\": [\"a\", \"b\"],"
                        " \"user_id\": \"0\", \"hold\": true}",
                        w, err, sizeof err);
    assert_non_null(s);
    assert_string_equal(json_string_value(json_object_get(s, "name")), "n");
    assert_string_equal(json_string_value(json_object_get(s, "work_dir")), "/w");
    assert_string_equal(json_string_value(json_object_get(s, "submit_dir")), "/w");
    assert_string_equal(json_string_value(json_object_get(s, "script")), "#!/bin/sh\n");
    assert_string_equal(json_string_value(json_object_get(s, "req_nodes")), "a,b");
    assert_string_equal(json_string_value(json_object_get(s, "gpu_type")), "a100");
    assert_int_equal(inum(s, "time_limit"), 30);
    assert_int_equal(inum(s, "mem_per_node_mb"), 2000);
    assert_int_equal(inum(s, "nodes"), 2);
    assert_int_equal(inum(s, "ntasks"), 4);
    assert_int_equal(inum(s, "cpus_per_task"), 2);
    assert_int_equal(inum(s, "gpus_per_node"), 2);
    assert_true(json_is_true(json_object_get(s, "hold")));
    /* the body never names who the job runs as */
    assert_null(json_object_get(s, "uid"));
    assert_null(json_object_get(s, "user_id"));
    assert_int_equal(json_array_size(w), 1);
    json_decref(s);
    json_decref(w);
}

static void test_infinite_and_unset(void **state)
{
    (void)state;
    char err[256];
    json_t *w = json_array();
    json_t *s = spec_of("{\"time_limit\": {\"set\": false, \"infinite\": true, \"number\": 0},"
                        " \"memory_per_cpu\": {\"set\": false, \"number\": 5},"
                        " \"tres_per_job\": \"gres/gpu=3\", \"mystery\": 1}",
                        w, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(inum(s, "time_limit"), -1);
    assert_null(json_object_get(s, "mem_per_cpu_mb"));
    assert_int_equal(inum(s, "gpus"), 3);
    assert_int_equal(json_array_size(w), 1);   /* mystery: ignored, said so */
    json_decref(s);
    json_decref(w);
}

static void test_bad_values_named(void **state)
{
    (void)state;
    static const char *const bad[][2] = {
        { "{\"tasks\": \"four\"}", "job.tasks" },
        { "{\"nodes\": \"x\"}", "job.nodes" },
        { "{\"nodes\": 0}", "job.nodes" },
        { "{\"time_limit\": {\"set\": true}}", "job.time_limit" },
        { "{\"memory_per_node\": {\"infinite\": true}}", "job.memory_per_node" },
        { "{\"environment\": \"A=b\"}", "job.environment" },
        { "{\"tres_per_node\": \"gres/gpu:x:\"}", "job.tres_per_node" },
        { "{\"tres_per_node\": \"license/foo:1\"}", "job.tres_per_node" },
        { "{\"excluded_nodes\": [1]}", "job.excluded_nodes" },
        { "[]", "job" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char err[256] = "";
        json_t *w = json_array();
        json_t *s = spec_of(bad[i][0], w, err, sizeof err);
        assert_null(s);
        assert_non_null(strstr(err, bad[i][1]));
        json_decref(w);
    }
}

static void test_shapes(void **state)
{
    (void)state;
    json_t *v = rest_noval_minutes(-1);
    assert_true(json_is_true(json_object_get(v, "infinite")));
    assert_true(json_is_false(json_object_get(v, "set")));
    json_decref(v);
    v = rest_noval_time(0);
    assert_true(json_is_false(json_object_get(v, "set")));
    json_decref(v);
    v = rest_state_words("IDLE+DRAIN*");
    assert_int_equal(json_array_size(v), 3);
    assert_string_equal(json_string_value(json_array_get(v, 1)), "DRAIN");
    assert_string_equal(json_string_value(json_array_get(v, 2)), "NOT_RESPONDING");
    json_decref(v);
    v = rest_csv("a,,b");
    assert_int_equal(json_array_size(v), 2);
    json_decref(v);
    v = rest_exit_code(true, 0, 9);
    assert_string_equal(json_string_value(json_array_get(json_object_get(v, "status"), 0)),
                        "SIGNALED");
    assert_string_equal(json_string_value(json_object_get(json_object_get(v, "signal"), "name")),
                        "KILL");
    json_decref(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fields_mapped),
        cmocka_unit_test(test_infinite_and_unset),
        cmocka_unit_test(test_bad_values_named),
        cmocka_unit_test(test_shapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
