/* Unit tests of multifactor priority, Fair Tree, billing, decay, features,
 * node weights and pending-reason texts: small hand-checked scenarios. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "sched/sched.h"

#define EPS 1e-9

static void test_age(void **st)
{
    (void)st;
    assert_true(fabs(sched_prio_age(3600, 7200) - 0.5) < EPS);
    assert_true(fabs(sched_prio_age(10000, 7200) - 1.0) < EPS);
    assert_true(sched_prio_age(100, 0) == 0.0);
    assert_true(sched_prio_age(-5, 100) == 0.0);
}

static void test_job_size(void **st)
{
    struct sched_prio_weights w = { .job_size = 1000, .cluster_nodes = 4, .cluster_cpus = 32 };
    struct sched_prio_job j = { .nodes = 2, .cpus = 8 };
    struct sched_prio_factors f;
    (void)st;
    sched_prio_job(&w, &j, &f);
    assert_true(fabs(f.job_size - 0.375) < EPS);          /* (2/4 + 8/32) / 2 */
    assert_int_equal(f.priority, 375);
    w.favor_small = true;
    sched_prio_job(&w, &j, &f);
    assert_true(fabs(f.job_size - 0.625) < EPS);          /* (2/4 + 24/32) / 2 */
}

static void test_sum_and_nice(void **st)
{
    struct sched_prio_weights w = { .age = 1000, .fairshare = 10000, .job_size = 100,
                                    .partition = 1000, .qos = 500, .max_age_s = 7200,
                                    .cluster_nodes = 4, .cluster_cpus = 32 };
    struct sched_prio_job j = { .age_s = 3600, .fairshare = 0.25, .partition = 0.5, .qos = 1.0,
                                .nodes = 2, .cpus = 8 };
    struct sched_prio_factors f;
    (void)st;
    sched_prio_job(&w, &j, &f);
    /* 500 + 2500 + 37.5 + 500 + 500 */
    assert_int_equal(f.priority, 4037);
    assert_true(fabs(f.w_fairshare - 2500) < EPS);
    j.nice = 100;
    sched_prio_job(&w, &j, &f);
    assert_int_equal(f.priority, 3937);
    j.nice = -63;
    sched_prio_job(&w, &j, &f);
    assert_int_equal(f.priority, 4100);
    j.nice = 100000;
    sched_prio_job(&w, &j, &f);
    assert_int_equal(f.priority, 1);                      /* never below 1 */
    j = (struct sched_prio_job){ .fairshare = 7.0, .qos = -1 };   /* factors are clamped */
    sched_prio_job(&w, &j, &f);
    assert_true(f.fairshare == 1.0 && f.qos == 0.0);
}

/* root -> A (30 shares) -> a1 (used 100), a2 (unused); root -> B (10) -> b1 (unused). */
static void test_fairtree_basic(void **st)
{
    struct sched_assoc a[] = {
        { .parent = SCHED_ASSOC_NONE, .shares = 1, .name = "root" },
        { .parent = 0, .shares = 30, .name = "A" },
        { .parent = 0, .shares = 10, .name = "B" },
        { .parent = 1, .user = true, .shares = 1, .usage = 100, .name = "a1" },
        { .parent = 1, .user = true, .shares = 1, .usage = 0, .name = "a2" },
        { .parent = 2, .user = true, .shares = 1, .usage = 0, .name = "b1" },
    };
    (void)st;
    sched_fairtree(a, 6);
    assert_true(fabs(a[0].usage_tree - 100) < EPS);
    assert_true(fabs(a[1].norm_shares - 0.75) < EPS);
    assert_true(fabs(a[1].eff_usage - 1.0) < EPS);
    assert_true(fabs(a[1].level_fs - 0.75) < EPS);
    assert_true(isinf(a[2].level_fs));                    /* B used nothing */
    assert_true(fabs(a[5].fs_factor - 1.0) < EPS);        /* b1 first: rank 3 of 3 */
    assert_true(fabs(a[4].fs_factor - 2.0 / 3) < EPS);    /* then a2 (unused) */
    assert_true(fabs(a[3].fs_factor - 1.0 / 3) < EPS);    /* a1 last */
    assert_true(a[1].fs_factor == 0.0);                   /* accounts have none */
}

/* A user of an account under its share beats a light user of an account
 * over it: the tree ranks accounts first. */
