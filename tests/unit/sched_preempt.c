/* Unit tests of preemption and reservations in the scheduling core, on
 * every policy: which victims a waiting job names (the cheapest that make
 * room, never more), that jobs being preempted are not chosen twice, that
 * no job runs into a reservation it may not use, that a reservation's own
 * jobs run only inside it, and the reasons jobs are given. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sched/sched.h"

#define MAXN 8
#define MAXJ 16

struct cl {
    struct sched_node nodes[MAXN];
    size_t nnodes, part_nodes[MAXN];
    struct sched_part part;
    struct sched_running run[MAXJ];
    struct sched_alloc run_alloc[MAXJ];
    size_t nrun;
    struct sched_job jobs[MAXJ];
    size_t njobs;
    struct sched_resv resv[2];
    struct sched_alloc holds[2][MAXN];
    struct sched_input in;
    struct sched_output out;
};

static const enum sched_policy policies[] = { SCHED_POLICY_FIFO, SCHED_POLICY_BACKFILL,
                                              SCHED_POLICY_EASY, SCHED_POLICY_HERD };

static void cl_init(struct cl *c, size_t nnodes, int gpus, enum sched_policy pol)
{
    sched_output_free(&c->out);
    memset(c, 0, sizeof(*c));
    c->nnodes = nnodes;
    for (size_t i = 0; i < nnodes; i++) {
        c->nodes[i] = (struct sched_node){ "n", 16, 64000, gpus, NULL, true, 1, NULL };
        c->part_nodes[i] = i;
    }
    c->part = (struct sched_part){ "p", c->part_nodes, nnodes, -1, true };
    c->in.policy = pol;
}

/* A 1-node running job of class cls holding GPU mask on node, since start. */
static struct sched_running *cl_run(struct cl *c, size_t node, uint64_t mask, int cls,
                                    int64_t start)
{
    struct sched_running *r = &c->run[c->nrun];
    c->run_alloc[c->nrun] = (struct sched_alloc){ node, 1, 1000, mask };
    r->job_id = 100 + c->nrun;
    r->allocs = &c->run_alloc[c->nrun];
    r->nallocs = 1;
    r->start_time = start;
    r->end_time = start + 86400;
    r->preempt_class = cls;
    c->nrun++;
    return r;
}

static struct sched_job *cl_job(struct cl *c, int gpus, int64_t limit_s)
{
    struct sched_job *j = &c->jobs[c->njobs];
    memset(j, 0, sizeof(*j));
    j->job_id = c->njobs + 1;
    j->ntasks = 1;
    j->gpus_per_node = gpus;
    j->mem_per_node_mb = 1000;
    j->time_limit_min = (limit_s + 59) / 60;
    c->njobs++;
    return j;
}

/* A reservation over [start, end) holding GPU mask (all: 0) on nodes. */
static void cl_resv(struct cl *c, size_t i, int64_t start, int64_t end, const size_t *nodes,
                    size_t n, uint64_t mask, bool maint)
{
    for (size_t k = 0; k < n; k++) {
        const struct sched_node *nd = &c->nodes[nodes[k]];
        c->holds[i][k] = mask ? (struct sched_alloc){ nodes[k], 0, 0, mask }
                              : (struct sched_alloc){ nodes[k], nd->cpus, nd->mem_mb,
                                                      (UINT64_C(1) << nd->gpus) - 1 };
    }
    c->resv[i] = (struct sched_resv){ start, end, c->holds[i], n, maint, false, false };
    if (i + 1 > c->in.nresvs)
        c->in.nresvs = i + 1;
}

static void cl_plan(struct cl *c, int64_t now)
{
    sched_output_free(&c->out);
    c->in.nodes = c->nodes;
    c->in.nnodes = c->nnodes;
    c->in.parts = &c->part;
    c->in.nparts = 1;
    c->in.running = c->run;
    c->in.nrunning = c->nrun;
    c->in.pending = c->jobs;
    c->in.npending = c->njobs;
    c->in.resvs = c->resv;
    sched_plan(&c->in, now, &c->out);
}

static bool named(const struct sched_decision *d, uint64_t id)
{
    for (size_t i = 0; i < d->npreempt; i++)
        if (d->preempt[i] == id)
            return true;
    return false;
}

/* Four 1-GPU scavengers on a 4-GPU node; a 2-GPU job that may preempt them
 * names exactly the two youngest and waits for them. */
