/* Unit tests of base64 (src/common/base64.h): RFC 4648's test vectors,
 * bytes that are not UTF-8, and text that is not base64 refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/base64.h"

static void test_rfc4648_vectors(void **state)
{
    (void)state;
    const char *plain[] = { "", "f", "fo", "foo", "foob", "fooba", "foobar" };
    const char *coded[] = { "", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy" };
    for (size_t i = 0; i < 7; i++) {
        char *e = base64_encode(plain[i], strlen(plain[i]));
        assert_string_equal(e, coded[i]);
        size_t n;
        unsigned char *d = base64_decode(e, &n);
        assert_non_null(d);
        assert_int_equal(n, strlen(plain[i]));
        assert_memory_equal(d, plain[i], n);
        free(d);
        free(e);
    }
}

static void test_binary_round_trip(void **state)
{
    (void)state;
    unsigned char bytes[256];
    for (int i = 0; i < 256; i++)
        bytes[i] = (unsigned char)(255 - i);
    char *e = base64_encode(bytes, sizeof bytes);
    size_t n;
    unsigned char *d = base64_decode(e, &n);
    assert_int_equal(n, sizeof bytes);
    assert_memory_equal(d, bytes, n);
    free(d);
    free(e);
}

static void test_garbage_refused(void **state)
{
    (void)state;
    size_t n;
    const char *bad[] = { "Zg=", "Zg=a", "Z===", "Zg==Zg==", "Zm9*", "Zm\n9v" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_null(base64_decode(bad[i], &n));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc4648_vectors),
        cmocka_unit_test(test_binary_round_trip),
        cmocka_unit_test(test_garbage_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