static void test_fairtree_account_first(void **st)
{
    struct sched_assoc a[] = {
        { .parent = SCHED_ASSOC_NONE, .shares = 1, .name = "root" },
        { .parent = 0, .shares = 1, .name = "heavy" },
        { .parent = 0, .shares = 1, .name = "light" },
        { .parent = 1, .user = true, .shares = 1, .usage = 900, .name = "h1" },
        { .parent = 1, .user = true, .shares = 1, .usage = 1, .name = "h2" },
        { .parent = 2, .user = true, .shares = 1, .usage = 99, .name = "l1" },
    };
    (void)st;
    sched_fairtree(a, 6);
    assert_true(a[5].fs_factor > a[4].fs_factor);          /* l1 (99) before h2 (1) */
    assert_true(a[4].fs_factor > a[3].fs_factor);
}

/* Users tied on LF share a rank; the next one gets the rank after both.
 * Accounts tied on LF are ranked as one. */
static void test_fairtree_ties(void **st)
{
    struct sched_assoc a[] = {
        { .parent = SCHED_ASSOC_NONE, .shares = 1, .name = "root" },
        { .parent = 0, .shares = 1, .name = "C" },
        { .parent = 0, .shares = 1, .name = "D" },
        { .parent = 1, .user = true, .shares = 1, .usage = 10, .name = "c1" },
        { .parent = 1, .user = true, .shares = 1, .usage = 10, .name = "c2" },
        { .parent = 2, .user = true, .shares = 1, .usage = 0, .name = "d1" },
        { .parent = 2, .user = true, .shares = 1, .usage = 20, .name = "d2" },
    };
    (void)st;
    sched_fairtree(a, 7);
    /* C and D both used 20 of 40 with half the shares: LF 1 each, merged:
     * d1 (unused: inf) 4/4; c1, c2 (LF 0.5 / 0.5 = 1) tied at 3/4; d2 (0.5 / 1)
     * after both: 1/4. */
    assert_true(fabs(a[1].level_fs - a[2].level_fs) < EPS);
    assert_true(fabs(a[5].fs_factor - 1.0) < EPS);
    assert_true(fabs(a[3].fs_factor - 0.75) < EPS);
    assert_true(fabs(a[4].fs_factor - 0.75) < EPS);
    assert_true(fabs(a[6].fs_factor - 0.25) < EPS);
}

static void test_fairtree_zero_shares(void **st)
{
    struct sched_assoc a[] = {
        { .parent = SCHED_ASSOC_NONE, .shares = 1, .name = "root" },
        { .parent = 0, .user = true, .shares = 0, .usage = 0, .name = "nobody" },
        { .parent = 0, .user = true, .shares = 1, .usage = 50, .name = "busy" },
    };
    (void)st;
    sched_fairtree(a, 3);
    assert_true(a[1].level_fs == 0.0);
    assert_true(a[2].fs_factor > a[1].fs_factor);
}

static void test_billing(void **st)
{
    struct sched_billing b;
    char err[128];
    (void)st;
    assert_int_equal(sched_billing_parse("CPU=1.0,Mem=0.25G,GRES/gpu=2.0", &b, err, sizeof err), 0);
    /* 4 CPUs + 8 GB * 0.25 + 2 GPUs * 2 */
    assert_true(fabs(sched_billing_rate(&b, 4, 8192, 2, 1) - 10.0) < EPS);
    assert_int_equal(sched_billing_parse("CPU=1,GRES/gpu:a100=20", &b, err, sizeof err), 0);
    assert_true(fabs(sched_billing_rate(&b, 1, 0, 1, 1) - 21.0) < EPS);
    assert_int_equal(sched_billing_parse("CPU=abc", &b, err, sizeof err), -1);
    assert_non_null(strstr(err, "CPU=abc"));
    assert_int_equal(sched_billing_parse("Mem=1Q", &b, err, sizeof err), -1);
    assert_int_equal(sched_billing_parse("", &b, err, sizeof err), 0);
    assert_true(sched_billing_rate(&b, 8, 100, 1, 1) == 0.0);
}

static void test_decay(void **st)
{
    (void)st;
    assert_true(fabs(sched_usage_decay(100, 3600, 3600) - 50) < 1e-6);
    assert_true(fabs(sched_usage_decay(100, 7200, 3600) - 25) < 1e-6);
    assert_true(sched_usage_decay(100, 7200, 0) == 100);
    assert_true(sched_usage_decay(100, 0, 3600) == 100);
}

static void test_features(void **st)
{
    (void)st;
    assert_true(sched_features_match("a,b,c", NULL));
    assert_true(sched_features_match(NULL, ""));
    assert_true(sched_features_match("a,b,c", "a&b"));
    assert_true(sched_features_match("a,b,c", "a,c"));
    assert_false(sched_features_match("a,b,c", "a&d"));
    assert_true(sched_features_match("a,b,c", "d|b"));
    assert_true(sched_features_match("ib,a100", "v100&ib|a100&ib"));
    assert_false(sched_features_match("ib,v100", "a100&ib|h100"));
    assert_false(sched_features_match(NULL, "a"));
    assert_false(sched_features_match("ab", "a"));
    assert_true(sched_features_match("A100", "a100"));
    assert_false(sched_features_match("a", "[a|b]"));     /* unsupported forms match nothing */
}

