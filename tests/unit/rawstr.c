/* Unit tests of rawstr (src/common/rawstr.h): every byte string survives
 * encode + decode, the encoding is UTF-8 jansson takes, plain UTF-8 is its
 * own encoding, and characters of the escape range come back as they were. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/rawstr.h"

static void round_trip(const char *bytes)
{
    char *text = rawstr_encode(bytes);
    json_t *v = json_string(text);
    assert_non_null(v);   /* jansson refuses anything but valid UTF-8 */
    char *back = json_rawstr_value(v);
    assert_string_equal(back, bytes);
    assert_int_equal(rawstr_decoded_len(text), strlen(bytes));
    json_decref(v);
    free(back);
    free(text);
}

static void test_plain_text_unchanged(void **state)
{
    (void)state;
    const char *plain[] = { "", "job.sh", "caf\xc3\xa9", "\xe2\x82\xac 5", "\xf0\x9f\x98\x80" };
    for (size_t i = 0; i < sizeof plain / sizeof *plain; i++) {
        assert_false(rawstr_needs_encoding(plain[i]));
        char *t = rawstr_encode(plain[i]);
        assert_string_equal(t, plain[i]);
        free(t);
        round_trip(plain[i]);
    }
}

static void test_bytes_round_trip(void **state)
{
    (void)state;
    const char *odd[] = {
        "# caf\xe9\n", "\xff", "A=\xff\xfe", "\xc3", "x\xc3(", "\xed\xa0\x80",  /* surrogate */
        "\xc0\xaf",              /* overlong '/' */
        "\xf4\x90\x80\x80",      /* past U+10FFFF */
        "\xee\xbf\xbf",          /* U+EFFF itself: an escape's look-alike */
        "\xee\xbe\x80z\xe9",
    };
    for (size_t i = 0; i < sizeof odd / sizeof *odd; i++) {
        assert_true(rawstr_needs_encoding(odd[i]));
        round_trip(odd[i]);
    }
    char all[256];
    for (int b = 1; b < 256; b++)
        all[b - 1] = (char)b;
    all[255] = '\0';
    round_trip(all);
}

static void test_escape_form(void **state)
{
    (void)state;
    char *t = rawstr_encode("\xe9");
    assert_string_equal(t, "\xee\xbf\xa9");   /* U+EFE9 */
    free(t);
    json_t *v = json_rawstr("n\xff");
    assert_string_equal(json_string_value(v), "n\xee\xbf\xbf");
    json_decref(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_text_unchanged),
        cmocka_unit_test(test_bytes_round_trip),
        cmocka_unit_test(test_escape_form),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
