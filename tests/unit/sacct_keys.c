/* Unit tests of sacct's field keys (src/cmd/sacct/sacct.h): every field
 * shows the same value, on a job row and on its batch and extern rows,
 * from its record cut down to the keys the field names (with the rows'
 * own, SACCT_ROW_KEYS) as from the whole record. A field that reads a
 * member its keys leave out shows something else, and fails here, on
 * records chosen so that each member changes some field's value. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cmd/sacct/sacct.h"
#include "common/json_keep.h"

#define SPEC_FULL                                                                          \
    "\"spec\":{\"name\":\"specname\",\"account\":\"lab\",\"comment\":\"cmt\","             \
    "\"constraint\":\"a100\",\"nodes\":2,\"ntasks\":4,\"ntasks_per_node\":2,"              \
    "\"cpus_per_task\":3,\"gpus_per_node\":2,\"mem_per_cpu_mb\":1000,"                     \
    "\"partition\":\"specpart\",\"qos\":\"high\",\"reservation\":\"specresv\","            \
    "\"time_limit\":30,\"work_dir\":\"/w\",\"array\":\"0-3\",\"allocation\":false}"

static const char *const records[] = {
    /* ran, ended by a cancel, an array task, every member set */
    "{" SPEC_FULL ",\"uid\":1001,\"gid\":1002,\"user_name\":\"alice\",\"state\":\"CANCELLED\","
    "\"reason\":\"None\",\"end_reason\":\"IdleGPU\",\"submit_time\":1000,\"start_time\":1100,"
    "\"end_time\":1500,\"suspended_s\":30,\"pre_suspend_s\":20,\"exit_code\":3,"
    "\"exit_signal\":9,\"cancelled_by\":1001,\"allocs\":[{\"node\":\"n1\",\"cpus\":6,"
    "\"mem_mb\":4000,\"gpu_mask\":3},{\"node\":\"n2\",\"cpus\":6,\"mem_mb\":4000,"
    "\"gpu_mask\":1}],\"billing\":20.4,\"name\":\"jobname\",\"partition\":\"gpu\","
    "\"time_limit\":60,\"reservation\":\"r1\",\"reservation_id\":5,\"admin_comment\":\"ac\","
    "\"array_job_id\":40,\"array_task_id\":2,\"extern_step\":true,"
    "\"usage\":{\"total_cpu_ms\":12345,\"user_cpu_ms\":10000,\"system_cpu_ms\":2345,"
    "\"max_rss_kb\":2048,\"samples\":3},"
    "\"steps\":[{\"id\":0,\"state\":\"COMPLETED\",\"exit_code\":2,\"exit_signal\":0,"
    "\"start_time\":1200,\"end_time\":1300,\"ntasks\":2}]}",
    /* suspended: elapsed is what ran before; the spec's name, partition,
     * time limit and reservation stand in for the record's */
    "{\"spec\":{\"name\":\"sn\",\"partition\":\"sp\",\"time_limit\":45,\"reservation\":\"sr\","
    "\"mem_per_gpu_mb\":500,\"gpus_per_task\":1,\"ntasks\":3},\"uid\":7,\"gid\":8,"
    "\"state\":\"SUSPENDED\",\"submit_time\":10,\"start_time\":20,\"end_time\":0,"
    "\"pre_suspend_s\":17,\"suspended_s\":5,\"allocs\":[{\"node\":\"n3\",\"cpus\":3,"
    "\"mem_mb\":1500,\"gpu_mask\":7}]}",
    /* a pending array: why it waits, its tasks left to start */
    "{\"spec\":{\"name\":\"p\",\"array\":\"4-9%2\",\"mem_per_node_mb\":700,\"nodes\":3},"
    "\"uid\":7,\"state\":\"PENDING\",\"reason\":\"Priority\",\"end_reason\":\"X\","
    "\"submit_time\":50,\"start_time\":0,\"end_time\":0,\"allocs\":[],\"held_user\":true,"
    "\"array_job_id\":50,\"array_task_str\":\"4-9%2\"}",
    /* a batch shell that failed on its own; the extern step never ran */
    "{\"spec\":{\"name\":\"f\"},\"state\":\"FAILED\",\"exit_code\":1,\"exit_signal\":0,"
    "\"submit_time\":5,\"start_time\":6,\"end_time\":9,\"allocs\":[{\"node\":\"n1\","
    "\"cpus\":1,\"mem_mb\":100}],\"usage\":{\"total_cpu_ms\":900}}",
};