/* ---- placement: weights, constraints, shared partitions ---- */

struct mini {
    struct sched_node nodes[4];
    struct sched_part parts[2];
    size_t pn[2][4];
    struct sched_running run[2];
    struct sched_alloc ra[2];
    struct sched_job jobs[4];
    struct sched_input in;
    struct sched_output out;
};

static void mini_init(struct mini *m, size_t nnodes, enum sched_policy pol)
{
    memset(m, 0, sizeof(*m));
    for (size_t i = 0; i < nnodes; i++) {
        m->nodes[i] = (struct sched_node){ "n", 8, 8000, 4, NULL, true, 1, NULL };
        m->pn[0][i] = i;
    }
    m->parts[0] = (struct sched_part){ "p0", m->pn[0], nnodes, -1, true };
    m->in = (struct sched_input){ .nodes = m->nodes, .nnodes = nnodes, .parts = m->parts,
                                  .nparts = 1, .running = m->run, .pending = m->jobs,
                                  .policy = pol };
}

static struct sched_job *mini_job(struct mini *m, uint64_t id, size_t part, int gpus)
{
    struct sched_job *j = &m->jobs[m->in.npending++];
    *j = (struct sched_job){ .job_id = id, .part = part, .min_nodes = 1, .ntasks = 1,
                             .cpus_per_task = 1, .gpus_per_node = gpus, .time_limit_min = 10 };
    return j;
}

static void test_weight_preferred(void **st)
{
    struct mini m;
    (void)st;
    for (int pol = SCHED_POLICY_FIFO; pol <= SCHED_POLICY_HERD; pol++) {
        mini_init(&m, 3, (enum sched_policy)pol);
        m.nodes[0].weight = 10;
        m.nodes[1].weight = 5;
        m.nodes[2].weight = 10;
        mini_job(&m, 1, 0, 1);
        sched_plan(&m.in, 0, &m.out);
        assert_int_equal(m.out.d[0].reason, SCHED_NONE);
        assert_int_equal(m.out.d[0].allocs[0].node, 1);
        sched_output_free(&m.out);
    }
}

static void test_constraint(void **st)
{
    struct mini m;
    (void)st;
    mini_init(&m, 3, SCHED_POLICY_HERD);
    m.nodes[0].features = "v100";
    m.nodes[1].features = "a100,ib";
    m.nodes[2].features = "a100";
    mini_job(&m, 1, 0, 1)->constraint = "a100&ib";
    mini_job(&m, 2, 0, 1)->constraint = "h100";
    mini_job(&m, 3, 0, 1)->constraint = "v100|h100";
    sched_plan(&m.in, 0, &m.out);
    assert_int_equal(m.out.d[0].reason, SCHED_NONE);
    assert_int_equal(m.out.d[0].allocs[0].node, 1);
    assert_int_equal(m.out.d[1].reason, SCHED_BAD_CONSTRAINTS);
    assert_int_equal(m.out.d[2].reason, SCHED_NONE);
    assert_int_equal(m.out.d[2].allocs[0].node, 0);
    sched_output_free(&m.out);
}

/* p0 = {n0, n1}, p1 = {n0}: a job of p0 holding n0's GPUs leaves p1 none. */
static void test_shared_partitions(void **st)
{
    struct mini m;
    (void)st;
    for (int pol = SCHED_POLICY_FIFO; pol <= SCHED_POLICY_HERD; pol++) {
        mini_init(&m, 2, (enum sched_policy)pol);
        m.pn[1][0] = 0;
        m.parts[1] = (struct sched_part){ "p1", m.pn[1], 1, -1, true };
        m.in.nparts = 2;
        m.ra[0] = (struct sched_alloc){ 0, 1, 0, 0xf };
        m.run[0] = (struct sched_running){ .job_id = 7, .allocs = &m.ra[0], .nallocs = 1, .exclusive = false, .end_time = 600 };
        m.in.nrunning = 1;
        mini_job(&m, 1, 1, 1);
        mini_job(&m, 2, 0, 4);
        sched_plan(&m.in, 0, &m.out);
        assert_int_equal(m.out.d[0].reason, SCHED_RESOURCES);
        assert_int_equal(m.out.d[1].reason, SCHED_NONE);
        assert_int_equal(m.out.d[1].allocs[0].node, 1);
        if (pol != SCHED_POLICY_FIFO) {
            assert_int_equal(m.out.d[0].start_estimate, 600);
            assert_int_equal(sched_explain_waits_for(&m.in, &m.jobs[0], 600), 7);
        }
        sched_output_free(&m.out);
    }
}