static void test_youngest_two(void **state)
{
    (void)state;
    for (size_t p = 0; p < 4; p++) {
        struct cl c = { 0 };
        cl_init(&c, 1, 4, policies[p]);
        for (int g = 0; g < 4; g++)
            cl_run(&c, 0, UINT64_C(1) << g, 1, 1000 + 100 * g);
        cl_job(&c, 2, 600)->preempts = UINT64_C(1) << 1;
        cl_plan(&c, 2000);
        const struct sched_decision *d = &c.out.d[0];
        assert_int_equal(d->reason, SCHED_RESOURCES);
        assert_int_equal(d->npreempt, 2);
        assert_true(named(d, 102) && named(d, 103));
        sched_output_free(&c.out);
    }
}

/* Without the class bit nothing is named; with fewer GPUs preemptable than
 * needed nothing is named either (no work is lost for nothing). */
static void test_no_victims(void **state)
{
    (void)state;
    for (size_t p = 0; p < 4; p++) {
        struct cl c = { 0 };
        cl_init(&c, 1, 4, policies[p]);
        cl_run(&c, 0, 0x3, 1, 1000);
        cl_run(&c, 0, 0xc, 0, 1000);           /* class 0: never preempted */
        cl_job(&c, 2, 600)->preempts = UINT64_C(1) << 2;
        cl_job(&c, 3, 600)->preempts = UINT64_C(1) << 1;
        cl_plan(&c, 2000);
        assert_int_equal(c.out.d[0].npreempt, 0);
        assert_int_equal(c.out.d[1].npreempt, 0);
        sched_output_free(&c.out);
    }
}

/* The cheapest node: one with a young 1-GPU scavenger beats one whose
 * scavenger has run for hours; a victim is named once per pass, and a job
 * being preempted counts as free for the next pass. */
static void test_cheapest_node_once(void **state)
{
    (void)state;
    for (size_t p = 0; p < 4; p++) {
        struct cl c = { 0 };
        cl_init(&c, 2, 2, policies[p]);
        cl_run(&c, 0, 0x1, 1, 0);
        cl_run(&c, 0, 0x2, 0, 0);
        cl_run(&c, 1, 0x1, 1, 9000);
        cl_run(&c, 1, 0x2, 0, 0);
        struct sched_job *a = cl_job(&c, 1, 600), *b = cl_job(&c, 1, 600);
        a->preempts = b->preempts = UINT64_C(1) << 1;
        cl_plan(&c, 10000);
        assert_int_equal(c.out.d[0].npreempt, 1);
        assert_true(named(&c.out.d[0], 102));
        if (policies[p] != SCHED_POLICY_FIFO) {   /* FIFO: b waits behind a */
            assert_int_equal(c.out.d[1].npreempt, 1);
            assert_true(named(&c.out.d[1], 100));
        }
        /* the next pass: 102 is in its grace time; a needs nothing new */
        c.run[2].preempting = true;
        c.njobs = 1;
        cl_plan(&c, 10001);
        assert_int_equal(c.out.d[0].reason, SCHED_RESOURCES);
        assert_int_equal(c.out.d[0].npreempt, 0);
        sched_output_free(&c.out);
    }
}

/* The free GPU a preemptor counts on is not given to a later job while its
 * victim ends (else it would have to preempt again next pass). */
static void test_claim_kept(void **state)
{
    (void)state;
    for (size_t p = 0; p < 4; p++) {
        struct cl c = { 0 };
        cl_init(&c, 1, 4, policies[p]);
        for (int g = 1; g < 4; g++)
            cl_run(&c, 0, UINT64_C(1) << g, 1, 1000 + 100 * g);
        cl_job(&c, 2, 600)->preempts = UINT64_C(1) << 1;
        cl_job(&c, 1, 60);
        cl_plan(&c, 2000);
        assert_int_equal(c.out.d[0].npreempt, 1);
        assert_true(named(&c.out.d[0], 102));
        assert_int_not_equal(c.out.d[1].reason, SCHED_NONE);
        sched_output_free(&c.out);
    }
}

/* The same on a processor-count cluster (one CPU a node, as the simulator
 * runs a trace): a 2-node preemptor takes the free node and one
 * victim's, and a later 1-node job does not take the free node. */
