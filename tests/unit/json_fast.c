/* Unit tests of json_fast (src/common/json_fast.h): whatever the text,
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

#include "common/json_fast.h"

static void same_as_jansson(const char *text)
{
    json_error_t we, ge;
    json_t *want = json_loadb(text, strlen(text), 0, &we);
    json_t *got = json_fast_loadb(text, strlen(text), &ge);
    if (!want) {
        assert_null(got);
        assert_string_equal(ge.text, we.text);
        return;
    }
    char *wd = json_dumps(want, JSON_COMPACT), *gd = json_fast_dumps(want);
    if (!wd || !gd || strcmp(wd, gd))
        fail_msg("dumps not as jansson's: %s / %s", wd ? wd : "(null)", gd ? gd : "(null)");
    free(wd);
    free(gd);
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
    json_t *j = json_fast_loadb(text, strlen(text), NULL);
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
        /* escapes and UTF-8, read by either as jansson reads them */
        "{\"a\":\"tab\\tquote\\\"\"}", "{\"a\":\"\\u00e9\\ud83d\\ude00\"}",
        "{\"a\":\"\xc3\xa9\"}", "{\"\xc3\xa9\":1}", "{\"a\":\"\\b\\f\\n\\r\\/\\\\\"}",
        "{\"k\\n\":\"\\u001f\\u007F\\u0800\\uFFFF\"}", "[\"\xf4\x8f\xbf\xbf\xe0\xa0\x80\"]",
        /* and what jansson refuses: overlong, surrogates, above U+10FFFF,
         * a lone or unpaired surrogate escape, a short or bad escape */
        "[\"\xc0\x80\"]", "[\"\xed\xa0\x80\"]", "[\"\xf4\x90\x80\x80\"]", "[\"\xe0\x80\x80\"]",
        "[\"\\udc00\"]", "[\"\\ud800x\"]", "[\"\\ud800\\u0041\"]", "[\"\\u12\"]", "[\"\\q\"]",
        "[\"\\u12G4\"]", "[\"\xc3\"]",
        /* what the fast reader leaves to jansson */
        "{\"a\":1.5}", "{\"a\":-2e3}",
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

/* Trees no text gives (a NUL inside a string) dump as jansson's do. */
static void test_dumps(void **state)
{
    (void)state;
    json_t *t = json_pack("{s:s%,s:[i,b,n,{}],s:f}", "nul", "a\0b\x01\x7f", (size_t)5, "l",
                          (json_int_t)-7, 1, "r", 0.5);
    char *want = json_dumps(t, JSON_COMPACT), *got = json_fast_dumps(t);
    assert_string_equal(got, want);   /* with a real: jansson's own */
    free(got);
    free(want);
    json_object_del(t, "r");
    want = json_dumps(t, JSON_COMPACT);
    got = json_fast_dumps(t);
    assert_string_equal(got, "{\"nul\":\"a\\u0000b\\u0001\x7f\",\"l\":[-7,true,null,{}]}");
    assert_string_equal(got, want);
    free(got);
    free(want);
    json_t *one = json_integer(1);
    assert_null(json_fast_dumps(one));   /* not an object or array: as json_dumps */
    assert_null(json_dumps(one, JSON_COMPACT));
    json_decref(one);
    json_decref(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_records),
        cmocka_unit_test(test_handed_to_jansson),
        cmocka_unit_test(test_dumps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