static void test_explain(void **st)
{
    struct mini m;
    char buf[256];
    (void)st;
    mini_init(&m, 2, SCHED_POLICY_HERD);
    m.ra[0] = (struct sched_alloc){ 0, 1, 0, 0x3 };
    m.ra[1] = (struct sched_alloc){ 1, 1, 0, 0x7 };
    m.run[0] = (struct sched_running){ .job_id = 811, .allocs = &m.ra[0], .nallocs = 1, .exclusive = false, .end_time = 500 };
    m.run[1] = (struct sched_running){ .job_id = 812, .allocs = &m.ra[1], .nallocs = 1, .exclusive = false, .end_time = 900 };
    m.in.nrunning = 2;
    struct sched_job *j = mini_job(&m, 1, 0, 4);
    sched_explain(&m.in, j, SCHED_RESOURCES, buf, sizeof buf);
    assert_string_equal(buf, "needs 4 GPUs, 1 CPU on one node of partition p0; "
                             "the most free on any node is 2 GPUs");
    assert_int_equal(sched_explain_waits_for(&m.in, j, 500), 811);
    assert_int_equal(sched_explain_waits_for(&m.in, j, 900), 812);
    assert_int_equal(sched_explain_waits_for(&m.in, j, 100), 0);
    sched_explain(&m.in, j, SCHED_PART_DOWN, buf, sizeof buf);
    assert_string_equal(buf, "partition p0 is down");
    char tiny[8];
    sched_explain(&m.in, j, SCHED_RESOURCES, tiny, sizeof tiny);
    assert_int_equal(strlen(tiny), 7);                    /* cut, never overrun */
}

/* The decision's text for a start est seconds after now (2026-01-01T10:00Z)
 * with the process's TZ set to tz: the input alone decides it. */
static void decision_text(const char *tz, int64_t est, char *buf, size_t len)
{
    const int64_t now = 1767261600;
    struct mini m;
    mini_init(&m, 2, SCHED_POLICY_HERD);
    m.in.utc_offset_s = 3600;
    m.ra[0] = (struct sched_alloc){ 0, 1, 0, 0x3 };
    m.run[0] = (struct sched_running){ .job_id = 811, .allocs = &m.ra[0], .nallocs = 1, .exclusive = false, .end_time = now + est };
    m.in.nrunning = 1;
    struct sched_job *j = mini_job(&m, 1, 0, 4);
    struct sched_decision d = { .job_id = 1, .reason = SCHED_RESOURCES,
                                .start_estimate = now + est };
    setenv("TZ", tz, 1);
    tzset();
    sched_explain_decision(&m.in, j, &d, now, buf, len);
}

/* The pure core reads no time zone: the same input gives the same text in
 * any TZ, its times local by the input's utc_offset_s (+01:00 here). */
static void test_explain_decision_any_tz(void **st)
{
    char utc[256], tokyo[256], later[256];
    (void)st;
    decision_text("UTC0", 3 * 3600, utc, sizeof utc);
    decision_text("JST-9", 3 * 3600, tokyo, sizeof tokyo);
    assert_string_equal(utc, tokyo);
    assert_non_null(strstr(utc, "; expected start 14:00 when job 811 ends"));
    decision_text("UTC0", 14 * 3600, utc, sizeof utc);
    decision_text("JST-9", 14 * 3600, later, sizeof later);
    assert_string_equal(utc, later);
    assert_non_null(strstr(utc, "; expected start 2026-01-02T01:00 when job 811 ends"));
    unsetenv("TZ");
    tzset();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_age),
        cmocka_unit_test(test_job_size),
        cmocka_unit_test(test_sum_and_nice),
        cmocka_unit_test(test_fairtree_basic),
        cmocka_unit_test(test_fairtree_account_first),
        cmocka_unit_test(test_fairtree_ties),
        cmocka_unit_test(test_fairtree_zero_shares),
        cmocka_unit_test(test_billing),
        cmocka_unit_test(test_decay),
        cmocka_unit_test(test_features),
        cmocka_unit_test(test_weight_preferred),
        cmocka_unit_test(test_constraint),
        cmocka_unit_test(test_shared_partitions),
        cmocka_unit_test(test_explain),
        cmocka_unit_test(test_explain_decision_any_tz),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
