/* Unit tests of json_fast (src/client/json_fast.h): whatever the text,
 * the same answer as jansson's json_loadb, whether the fast reader took it
 * (plain records) or handed it on (escapes, UTF-8, fractions, big
 * integers, errors). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "client/json_fast.h"

static void same_as_jansson(const char *text)
{
    json_t *want = json_loadb(text, strlen(text), 0, NULL);
    json_t *got = json_fast_loadb(text, strlen(text));
    if (!want) {
        assert_null(got);
        return;
    }
    assert_non_null(got);
    if (!json_equal(want, got))
        fail_msg("not as jansson: %s", text);
    json_decref(want);
    json_decref(got);
}

static void test_plain_records(void **state)
{
    (void)state;
    const char *text = "{\"job_id\":7,\"record\":{\"state\":\"COMPLETED\",\"allocs\":"
                       "[{\"node\":\"n1\",\"cpus\":2}],\"held\":false,\"x\":null,"
                       "\"t\":true,\"neg\":-12,\"big\":999999999999999999}}";
    json_t *j = json_fast_loadb(text, strlen(text));
    assert_non_null(j);
    json_t *rec = json_object_get(j, "record");
    assert_int_equal(json_integer_value(json_object_get(j, "job_id")), 7);
    assert_string_equal(json_string_value(json_object_get(rec, "state")), "COMPLETED");
    assert_int_equal(json_integer_value(json_object_get(json_array_get(
                         json_object_get(rec, "allocs"), 0), "cpus")), 2);
    assert_true(json_is_false(json_object_get(rec, "held")));
    assert_true(json_is_null(json_object_get(rec, "x")));
    assert_int_equal(json_integer_value(json_object_get(rec, "neg")), -12);
    assert_int_equal(json_integer_value(json_object_get(rec, "big")), 999999999999999999LL);
    json_decref(j);
    static const char *const same[] = {
        "{}", "[]", " { } \n", "[1,2,[3,[4]],{\"a\":{}}]", "{\"a\":1,\"a\":2}", "{\"\":0}",
        "{\"a\":-0}", "[0]", "{\"now\":1796596785}",
    };
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++)
        same_as_jansson(same[i]);
}

static void test_handed_to_jansson(void **state)
{
    (void)state;
    static const char *const texts[] = {
        /* what the fast reader leaves to jansson, read as jansson reads it */
        "{\"a\":\"tab\\tquote\\\"\"}", "{\"a\":\"\\u00e9\\ud83d\\ude00\"}",
        "{\"a\":\"\xc3\xa9\"}", "{\"\xc3\xa9\":1}", "{\"a\":1.5}", "{\"a\":-2e3}",
        "{\"a\":1E+2}", "{\"a\":9223372036854775807}", "{\"a\":-9223372036854775808}",
        "{\"a\\u0062\":1}",
        /* and what neither reads */
        "", "1", "\"a\"", "null", "{", "{\"a\":1,}", "[1,]", "{\"a\" 1}", "{a:1}", "{\"a\":01}",
        "{\"a\":-}", "{\"a\":1.}", "{\"a\":tru}", "{\"a\":\"x}", "{\"a\":1} x", "[1]]",
        "{\"a\":\"\x01\"}", "{\"a\":\"\xff\"}", "{\"a\":99999999999999999999}",
        "{\"a\\u0000\":1}", "{\"a\":\"\\u0000\"}",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        same_as_jansson(texts[i]);
    char deep[300] = "";
    for (int i = 0; i < 100; i++)
        strcat(deep, "[");
    for (int i = 0; i < 100; i++)
        strcat(deep, "]");
    same_as_jansson(deep);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_records),
        cmocka_unit_test(test_handed_to_jansson),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
