/* Unit tests of the commands' output: the %-format engine, job and node
 * state names, and squeue's filtering and printing of JSON fixtures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "client/format.h"
#include "client/jobstate.h"
#include "client/nodestate.h"
#include "cmd/squeue/squeue.h"
#include "common/hostlist.h"
#include "common/xmalloc.h"

/* Captures what fn prints. */
struct capture {
    char *buf;
    size_t len;
    FILE *f;
};

static FILE *cap_open(struct capture *c)
{
    c->buf = NULL;
    c->len = 0;
    c->f = open_memstream(&c->buf, &c->len);
    return c->f;
}

static char *cap_close(struct capture *c)
{
    fclose(c->f);
    return c->buf;
}

static char *word(const void *rec, const void *ctx, bool *cut)
{
    (void)ctx;
    (void)cut;
    return xstrdup(rec);
}

static const struct fmt_code test_codes[] = {
    {'w', "WORD", 0, word, NULL},
    {'n', "NODELIST", FMT_NOCUT | FMT_NOCUT_HEADER, word, NULL},
    {0, NULL, 0, NULL, NULL},
};

static char *render(const char *spec, const char *rec)
{
    struct capture c;
    struct fmt *f = fmt_parse(spec, test_codes, "test", "job");
    fmt_print_row(cap_open(&c), f, rec, NULL);
    fmt_destroy(f);
    return cap_close(&c);
}

static void check(const char *spec, const char *rec, const char *want)
{
    char *got = render(spec, rec);
    assert_string_equal(got, want);
    free(got);
}

static void test_fmt_widths(void **state)
{
    (void)state;
    check("%w", "abc", "abc\n");
    check("%5w|", "abc", "abc  |\n");
    check("%.5w|", "abc", "  abc|\n");
    check("%2w|", "abc", "ab|\n");
    check("%.2w|", "abc", "ab|\n");
    check("%2n|", "abc", "abc|\n");
    check("%.6n|", "abc", "   abc|\n");
    check("x%w%%y", "a", "xa%y\n");
    check("[%w] [%.3w]", "hello", "[hello] [hel]\n");
    check("%%", "a", "%\n");
    check("", "a", "\n");
}

static void test_fmt_header_and_unknown(void **state)
{
    (void)state;
    check("%.2w %3n", NULL, "WO NODELIST\n");
    char *got = render("%w %q!", "a");   /* prints an error; stays literal */
    assert_string_equal(got, "a %q!\n");
    free(got);
    struct fmt *f = fmt_parse("%#w %w", test_codes, "test", "job");
    assert_true(fmt_has(f, 'w'));
    assert_false(fmt_has(f, 'n'));
    fmt_set_auto_width(f, 'w', 6);
    assert_int_equal(f->cols[0].width, 6);
    assert_int_equal(f->cols[1].width, 0);
    fmt_destroy(f);
    fmt_destroy(NULL);
}

static void test_jobstate(void **state)
{
    (void)state;
    assert_string_equal(jobstate_short("PENDING"), "PD");
    assert_string_equal(jobstate_short("RUNNING"), "R");
    assert_string_equal(jobstate_short("COMPLETING"), "CG");
    assert_string_equal(jobstate_short("OUT_OF_MEMORY"), "OOM");
    assert_string_equal(jobstate_short("NODE_FAIL"), "NF");
    assert_string_equal(jobstate_short("STAGE_OUT"), "SO");
    assert_string_equal(jobstate_short("WEIRD"), "WEIRD");
    assert_string_equal(jobstate_parse("pd"), "PENDING");
    assert_string_equal(jobstate_parse("Running"), "RUNNING");
    assert_string_equal(jobstate_parse("CA"), "CANCELLED");
    assert_null(jobstate_parse("bogus"));
    assert_true(jobstate_is_active("PENDING"));
    assert_true(jobstate_is_active("COMPLETING"));
    assert_false(jobstate_is_active("COMPLETED"));
    assert_false(jobstate_is_active("TIMEOUT"));
}

static void node_names(const char *s, int alloc, const char *want_short, const char *want_long)
{
    struct nodestate st;
    char a[32], b[32];
    nodestate_parse(s, alloc, &st);
    nodestate_short(&st, a, sizeof a);
    nodestate_long(&st, b, sizeof b);
    assert_string_equal(a, want_short);
    assert_string_equal(b, want_long);
}