static void test_claim_kept_pool(void **state)
{
    (void)state;
    for (size_t p = 1; p < 4; p++) {
        struct cl c = { 0 };
        cl_init(&c, 4, 0, policies[p]);
        for (size_t i = 0; i < 4; i++)
            c.nodes[i].cpus = 1, c.nodes[i].mem_mb = 0;
        for (size_t n = 1; n < 4; n++) {
            cl_run(&c, n, 0, 1, 1000 + 100 * (int64_t)n);
            c.run_alloc[c.nrun - 1].mem_mb = 0;
        }
        struct sched_job *a = cl_job(&c, 0, 600), *b = cl_job(&c, 0, 60);
        a->mem_per_node_mb = b->mem_per_node_mb = 0;
        a->min_nodes = a->ntasks = 2;
        a->preempts = UINT64_C(1) << 1;
        cl_plan(&c, 2000);
        assert_int_equal(c.out.d[0].npreempt, 1);
        assert_true(named(&c.out.d[0], 102));
        assert_int_not_equal(c.out.d[1].reason, SCHED_NONE);
        sched_output_free(&c.out);
    }
}

/* A preemptor's claim on its victim's node is counted once: a small job
 * that fits the other node starts now, though the victim and the claim
 * together hold more than that node's CPUs. */
static void test_claim_counted_once(void **state)
{
    (void)state;
    for (size_t p = 1; p < 4; p++) {
        struct cl c = { 0 };
        cl_init(&c, 2, 2, policies[p]);
        cl_run(&c, 0, 0x3, 1, 1000);
        c.run_alloc[0].cpus = 16;
        cl_run(&c, 1, 0x1, 0, 1000);
        c.run_alloc[1].cpus = 15;
        struct sched_job *a = cl_job(&c, 2, 600);
        cl_job(&c, 1, 60);
        a->cpus_per_task = 16;
        a->preempts = UINT64_C(1) << 1;
        cl_plan(&c, 2000);
        assert_int_equal(c.out.d[0].npreempt, 1);
        assert_int_equal(c.out.d[1].reason, SCHED_NONE);
        assert_int_equal(c.out.d[1].allocs[0].node, 1);
        sched_output_free(&c.out);
    }
}

/* A GPU held twice in the plan (a preemptor's claim over its victim's, and
 * its own reservation from the victim's end) stays taken until both give it
 * back: a later job's reservation overlaps neither. */
static void test_gpu_held_twice(void **state)
{
    (void)state;
    struct cl c = { 0 };
    cl_init(&c, 1, 1, SCHED_POLICY_BACKFILL);
    cl_run(&c, 0, 0x1, 1, 1000);               /* ends at 87400 */
    cl_job(&c, 1, 172800)->preempts = UINT64_C(1) << 1;
    cl_job(&c, 1, 600);
    cl_plan(&c, 2000);
    assert_int_equal(c.out.d[0].npreempt, 1);
    assert_int_not_equal(c.out.d[1].reason, SCHED_NONE);
    assert_true(c.out.d[1].start_estimate >= 2000 + 172800);
    /* nor does it overlap the preemptor's own planned run */
    assert_true(c.out.d[0].start_estimate > 0);
    assert_true(c.out.d[1].start_estimate >= c.out.d[0].start_estimate + 172800);
    sched_output_free(&c.out);
}

/* A two-node job names victims on both nodes it gets, and only there. */
static void test_two_nodes(void **state)
{
    (void)state;
    for (size_t p = 0; p < 4; p++) {
        struct cl c = { 0 };
        cl_init(&c, 3, 2, policies[p]);
        cl_run(&c, 0, 0x3, 1, 500);
        cl_run(&c, 1, 0x1, 1, 500);
        cl_run(&c, 1, 0x2, 0, 500);
        cl_run(&c, 2, 0x3, 1, 900);
        struct sched_job *j = cl_job(&c, 2, 600);
        j->min_nodes = 2;
        j->ntasks = 2;
        j->preempts = UINT64_C(1) << 1;
        cl_plan(&c, 1000);
        assert_int_equal(c.out.d[0].npreempt, 2);
        assert_true(named(&c.out.d[0], 100) && named(&c.out.d[0], 103));
        sched_output_free(&c.out);
    }
}

/* A suspended victim frees only its CPUs: a GPU job gains nothing by it. */
static void test_suspend_frees_cpus_only(void **state)
{
    (void)state;
    struct cl c = { 0 };
    cl_init(&c, 1, 1, SCHED_POLICY_HERD);
    struct sched_running *r = cl_run(&c, 0, 0x1, 1, 0);
    r->suspend = true;
    cl_job(&c, 1, 600)->preempts = UINT64_C(1) << 1;
    cl_plan(&c, 100);
    assert_int_equal(c.out.d[0].npreempt, 0);
    sched_output_free(&c.out);
}

/* A MAINT reservation of every node from now+120: a 10-minute job waits
 * with the maintenance reason, a 1-minute one starts. */
