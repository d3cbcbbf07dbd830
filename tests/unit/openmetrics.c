/* Unit tests of the OpenMetrics writer (src/common/openmetrics.h): family
 * lines, label values escaped as the format asks, integer values written
 * whole, and a histogram's cumulative buckets, sum and count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <event2/buffer.h>

#include "common/openmetrics.h"

/* The buffer's text, NUL-terminated; the caller frees. */
static char *text_of(struct evbuffer *b)
{
    size_t n = evbuffer_get_length(b);
    char *t = calloc(1, n + 1);
    evbuffer_remove(b, t, n);
    return t;
}

static void test_family_and_samples(void **state)
{
    (void)state;
    struct evbuffer *b = evbuffer_new();
    om_gauge(b, "slurm_jobs", "Total number of jobs", 42);
    om_u64(b, "slurm_node_gpus", "node", "gpu01", 8);
    om_end(b);
    char *t = text_of(b);
    assert_string_equal(t, "# HELP slurm_jobs Total number of jobs\n"
                           "# TYPE slurm_jobs gauge\n"
                           "slurm_jobs 42\n"
                           "slurm_node_gpus{node=\"gpu01\"} 8\n"
                           "# EOF\n");
    free(t);
    evbuffer_free(b);
}

static void test_label_values_escaped(void **state)
{
    (void)state;
    struct evbuffer *b = evbuffer_new();
    struct om_label l[2] = { { "a", "x\"y\\z\nw" }, { "b", "" } };
    om_sample(b, "m", l, 2, 1.5);
    char *t = text_of(b);
    assert_string_equal(t, "m{a=\"x\\\"y\\\\z\\nw\",b=\"\"} 1.500000\n");
    free(t);
    evbuffer_free(b);
}

static void test_histogram(void **state)
{
    (void)state;
    struct om_hist h = { 0 };
    om_hist_observe(&h, 300);        /* 0.3 ms: the first bucket */
    om_hist_observe(&h, 3000);       /* 3 ms: le 0.005 */
    om_hist_observe(&h, 9000000);    /* 9 s: above every bound */
    struct evbuffer *b = evbuffer_new();
    om_hist_write(b, "lat", NULL, 0, &h);
    char *t = text_of(b);
    assert_non_null(strstr(t, "lat_bucket{le=\"0.0005\"} 1\n"));
    assert_non_null(strstr(t, "lat_bucket{le=\"0.0025\"} 1\n"));
    assert_non_null(strstr(t, "lat_bucket{le=\"0.005\"} 2\n"));
    assert_non_null(strstr(t, "lat_bucket{le=\"2.5\"} 2\n"));
    assert_non_null(strstr(t, "lat_bucket{le=\"+Inf\"} 3\n"));
    assert_non_null(strstr(t, "lat_sum 9.003300\n"));
    assert_non_null(strstr(t, "lat_count 3\n"));
    free(t);
    evbuffer_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_family_and_samples),
        cmocka_unit_test(test_label_values_escaped),
        cmocka_unit_test(test_histogram),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
