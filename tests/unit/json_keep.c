/* Unit tests of json_keep (src/common/json_keep.h): members kept by name
 * and by a member of a member's object, in the text's order and bytes;
 * an object none of whose named members is there left out; strings that
 * hold brackets, quotes and escapes skipped whole; text that is not one
 * well-formed object refused, leaving what the buffer held before. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/json_keep.h"

static struct json_keep_buf kb;

/* text kept to the comma list paths; NULL when json_keep refuses it. */
static const char *keep(const char *text, const char *paths)
{
    const char *v[JSON_KEEP_MAX_PATHS + 1];
    static char buf[512];
    size_t n = 0;
    snprintf(buf, sizeof buf, "%s", paths);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
        v[n++] = t;
    kb.len = 0;
    if (json_keep(text, strlen(text), v, n, &kb) < 0)
        return NULL;
    kb.p[kb.len] = '\0';
    return kb.p;
}

static void test_members(void **state)
{
    (void)state;
    const char *rec = "{\"spec\":{\"name\":\"a\",\"account\":\"lab\",\"argv\":[\"x\"]},"
                      "\"uid\":0,\"state\":\"CANCELLED\",\"allocs\":[{\"node\":\"n1\"}],"
                      "\"exit_code\":-1,\"billing\":1.5e3,\"held\":false,\"r\":null}";
    assert_string_equal(keep(rec, "state,uid"), "{\"uid\":0,\"state\":\"CANCELLED\"}");
    assert_string_equal(keep(rec, "allocs,exit_code,billing,held,r"),
                        "{\"allocs\":[{\"node\":\"n1\"}],\"exit_code\":-1,\"billing\":1.5e3,"
                        "\"held\":false,\"r\":null}");
    assert_string_equal(keep(rec, "spec.account,state"),
                        "{\"spec\":{\"account\":\"lab\"},\"state\":\"CANCELLED\"}");
    /* the whole member wins over one of its members */
    assert_string_equal(keep(rec, "spec.account,spec"),
                        "{\"spec\":{\"name\":\"a\",\"account\":\"lab\",\"argv\":[\"x\"]}}");
    /* none there: an empty object; an object with none of them: left out */
    assert_string_equal(keep(rec, "nothing"), "{}");
    assert_string_equal(keep(rec, "spec.array,uid"), "{\"uid\":0}");
    assert_string_equal(keep(rec, "uid,spec.array"), "{\"uid\":0}");
    /* a path into what is no object keeps nothing of it */
    assert_string_equal(keep(rec, "state.x,uid"), "{\"uid\":0}");
    /* a name that only starts like a path's is another member */
    assert_string_equal(keep(rec, "stat,spe.name,exit"), "{}");
    assert_string_equal(keep("{}", "a"), "{}");
}

static void test_strings_skipped_whole(void **state)
{
    (void)state;
    const char *rec = " { \"a\" : \"}{\\\"],\\\\\" , \"b\" : [ 1 , { \"c\" : \"\\u00e9\" } ] ,"
                      "\"d\":\"\xc3\xa9\"}\n";
    assert_string_equal(keep(rec, "b"), "{\"b\":[ 1 , { \"c\" : \"\\u00e9\" } ]}");
    assert_string_equal(keep(rec, "a,d"), "{\"a\":\"}{\\\"],\\\\\",\"d\":\"\xc3\xa9\"}");
}

static void test_appends_and_leaves_as_was(void **state)
{
    (void)state;
    const char *paths[] = { "a" };
    struct json_keep_buf b = {0};
    json_keep_put(&b, "x=", 2);
    assert_int_equal(json_keep("{\"a\":1,\"b\":2}", 13, paths, 1, &b), 0);
    assert_int_equal(json_keep("{\"a\":[1,}", 9, paths, 1, &b), -1);
    json_keep_put(&b, ";", 1);
    assert_int_equal(b.len, 10);
    assert_memory_equal(b.p, "x={\"a\":1};", 10);
    json_keep_buf_free(&b);
}

static void test_refused(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "", "[]", "\"a\"", "{", "{\"a\":1", "{\"a\":1,}", "{\"a\" 1}", "{a:1}",
        "{\"a\":tru}", "{\"a\":01x}", "{\"a\":-}", "{\"a\":1.}", "{\"a\":\"x}", "{\"a\":[1,]}",
        "{\"a\":1} x", "{\"a\":\"\x01\"}", "{\"a\":1}{}", "{\"a\":{\"b\":}}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_null(keep(bad[i], "a"));
        assert_null(keep(bad[i], "a.b"));
    }
    char deep[400] = "{\"a\":";
    for (int i = 0; i < 100; i++)
        strcat(deep, "[");
    for (int i = 0; i < 100; i++)
        strcat(deep, "]");
    strcat(deep, "}");
    assert_null(keep(deep, "a"));
    deep[2] = 'b';   /* deep but not kept: still refused, the scan has a bound */
    assert_null(keep(deep, "a"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_members),
        cmocka_unit_test(test_strings_skipped_whole),
        cmocka_unit_test(test_appends_and_leaves_as_was),
        cmocka_unit_test(test_refused),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    json_keep_buf_free(&kb);
    return rc;
}