static void test_maint_window(void **state)
{
    (void)state;
    static const size_t all[] = { 0, 1 };
    for (size_t p = 0; p < 4; p++) {
        struct cl c = { 0 };
        cl_init(&c, 2, 2, policies[p]);
        cl_resv(&c, 0, 1120, 4720, all, 2, 0, true);
        cl_job(&c, 1, 600);
        cl_job(&c, 1, 60);
        cl_plan(&c, 1000);
        assert_int_equal(c.out.d[0].reason, SCHED_RESV_MAINT);
        assert_int_equal(c.out.d[1].reason, SCHED_NONE);
        if (policies[p] == SCHED_POLICY_BACKFILL)
            assert_true(c.out.d[0].start_estimate >= 4720);
        c.resv[0].maint = false;   /* any other reservation: Slurm's other words */
        cl_plan(&c, 1000);
        assert_int_equal(c.out.d[0].reason, SCHED_RESV_OTHER);
        sched_output_free(&c.out);
    }
}

/* Start estimates never fall inside a maintenance the job would run into,
 * for the job the plan reserves and for those it only forecasts. */
static void test_estimates_skip_maint(void **state)
{
    (void)state;
    static const size_t all[] = { 0 };
    for (size_t p = 1; p < 4; p++) {
        struct cl c = { 0 };
        cl_init(&c, 1, 2, policies[p]);
        cl_resv(&c, 0, 1120, 4720, all, 1, 0, true);
        cl_run(&c, 0, 0x3, 0, 0)->end_time = 1100;
        cl_job(&c, 2, 600);
        cl_job(&c, 2, 600);
        cl_plan(&c, 1000);
        for (size_t i = 0; i < 2; i++) {
            assert_int_equal(c.out.d[i].reason == SCHED_RESOURCES ||
                             c.out.d[i].reason == SCHED_PRIORITY, true);
            assert_true(c.out.d[i].start_estimate >= 4720);
        }
        sched_output_free(&c.out);
    }
}

/* A GPU reservation holding GPUs 0-1 of node 0 now: its job gets them; a
 * job without it gets the other two; a third waits; a job of a reservation
 * that has not begun waits with Reservation until its start. */
static void test_gpu_reservation(void **state)
{
    (void)state;
    static const size_t n0[] = { 0 };
    for (size_t p = 0; p < 4; p++) {
        struct cl c = { 0 };
        cl_init(&c, 1, 4, policies[p]);
        cl_resv(&c, 0, 500, 100000, n0, 1, 0x3, false);
        cl_resv(&c, 1, 5000, 9000, n0, 1, 0x4, false);
        cl_job(&c, 2, 600)->resv = 1;
        cl_job(&c, 2, 600);
        cl_job(&c, 1, 60);
        cl_job(&c, 1, 60)->resv = 2;
        cl_plan(&c, 1000);
        assert_int_equal(c.out.d[0].reason, SCHED_NONE);
        assert_int_equal(c.out.d[0].allocs[0].gpu_mask, 0x3);
        assert_int_equal(c.out.d[1].reason, SCHED_NONE);
        assert_int_equal(c.out.d[1].allocs[0].gpu_mask, 0xc);
        assert_int_not_equal(c.out.d[2].reason, SCHED_NONE);
        assert_int_equal(c.out.d[3].reason, SCHED_RESERVATION);
        assert_int_equal(c.out.d[3].start_estimate, 5000);
        sched_output_free(&c.out);
    }
}

/* A job of a reservation never runs outside it, even on an idle node; a
 * job naming a reservation the input lacks waits as deleted. */
static void test_member_inside_only(void **state)
{
    (void)state;
    static const size_t n1[] = { 1 };
    for (size_t p = 0; p < 4; p++) {
        struct cl c = { 0 };
        cl_init(&c, 2, 2, policies[p]);
        cl_resv(&c, 0, 0, 100000, n1, 1, 0, false);
        cl_run(&c, 1, 0x3, 0, 0);
        cl_job(&c, 1, 60)->resv = 1;
        cl_job(&c, 1, 60)->resv = 7;
        cl_plan(&c, 1000);
        assert_int_equal(c.out.d[0].reason, SCHED_RESERVATION);
        assert_int_equal(c.out.d[1].reason, SCHED_RESV_DELETED);
        sched_output_free(&c.out);
    }
}

/* A job already running on a node a reservation holds uses what it holds:
 * counted once, not twice. A whole-node job without the reservation then
 * starts on the other, idle node at once. */