static void test_nodestate(void **state)
{
    (void)state;
    node_names("IDLE", 0, "idle", "idle");
    node_names("MIXED", 2, "mix", "mixed");
    node_names("ALLOCATED", 8, "alloc", "allocated");
    node_names("DOWN", 0, "down", "down");
    node_names("DOWN+NOT_RESPONDING", 0, "down*", "down*");
    node_names("IDLE*", 0, "idle*", "idle*");
    node_names("UNKNOWN", 0, "unk", "unknown");
    node_names("DRAIN", 0, "drain", "drained");
    node_names("DRAIN", 4, "drng", "draining");
    node_names("IDLE+DRAIN", 0, "drain", "drained");
    node_names("MIXED+DRAIN", 2, "drng", "draining");
    node_names("DRAINING", 2, "drng", "draining");
    node_names("ALLOCATED+COMPLETING", 2, "comp", "completing");
    /* in a reservation, as Slurm 22.05 prints them (slurm-ref) */
    node_names("IDLE+MAINTENANCE+RESERVED", 0, "maint", "maint");
    node_names("MIXED+MAINT", 1, "mix$", "mixed$");
    node_names("ALLOCATED$", 64, "alloc$", "allocated$");
    node_names("IDLE+RESERVED", 0, "resv", "reserved");
    node_names("MIXED+RESERVED", 1, "mix", "mixed");
    node_names("IDLE+DRAIN+MAINT", 0, "drain$", "drained$");
    struct nodestate r;
    nodestate_parse("IDLE", 0, &r);
    nodestate_set_resv(&r, false, true);
    assert_true(r.reserved && r.maint);
    struct nodestate a, b;
    nodestate_parse("IDLE+DRAIN", 0, &a);
    nodestate_parse("MIXED", 0, &b);
    assert_true(nodestate_value(&a) > nodestate_value(&b));
    assert_true(nodestate_is_other(&a));
    assert_false(nodestate_is_other(&b));
}

/* now = 1000000 = Mon Jan 12 13:46:40 1970 UTC; the controller's table
 * (src/cmd/squeue/squeue_rows.h) */
static const char *jobs_fixture =
    "now\t1000000\n"
    "job_id\tuser_id\tuser_name\tpartition\tname\tstate\treason\tsubmit_time\tstart_time\t"
    "end_time\ttime_limit\tnode_list\tnum_nodes\tnum_cpus\tpriority\tgpus_per_node\twork_dir"
    "\treservation\n"
    "7\t1000\talice\tgpu\ttrain.sh\tRUNNING\tNone\t996000\t996275\t0\t120\tnode[1-2]\t2\t16"
    "\t100\t2\t/home/a\tlab\n"
    "8\t1001\tbob\tgpu\taveryverylongname\tPENDING\tResources\t999000\t0\t0\t-1\t\t1\t1"
    "\t200\t\\N\t\\N\t\\N\n"
    "9\t1000\talice\tdebug\tprep\tPENDING\tPriority\t999500\t0\t\\N\t30\t\t1\t4\t50"
    "\t\\N\t\\N\t\\N\n"
    "5\t1000\talice\tdebug\told\tCOMPLETED\tNone\t990000\t990000\t990065\t10\tnode3\t1\t1"
    "\t1\t\\N\t\\N\t\\N\n";

static void load(struct sq_rows *r)
{
    char *text = xstrdup(jobs_fixture);
    assert_int_equal(sq_rows_parse(r, text, strlen(text)), 0);
}

static char *squeue_render(const struct squeue_opts *o)
{
    struct capture c;
    struct sq_rows answer;
    load(&answer);
    squeue_print(cap_open(&c), &answer, o, "squeue");
    sq_rows_free(&answer);
    return cap_close(&c);
}

static void test_squeue_default(void **state)
{
    (void)state;
    struct squeue_opts o = {0};
    char *got = squeue_render(&o);
    assert_string_equal(got,
        "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)\n"
        "                 9     debug     prep    alice PD       0:00      1 (Priority)\n"
        "                 8       gpu averyver      bob PD       0:00      1 (Resources)\n"
        "                 7       gpu train.sh    alice  R    1:02:05      2 node[1-2]\n");
    free(got);
}

static void test_squeue_long(void **state)
{
    (void)state;
    struct squeue_opts o = {.long_list = true};
    strlist_split(&o.states, "COMPLETED,RUNNING");
    char *got = squeue_render(&o);
    assert_string_equal(got,
        "Mon Jan 12 13:46:40 1970\n"
        "             JOBID PARTITION     NAME     USER    STATE       TIME TIME_LIMI  NODES"
        " NODELIST(REASON)\n"
        "                 5     debug      old    alice COMPLETE       1:05     10:00      1"
        " node3\n"
        "                 7       gpu train.sh    alice  RUNNING    1:02:05   2:00:00      2"
        " node[1-2]\n");
    free(got);
    squeue_opts_clear(&o);
}