static struct json_keep_buf kb;

/* The record text cut to the rows' keys and the field's. */
static json_t *cut(const char *rec, const char *keys)
{
    char *csv = strdup(keys), *save = NULL;
    const char *v[JSON_KEEP_MAX_PATHS];
    size_t n = 0;
    for (char *t = strtok_r(csv, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        assert_true(n < JSON_KEEP_MAX_PATHS);
        v[n++] = t;
    }
    kb.len = 0;
    assert_int_equal(json_keep(rec, strlen(rec), v, n, &kb), 0);
    json_t *j = json_loadb(kb.p, kb.len, 0, NULL);
    assert_non_null(j);
    free(csv);
    return j;
}

static void same_value(const struct sacct_field *f, const json_t *whole, const json_t *part,
                       enum sacct_row_kind kind)
{
    const struct sacct_ctx x = { 2000, 0, false, "c" };
    struct sacct_row a = { whole, 40, kind, 0, 40, 2 }, b = a;
    b.rec = part;
    char *va = f->value(&a, &x), *vb = f->value(&b, &x);
    if ((va == NULL) != (vb == NULL) || (va && strcmp(va, vb)))
        fail_msg("%s (row kind %d): \"%s\" from the record, \"%s\" from its keys", f->name,
                 (int)kind, va ? va : "(none)", vb ? vb : "(none)");
    free(va);
    free(vb);
}

static void test_each_field_reads_only_its_keys(void **state)
{
    (void)state;
    size_t checked = 0;
    for (size_t i = 0; i < sizeof records / sizeof records[0]; i++) {
        json_t *whole = json_loads(records[i], 0, NULL);
        assert_non_null(whole);
        for (const struct sacct_field *f = sacct_fields; f->name; f++) {
            assert_non_null(f->keys);   /* sacct's table names them all */
            char keys[1024];
            snprintf(keys, sizeof keys, "%s,%s", SACCT_ROW_KEYS, f->keys);
            json_t *part = cut(records[i], keys);
            for (int k = SACCT_JOB; k <= SACCT_EXTERN; k++, checked++)
                same_value(f, whole, part, (enum sacct_row_kind)k);
            json_decref(part);
        }
        json_decref(whole);
    }
    assert_true(checked > 500);
}

/* The rows' own keys: which rows a job has. */
static void test_row_keys(void **state)
{
    (void)state;
    json_t *whole = json_loads(records[0], 0, NULL);
    json_t *part = cut(records[0], SACCT_ROW_KEYS "," SACCT_STEP_KEYS);
    json_t *jw = json_pack("{s:i,s:O}", "job_id", 40, "record", whole);
    json_t *jp = json_pack("{s:i,s:O}", "job_id", 40, "record", part);
    struct sacct_row rw = sacct_job_row(jw), rp = sacct_job_row(jp);
    assert_int_equal(rw.array_id, rp.array_id);
    assert_int_equal(rw.task, rp.task);
    for (int k = SACCT_JOB; k <= SACCT_EXTERN; k++)
        assert_int_equal(sacct_has_step(whole, (enum sacct_row_kind)k),
                         sacct_has_step(part, (enum sacct_row_kind)k));
    assert_int_equal(sacct_is_pending_array(whole), sacct_is_pending_array(part));
    assert_int_equal(json_array_size(json_object_get(part, "steps")), 1);
    json_decref(jw);
    json_decref(jp);
    json_decref(whole);
    json_decref(part);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_field_reads_only_its_keys),
        cmocka_unit_test(test_row_keys),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    json_keep_buf_free(&kb);
    return rc;
}