static void test_running_inside_counted_once(void **state)
{
    (void)state;
    static const size_t n0[] = { 0 };
    for (size_t p = 0; p < 4; p++) {
        struct cl c = { 0 };
        cl_init(&c, 2, 2, policies[p]);
        cl_resv(&c, 0, 900, 100000, n0, 1, 0, false);
        cl_run(&c, 0, 0x1, 0, 0);
        cl_job(&c, 0, 600)->cpus_per_task = 16;
        cl_plan(&c, 1000);
        assert_int_equal(c.out.d[0].reason, SCHED_NONE);
        assert_int_equal(c.out.d[0].allocs[0].node, 1);
        sched_output_free(&c.out);
    }
}

/* When a job running inside a maintenance ends, what it held stays held
 * to the maintenance's end: the plan never promises the node sooner. */
static void test_hold_outlives_running(void **state)
{
    (void)state;
    static const size_t n0[] = { 0 };
    for (size_t p = 1; p < 4; p++) {
        struct cl c = { 0 };
        cl_init(&c, 1, 2, policies[p]);
        cl_resv(&c, 0, 900, 5000, n0, 1, 0, true);
        cl_run(&c, 0, 0x3, 0, 0)->end_time = 1200;
        cl_job(&c, 2, 600);
        cl_job(&c, 2, 600);
        cl_plan(&c, 1000);
        for (size_t i = 0; i < 2; i++) {
            assert_int_not_equal(c.out.d[i].reason, SCHED_NONE);
            assert_true(c.out.d[i].start_estimate >= 5000);
        }
        sched_output_free(&c.out);
    }
}

/* Four 1-CPU nodes: an owner job runs on node 0 until 2000, scavengers on
 * nodes 1 and 2 until 4600. A (all four nodes) is reserved at 2000, the
 * scavengers counted free to it. A later preemptor that would hold three
 * nodes past 2000 names no victims (it would delay A); one that is done
 * before 2000 takes the free node and one scavenger's. */
static struct cl *owners_and_scavengers(struct cl *c, enum sched_policy pol, int64_t b_s,
                                        int b_nodes)
{
    cl_init(c, 4, 0, pol);
    for (size_t i = 0; i < 4; i++)
        c->nodes[i].cpus = 1, c->nodes[i].mem_mb = 0;
    cl_run(c, 0, 0, 0, 500)->end_time = 2000;
    for (size_t n = 1; n < 3; n++)
        cl_run(c, n, 0, 1, 900)->end_time = 4600;
    for (size_t i = 0; i < c->nrun; i++)
        c->run_alloc[i].mem_mb = 0;
    struct sched_job *a = cl_job(c, 0, 600), *b = cl_job(c, 0, b_s);
    a->mem_per_node_mb = b->mem_per_node_mb = 0;
    a->min_nodes = a->ntasks = 4;
    b->min_nodes = b->ntasks = b_nodes;
    a->preempts = b->preempts = UINT64_C(1) << 1;
    return c;
}

static void test_preempt_respects_reservation(void **state)
{
    (void)state;
    for (size_t p = 0; p < 4; p++) {
        struct cl c = { 0 };
        cl_plan(owners_and_scavengers(&c, policies[p], 5000, 3), 1000);
        assert_int_equal(c.out.d[0].npreempt, 0);
        assert_int_equal(c.out.d[1].npreempt, 0);
        assert_int_not_equal(c.out.d[1].reason, SCHED_NONE);
        if (policies[p] != SCHED_POLICY_FIFO)
            assert_int_equal(c.out.d[0].start_estimate, 2000);
        sched_output_free(&c.out);
        if (policies[p] == SCHED_POLICY_FIFO)   /* nothing passes a blocked job */
            continue;
        cl_plan(owners_and_scavengers(&c, policies[p], 540, 2), 1000);
        assert_int_equal(c.out.d[1].npreempt, 1);
        assert_int_equal(c.out.d[0].start_estimate, 2000);
        sched_output_free(&c.out);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_youngest_two),
        cmocka_unit_test(test_no_victims),
        cmocka_unit_test(test_cheapest_node_once),
        cmocka_unit_test(test_claim_kept),
        cmocka_unit_test(test_claim_kept_pool),
        cmocka_unit_test(test_claim_counted_once),
        cmocka_unit_test(test_gpu_held_twice),
        cmocka_unit_test(test_two_nodes),
        cmocka_unit_test(test_suspend_frees_cpus_only),
        cmocka_unit_test(test_maint_window),
        cmocka_unit_test(test_estimates_skip_maint),
        cmocka_unit_test(test_gpu_reservation),
        cmocka_unit_test(test_member_inside_only),
        cmocka_unit_test(test_running_inside_counted_once),
        cmocka_unit_test(test_hold_outlives_running),
        cmocka_unit_test(test_preempt_respects_reservation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