static void test_squeue_format_codes(void **state)
{
    (void)state;
    struct squeue_opts o = {.noheader = true, .all_states = true,
                            .format = "%A|%T|%l|%L|%C|%b|%Q|%V|%S|%e|%r|%N|%U|%Z|%k|%v"};
    strlist_split(&o.jobs, "7,5");
    char *got = squeue_render(&o);
    assert_string_equal(got,
        "5|COMPLETED|10:00|8:55|1|N/A|1|1970-01-12T11:00:00|1970-01-12T11:00:00|"
        "1970-01-12T11:01:05|None|node3|1000|(null)|(null)|(null)\n"
        "7|RUNNING|2:00:00|57:55|16|gres:gpu:2|100|1970-01-12T12:40:00|1970-01-12T12:44:35|"
        "1970-01-12T14:44:35|None|node[1-2]|1000|/home/a|(null)|lab\n");
    free(got);
    squeue_opts_clear(&o);
}

/* Partitions sort by name, whether ranked once (a few names) or compared
 * name by name (more than squeue_print ranks): n jobs, job i in partition
 * "p<n-1-i>", so that the order is the jobs' reversed. */
static void check_partition_order(int n)
{
    char *text = xstrdup("now\t1000000\njob_id\tpartition\tstate\tpriority\n");
    for (int i = 0; i < n; i++) {
        char *more = xasprintf("%s%d\tp%03d\tPENDING\t1\n", text, i + 1, n - 1 - i);
        free(text);
        text = more;
    }
    struct sq_rows r;
    assert_int_equal(sq_rows_parse(&r, text, strlen(text)), 0);
    struct squeue_opts o = {.noheader = true, .format = "%i"};
    struct capture c;
    squeue_print(cap_open(&c), &r, &o, "squeue");
    char *got = cap_close(&c), *p = got;
    for (int i = n; i >= 1; i--) {
        char want[16];
        snprintf(want, sizeof want, "%d\n", i);
        assert_memory_equal(p, want, strlen(want));
        p += strlen(want);
    }
    assert_string_equal(p, "");
    free(got);
    sq_rows_free(&r);
}

static void test_squeue_sort_partitions(void **state)
{
    (void)state;
    check_partition_order(5);
    check_partition_order(200);
}

static void test_squeue_filters(void **state)
{
    (void)state;
    struct sq_rows answer;
    load(&answer);
    const struct sq_row *j7 = &answer.rows[0], *j8 = &answer.rows[1];
    const struct sq_row *j9 = &answer.rows[2], *j5 = &answer.rows[3];
    struct squeue_opts o = {0};
    assert_true(squeue_job_matches(j7, &o));
    assert_false(squeue_job_matches(j5, &o));      /* finished: hidden by default */

    uid_t bob = 1001;
    o.uids = &bob;
    o.nuids = 1;
    o.users_given = true;
    assert_false(squeue_job_matches(j7, &o));
    assert_true(squeue_job_matches(j8, &o));
    o.uids = NULL;
    o.nuids = 0;
    assert_false(squeue_job_matches(j8, &o));      /* -u with no valid user */
    o.users_given = false;

    strlist_split(&o.parts, "debug");
    assert_true(squeue_job_matches(j9, &o));
    assert_false(squeue_job_matches(j7, &o));
    strlist_clear(&o.parts);

    strlist_split(&o.names, "TRAIN.SH");
    assert_true(squeue_job_matches(j7, &o));
    assert_false(squeue_job_matches(j9, &o));
    strlist_clear(&o.names);

    o.resv = "lab";   /* -R */
    assert_true(squeue_job_matches(j7, &o));
    assert_false(squeue_job_matches(j9, &o));
    o.resv = NULL;

    strlist_split(&o.states, "PENDING");
    assert_true(squeue_job_matches(j8, &o));
    assert_false(squeue_job_matches(j7, &o));
    strlist_clear(&o.states);

    o.nodes = hostlist_create("node2");
    assert_true(squeue_job_matches(j7, &o));
    assert_false(squeue_job_matches(j8, &o));
    squeue_opts_clear(&o);
    sq_rows_free(&answer);
}

int main(void)
{
    setenv("TZ", "UTC", 1);
    tzset();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fmt_widths),
        cmocka_unit_test(test_fmt_header_and_unknown),
        cmocka_unit_test(test_jobstate),
        cmocka_unit_test(test_nodestate),
        cmocka_unit_test(test_squeue_default),
        cmocka_unit_test(test_squeue_long),
        cmocka_unit_test(test_squeue_format_codes),
        cmocka_unit_test(test_squeue_sort_partitions),
        cmocka_unit_test(test_squeue_filters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
