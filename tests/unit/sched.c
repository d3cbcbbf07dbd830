/* Unit tests of the scheduling core: small hand-checked clusters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sched/sched.h"

#define MAXN 16

struct cluster {
    struct sched_node nodes[MAXN];
    size_t nnodes;
    struct sched_part parts[4];
    size_t part_nodes[4][MAXN];
    size_t nparts;
    struct sched_running running[MAXN];
    struct sched_alloc run_allocs[MAXN];
    size_t nrunning;
    struct sched_job jobs[MAXN];
    size_t njobs;
    struct sched_input in;
    struct sched_output out;
};

static struct cluster *cl_new(void)
{
    struct cluster *c = test_calloc(1, sizeof(*c));
    return c;
}

static void cl_free(struct cluster *c)
{
    sched_output_free(&c->out);
    test_free(c);
}

static size_t cl_node(struct cluster *c, int cpus, uint64_t mem, int gpus, const char *type)
{
    struct sched_node *n = &c->nodes[c->nnodes];
    n->name = "n";
    n->cpus = cpus;
    n->mem_mb = mem;
    n->gpus = gpus;
    n->gpu_type = type;
    n->avail = true;
    return c->nnodes++;
}

/* A partition of nodes [first, first + count). */
static size_t cl_part(struct cluster *c, size_t first, size_t count, int64_t max_time)
{
    struct sched_part *p = &c->parts[c->nparts];
    for (size_t i = 0; i < count; i++)
        c->part_nodes[c->nparts][i] = first + i;
    p->name = "p";
    p->nodes = c->part_nodes[c->nparts];
    p->nnodes = count;
    p->max_time_min = max_time;
    p->up = true;
    return c->nparts++;
}

static void cl_run(struct cluster *c, size_t node, int cpus, uint64_t mem, uint64_t mask, bool excl)
{
    struct sched_alloc *a = &c->run_allocs[c->nrunning];
    struct sched_running *r = &c->running[c->nrunning];
    a->node = node;
    a->cpus = cpus;
    a->mem_mb = mem;
    a->gpu_mask = mask;
    r->job_id = 1000 + c->nrunning;
    r->allocs = a;
    r->nallocs = 1;
    r->exclusive = excl;
    r->end_time = -1;
    c->nrunning++;
}

static struct sched_job *cl_job(struct cluster *c, size_t part)
{
    struct sched_job *j = &c->jobs[c->njobs];
    memset(j, 0, sizeof(*j));
    j->job_id = c->njobs + 1;
    j->part = part;
    j->time_limit_min = -1;
    c->njobs++;
    return j;
}

static void cl_input(struct cluster *c)
{
    c->in.nodes = c->nodes;
    c->in.nnodes = c->nnodes;
    c->in.parts = c->parts;
    c->in.nparts = c->nparts;
    c->in.running = c->running;
    c->in.nrunning = c->nrunning;
    c->in.pending = c->jobs;
    c->in.npending = c->njobs;
}

static const struct sched_decision *cl_plan(struct cluster *c)
{
    sched_output_free(&c->out);
    cl_input(c);
    sched_plan(&c->in, 0, &c->out);
    assert_int_equal(c->out.n, c->njobs);
    for (size_t i = 0; i < c->njobs; i++) {
        assert_int_equal(c->out.d[i].job_id, c->jobs[i].job_id);
        if (c->out.d[i].reason != SCHED_NONE)
            assert_int_equal(c->out.d[i].nallocs, 0);
    }
    return c->out.d;
}

static enum sched_reason cl_feasible(struct cluster *c, size_t job)
{
    cl_input(c);
    return sched_feasible(&c->in, &c->jobs[job]);
}

static void assert_alloc(const struct sched_decision *d, size_t i, size_t node, int cpus,
                         uint64_t mem, uint64_t mask)
{
    assert_int_equal(d->reason, SCHED_NONE);
    assert_true(i < d->nallocs);
    assert_int_equal(d->allocs[i].node, node);
    assert_int_equal(d->allocs[i].cpus, cpus);
    assert_int_equal(d->allocs[i].mem_mb, mem);
    assert_int_equal(d->allocs[i].gpu_mask, mask);
}

static void test_reason_names(void **state)
{
    (void)state;
    assert_string_equal(sched_reason_name(SCHED_NONE), "None");
    assert_string_equal(sched_reason_name(SCHED_RESOURCES), "Resources");
    assert_string_equal(sched_reason_name(SCHED_PRIORITY), "Priority");
    assert_string_equal(sched_reason_name(SCHED_HELD_USER), "JobHeldUser");
    assert_string_equal(sched_reason_name(SCHED_HELD_ADMIN), "JobHeldAdmin");
    assert_string_equal(sched_reason_name(SCHED_PART_DOWN), "PartitionDown");
    assert_string_equal(sched_reason_name(SCHED_PART_TIME_LIMIT), "PartitionTimeLimit");
    assert_string_equal(sched_reason_name(SCHED_REQ_NODE_NOT_AVAIL), "ReqNodeNotAvail");
    assert_string_equal(sched_reason_name(SCHED_BAD_CONSTRAINTS), "BadConstraints");
}

static void test_six_full_gpu_jobs(void **state)
{
    struct cluster *c = cl_new();
    const struct sched_decision *d;
    (void)state;
    cl_node(c, 32, 256000, 4, "a100");
    cl_node(c, 32, 256000, 4, "a100");
    cl_part(c, 0, 2, -1);
    for (int i = 0; i < 6; i++)
        cl_job(c, 0)->gpus_per_node = 4;
    d = cl_plan(c);
    assert_int_equal(d[0].nallocs, 1);
    assert_int_equal(d[1].nallocs, 1);
    assert_alloc(&d[0], 0, 0, 1, 0, 0xf);
    assert_alloc(&d[1], 0, 1, 1, 0, 0xf);
    assert_int_equal(d[2].reason, SCHED_RESOURCES);
    for (int i = 3; i < 6; i++)
        assert_int_equal(d[i].reason, SCHED_PRIORITY);
    cl_free(c);
}

static void test_gpu_indices_avoid_running(void **state)
{
    struct cluster *c = cl_new();
    const struct sched_decision *d;
    (void)state;
    cl_node(c, 16, 1000, 4, NULL);
    cl_part(c, 0, 1, -1);
    cl_run(c, 0, 1, 0, 0x3, false);
    cl_job(c, 0)->gpus = 2;
    cl_job(c, 0)->gpus = 1;
    d = cl_plan(c);
    assert_alloc(&d[0], 0, 0, 1, 0, 0xc);
    assert_int_equal(d[1].reason, SCHED_RESOURCES);

    /* Within one pass too: lowest free first, never twice. */
    c->nrunning = 0;
    c->njobs = 0;
    cl_job(c, 0)->gpus = 1;
    cl_job(c, 0)->gpus = 2;
    cl_job(c, 0)->gpus = 1;
    d = cl_plan(c);
    assert_alloc(&d[0], 0, 0, 1, 0, 0x1);
    assert_alloc(&d[1], 0, 0, 1, 0, 0x6);
    assert_alloc(&d[2], 0, 0, 1, 0, 0x8);
    cl_free(c);
}

static void test_cpu_and_memory_limits(void **state)
{
    struct cluster *c = cl_new();
    const struct sched_decision *d;
    struct sched_job *j;
    (void)state;
    cl_node(c, 8, 1000, 0, NULL);
    cl_part(c, 0, 1, -1);
    cl_part(c, 0, 1, -1);
    cl_part(c, 0, 1, -1);
    cl_run(c, 0, 6, 600, 0, false);
    cl_job(c, 0)->ntasks = 3;                  /* 3 CPUs, only 2 free */
    j = cl_job(c, 1);                          /* fits CPUs, not memory */
    j->ntasks = 1;
    j->mem_per_node_mb = 500;
    j = cl_job(c, 2);                          /* 2 CPUs x 200 MB = 400 */
    j->ntasks = 2;
    j->mem_per_cpu_mb = 200;
    d = cl_plan(c);
    assert_int_equal(d[0].reason, SCHED_RESOURCES);
    assert_int_equal(d[1].reason, SCHED_RESOURCES);
    assert_alloc(&d[2], 0, 0, 2, 400, 0);

    /* -c multiplies: 2 tasks x 3 CPUs. */
    c->nrunning = 0;
    c->njobs = 0;
    j = cl_job(c, 0);
    j->ntasks = 2;
    j->cpus_per_task = 3;
    cl_job(c, 1)->ntasks = 3;                  /* 2 left */
    cl_job(c, 2)->ntasks = 2;
    d = cl_plan(c);
    assert_alloc(&d[0], 0, 0, 6, 0, 0);
    assert_int_equal(d[1].reason, SCHED_RESOURCES);
    assert_alloc(&d[2], 0, 0, 2, 0, 0);
    cl_free(c);
}

static void test_mem_per_gpu(void **state)
{
    struct cluster *c = cl_new();
    const struct sched_decision *d;
    struct sched_job *j;
    (void)state;
    cl_node(c, 8, 1000, 4, NULL);
    cl_part(c, 0, 1, -1);
    j = cl_job(c, 0);
    j->gpus = 2;
    j->mem_per_gpu_mb = 300;
    j = cl_job(c, 0);
    j->gpus = 2;
    j->mem_per_gpu_mb = 300;                   /* 600 > 400 left */
    d = cl_plan(c);
    assert_alloc(&d[0], 0, 0, 1, 600, 0x3);
    assert_int_equal(d[1].reason, SCHED_RESOURCES);
    cl_free(c);
}

static void test_exclusive(void **state)
{
    struct cluster *c = cl_new();
    const struct sched_decision *d;
    (void)state;
    cl_node(c, 8, 1000, 2, NULL);
    cl_node(c, 8, 1000, 2, NULL);
    cl_node(c, 8, 1000, 2, NULL);
    cl_part(c, 0, 3, -1);
    cl_part(c, 0, 3, -1);
    cl_run(c, 0, 1, 0, 0, false);
    cl_run(c, 2, 1, 0, 0, true);               /* exclusive: node 2 is full */
    cl_job(c, 0)->exclusive = true;            /* only node 1 is unused */
    cl_job(c, 1)->ntasks = 1;                  /* must go to node 0 */
    cl_job(c, 1)->exclusive = true;
    d = cl_plan(c);
    assert_alloc(&d[0], 0, 1, 8, 1000, 0x3);
    assert_alloc(&d[1], 0, 0, 1, 0, 0);
    assert_int_equal(d[2].reason, SCHED_RESOURCES);
    cl_free(c);
}

static void test_held_does_not_block(void **state)
{
    struct cluster *c = cl_new();
    const struct sched_decision *d;
    (void)state;
    cl_node(c, 8, 1000, 0, NULL);
    cl_part(c, 0, 1, -1);
    cl_job(c, 0)->held_user = true;
    cl_job(c, 0)->held_admin = true;
    cl_job(c, 0)->ntasks = 2;
    d = cl_plan(c);
    assert_int_equal(d[0].reason, SCHED_HELD_USER);
    assert_int_equal(d[1].reason, SCHED_HELD_ADMIN);
    assert_alloc(&d[2], 0, 0, 2, 0, 0);
    cl_free(c);
}

static void test_partition_blocking(void **state)
{
    struct cluster *c = cl_new();
    const struct sched_decision *d;
    (void)state;
    cl_node(c, 8, 1000, 0, NULL);
    cl_node(c, 8, 1000, 0, NULL);
    cl_part(c, 0, 1, -1);
    cl_part(c, 1, 1, -1);
    cl_run(c, 0, 4, 0, 0, false);
    cl_job(c, 0)->ntasks = 8;                  /* waits for node 0 */
    cl_job(c, 0)->ntasks = 1;                  /* would fit, but waits its turn */
    cl_job(c, 1)->ntasks = 8;
    cl_job(c, 1)->ntasks = 1;                  /* node 1 is full now */
    d = cl_plan(c);
    assert_int_equal(d[0].reason, SCHED_RESOURCES);
    assert_int_equal(d[1].reason, SCHED_PRIORITY);
    assert_alloc(&d[2], 0, 1, 8, 0, 0);
    assert_int_equal(d[3].reason, SCHED_RESOURCES);
    cl_free(c);
}

static void test_partition_down_and_time_limit(void **state)
{
    struct cluster *c = cl_new();
    const struct sched_decision *d;
    (void)state;
    cl_node(c, 8, 1000, 0, NULL);
    cl_part(c, 0, 1, 60);
    cl_part(c, 0, 1, -1);
    c->parts[1].up = false;
    cl_job(c, 1);
    cl_job(c, 0)->time_limit_min = 61;
    cl_job(c, 0)->time_limit_min = 60;
    d = cl_plan(c);
    assert_int_equal(d[0].reason, SCHED_PART_DOWN);
    assert_int_equal(d[1].reason, SCHED_PART_TIME_LIMIT);
    assert_alloc(&d[2], 0, 0, 1, 0, 0);
    cl_free(c);
}

static void test_required_and_excluded_nodes(void **state)
{
    static const size_t n1[] = { 1 }, n0[] = { 0 }, n2[] = { 2 }, n01[] = { 0, 1 };
    struct cluster *c = cl_new();
    const struct sched_decision *d;
    struct sched_job *j;
    (void)state;
    cl_node(c, 8, 1000, 0, NULL);
    cl_node(c, 8, 1000, 0, NULL);
    cl_node(c, 8, 1000, 0, NULL);
    cl_part(c, 0, 2, -1);                      /* nodes 0, 1 */
    cl_part(c, 0, 3, -1);
    j = cl_job(c, 0);                          /* best fit says node 0 */
    j->req_nodes = n1;
    j->nreq_nodes = 1;
    j = cl_job(c, 0);
    j->excl_nodes = n0;
    j->nexcl_nodes = 1;
    j = cl_job(c, 0);                          /* node 2 is not in partition 0 */
    j->req_nodes = n2;
    j->nreq_nodes = 1;
    j = cl_job(c, 0);                          /* nothing left to run on */
    j->excl_nodes = n01;
    j->nexcl_nodes = 2;
    d = cl_plan(c);
    assert_alloc(&d[0], 0, 1, 1, 0, 0);
    assert_alloc(&d[1], 0, 1, 1, 0, 0);
    assert_int_equal(d[2].reason, SCHED_BAD_CONSTRAINTS);
    assert_int_equal(d[3].reason, SCHED_BAD_CONSTRAINTS);
    assert_int_equal(cl_feasible(c, 2), SCHED_BAD_CONSTRAINTS);
    assert_int_equal(cl_feasible(c, 3), SCHED_BAD_CONSTRAINTS);

    /* -w on a down node blocks the partition; -w raises the node count. */
    c->njobs = 0;
    c->nodes[1].avail = false;
    j = cl_job(c, 0);
    j->req_nodes = n1;
    j->nreq_nodes = 1;
    cl_job(c, 0);
    j = cl_job(c, 1);
    j->req_nodes = n01;
    j->nreq_nodes = 2;
    c->nodes[1].avail = true;
    c->nodes[2].avail = false;
    d = cl_plan(c);
    assert_alloc(&d[0], 0, 1, 1, 0, 0);
    assert_alloc(&d[1], 0, 1, 1, 0, 0);       /* best fit: node 1 is fuller */
    assert_int_equal(d[2].nallocs, 2);
    assert_alloc(&d[2], 0, 0, 1, 0, 0);
    assert_alloc(&d[2], 1, 1, 1, 0, 0);

    c->nodes[1].avail = false;
    d = cl_plan(c);
    assert_int_equal(d[0].reason, SCHED_REQ_NODE_NOT_AVAIL);
    assert_int_equal(d[1].reason, SCHED_PRIORITY);
    assert_int_equal(d[2].reason, SCHED_REQ_NODE_NOT_AVAIL);
    assert_int_equal(cl_feasible(c, 0), SCHED_NONE);
    cl_free(c);
}

static void test_gpu_type(void **state)
{
    struct cluster *c = cl_new();
    const struct sched_decision *d;
    (void)state;
    cl_node(c, 8, 1000, 4, "a100");
    cl_node(c, 8, 1000, 4, "h100");
    cl_node(c, 8, 1000, 0, NULL);
    cl_part(c, 0, 3, -1);
    cl_job(c, 0)->gpus = 1;
    c->jobs[0].gpu_type = "H100";
    cl_job(c, 0)->gpus = 1;
    c->jobs[1].gpu_type = "v100";
    cl_job(c, 0)->gpus = 1;
    c->jobs[2].gpu_type = "";
    d = cl_plan(c);
    assert_alloc(&d[0], 0, 1, 1, 0, 0x1);
    assert_int_equal(d[1].reason, SCHED_BAD_CONSTRAINTS);
    /* untyped: node 1 now has the fewest free GPUs */
    assert_alloc(&d[2], 0, 1, 1, 0, 0x2);
    assert_int_equal(cl_feasible(c, 1), SCHED_BAD_CONSTRAINTS);
    cl_free(c);
}

static void test_multi_node(void **state)
{
    struct cluster *c = cl_new();
    const struct sched_decision *d;
    struct sched_job *j;
    (void)state;
    for (int i = 0; i < 3; i++)
        cl_node(c, 8, 1000, 4, NULL);
    cl_part(c, 0, 3, -1);
    cl_run(c, 1, 1, 0, 0x1, false);
    j = cl_job(c, 0);                          /* 2 x (4 tasks x 2 CPUs), 3 GPUs */
    j->min_nodes = 2;
    j->ntasks_per_node = 4;
    j->cpus_per_task = 2;
    j->gpus = 3;
    j->mem_per_cpu_mb = 10;
    j = cl_job(c, 0);                          /* 3 tasks on 2 nodes: 2 + 1 */
    j->min_nodes = 2;
    j->ntasks = 3;
    j->gpus_per_node = 1;
    d = cl_plan(c);
    assert_int_equal(d[0].nallocs, 2);
    assert_alloc(&d[0], 0, 0, 8, 80, 0x3);
    assert_alloc(&d[0], 1, 2, 8, 80, 0x1);
    /* node 1: 7 CPUs, GPUs 1-3 free; node 0: none, node 2: 0 CPUs */
    assert_int_equal(d[1].reason, SCHED_RESOURCES);
    assert_int_equal(cl_feasible(c, 1), SCHED_NONE);

    c->nrunning = 0;
    c->njobs = 1;
    c->jobs[0].ntasks_per_node = 1;
    c->jobs[0].cpus_per_task = 1;
    j = cl_job(c, 0);
    j->min_nodes = 3;
    j->ntasks = 4;
    j->gpus = 2;                               /* spread 1, 1, 0 */
    d = cl_plan(c);
    assert_alloc(&d[0], 0, 0, 1, 10, 0x3);
    assert_alloc(&d[0], 1, 1, 1, 10, 0x1);
    assert_int_equal(d[1].nallocs, 3);
    assert_alloc(&d[1], 0, 0, 2, 0, 0x4);
    assert_alloc(&d[1], 1, 1, 1, 0, 0x2);
    assert_alloc(&d[1], 2, 2, 1, 0, 0);

    /* Best fit puts the 2-GPU share on node 1, but the first node gets the
     * remainder when it fits there too. */
    c->njobs = 0;
    cl_run(c, 1, 1, 0, 0x3, false);
    j = cl_job(c, 0);
    j->min_nodes = 2;
    j->gpus = 3;
    j->excl_nodes = (const size_t[]){ 2 };
    j->nexcl_nodes = 1;
    d = cl_plan(c);
    assert_alloc(&d[0], 0, 0, 1, 0, 0x3);
    assert_alloc(&d[0], 1, 1, 1, 0, 0x4);
    cl_free(c);
}

static void test_best_fit(void **state)
{
    struct cluster *c = cl_new();
    const struct sched_decision *d;
    (void)state;
    cl_node(c, 8, 1000, 4, NULL);
    cl_node(c, 8, 1000, 4, NULL);
    cl_node(c, 8, 1000, 0, NULL);
    cl_node(c, 8, 1000, 0, NULL);
    cl_part(c, 0, 4, -1);
    cl_run(c, 1, 3, 0, 0x7, false);
    cl_run(c, 3, 2, 0, 0, false);
    cl_job(c, 0)->gpus = 1;                    /* node 1, the last GPU */
    cl_job(c, 0);                              /* no GPUs: a CPU-only node, the fuller one */
    cl_job(c, 0)->gpus = 4;                    /* the whole node 0 stayed free */
    d = cl_plan(c);
    assert_alloc(&d[0], 0, 1, 1, 0, 0x8);
    assert_alloc(&d[1], 0, 3, 1, 0, 0);
    assert_alloc(&d[2], 0, 0, 1, 0, 0xf);
    cl_free(c);
}

static void test_unavailable_node(void **state)
{
    struct cluster *c = cl_new();
    const struct sched_decision *d;
    (void)state;
    cl_node(c, 8, 1000, 0, NULL);
    cl_node(c, 8, 1000, 0, NULL);
    cl_part(c, 0, 2, -1);
    c->nodes[0].avail = false;
    cl_job(c, 0);
    cl_job(c, 0)->ntasks = 8;
    d = cl_plan(c);
    assert_alloc(&d[0], 0, 1, 1, 0, 0);
    assert_int_equal(d[1].reason, SCHED_RESOURCES);
    c->nodes[1].avail = false;
    d = cl_plan(c);
    assert_int_equal(d[0].reason, SCHED_RESOURCES);
    assert_int_equal(d[1].reason, SCHED_PRIORITY);
    assert_int_equal(cl_feasible(c, 0), SCHED_NONE);
    cl_free(c);
}

static void test_feasible(void **state)
{
    static const size_t n2[] = { 2 };
    struct cluster *c = cl_new();
    struct sched_job *j;
    (void)state;
    cl_node(c, 8, 1000, 4, "a100");
    cl_node(c, 16, 2000, 2, "a100");
    cl_node(c, 64, 9000, 8, "h100");
    cl_part(c, 0, 2, 120);
    cl_run(c, 0, 8, 1000, 0xf, true);          /* ignored */
    c->nodes[1].avail = false;                 /* ignored */
    cl_job(c, 0)->time_limit_min = 121;
    cl_job(c, 0)->gpus_per_node = 5;
    cl_job(c, 0)->ntasks = 17;
    cl_job(c, 0)->mem_per_node_mb = 2001;
    cl_job(c, 0)->min_nodes = 3;
    j = cl_job(c, 0);
    j->gpus = 1;
    j->gpu_type = "h100";
    j = cl_job(c, 0);
    j->req_nodes = n2;
    j->nreq_nodes = 1;
    j = cl_job(c, 0);                          /* fits only on node 1 */
    j->ntasks = 16;
    j->mem_per_node_mb = 2000;
    j->time_limit_min = 120;
    j = cl_job(c, 0);                          /* 3 + 2 */
    j->min_nodes = 2;
    j->gpus = 5;
    j = cl_job(c, 0);                          /* 3 + 3 > 2 on node 1 */
    j->min_nodes = 2;
    j->gpus_per_node = 3;
    assert_int_equal(cl_feasible(c, 0), SCHED_PART_TIME_LIMIT);
    for (size_t i = 1; i <= 6; i++)
        assert_int_equal(cl_feasible(c, i), SCHED_BAD_CONSTRAINTS);
    assert_int_equal(cl_feasible(c, 7), SCHED_NONE);
    assert_int_equal(cl_feasible(c, 8), SCHED_NONE);
    assert_int_equal(cl_feasible(c, 9), SCHED_BAD_CONSTRAINTS);
    c->jobs[0].part = 7;
    assert_int_equal(cl_feasible(c, 0), SCHED_BAD_CONSTRAINTS);
    cl_free(c);
}

/* A busy mixed cluster: every pass must give the same answer and never
 * overcommit a node or hand out a GPU twice. */
static void fill_mixed(struct cluster *c)
{
    uint32_t seed = 12345;
    for (int i = 0; i < 6; i++)
        cl_node(c, 16, 4000, i < 4 ? 4 : 0, NULL);
    cl_part(c, 0, 6, -1);
    cl_part(c, 2, 4, -1);
    cl_run(c, 1, 3, 500, 0x5, false);
    for (int i = 0; i < 14; i++) {
        struct sched_job *j;
        seed = seed * 1103515245 + 12345;
        j = cl_job(c, (seed >> 8) & 1);
        j->ntasks = 1 + (int)((seed >> 10) % 6);
        j->gpus = (int)((seed >> 14) % 4);
        j->mem_per_cpu_mb = (seed >> 17) % 2 ? 200 : 0;
        j->min_nodes = (seed >> 19) % 5 == 0 ? 2 : 1;
    }
}

static void test_deterministic_no_overlap(void **state)
{
    struct cluster *a = cl_new(), *b = cl_new();
    int64_t cpus[MAXN] = { 0 };
    uint64_t mem[MAXN] = { 0 }, gpus[MAXN] = { 0 };
    size_t started = 0;
    (void)state;
    fill_mixed(a);
    fill_mixed(b);
    cl_plan(a);
    cl_plan(b);
    for (size_t i = 0; i < a->out.n; i++) {
        const struct sched_decision *x = &a->out.d[i], *y = &b->out.d[i];
        assert_int_equal(x->reason, y->reason);
        assert_int_equal(x->nallocs, y->nallocs);
        if (x->nallocs)
            assert_memory_equal(x->allocs, y->allocs, x->nallocs * sizeof(*x->allocs));
    }
    for (size_t r = 0; r < a->nrunning; r++) {
        const struct sched_alloc *al = a->running[r].allocs;
        cpus[al->node] += al->cpus;
        mem[al->node] += al->mem_mb;
        gpus[al->node] |= al->gpu_mask;
    }
    for (size_t i = 0; i < a->out.n; i++) {
        const struct sched_decision *x = &a->out.d[i];
        started += x->reason == SCHED_NONE;
        for (size_t k = 0; k < x->nallocs; k++) {
            const struct sched_alloc *al = &x->allocs[k];
            assert_int_equal(gpus[al->node] & al->gpu_mask, 0);
            if (k > 0)
                assert_true(al->node > x->allocs[k - 1].node);
            cpus[al->node] += al->cpus;
            mem[al->node] += al->mem_mb;
            gpus[al->node] |= al->gpu_mask;
        }
    }
    for (size_t n = 0; n < a->nnodes; n++) {
        assert_true(cpus[n] <= a->nodes[n].cpus);
        assert_true(mem[n] <= a->nodes[n].mem_mb);
        assert_int_equal(gpus[n] & ~((UINT64_C(1) << a->nodes[n].gpus) - 1), 0);
    }
    assert_true(started >= 3);
    cl_free(a);
    cl_free(b);
}

static void test_empty_input(void **state)
{
    struct cluster *c = cl_new();
    (void)state;
    cl_plan(c);
    assert_int_equal(c->out.n, 0);
    sched_output_free(NULL);
    cl_free(c);
}

static const uint32_t user_a[] = { 0 }, user_a_and_group[] = { 0, 1 }, group[] = { 1 };

/* Four 1-GPU jobs of a user allowed 2 GPUs, then another user's: two of the
 * first user's start, the others wait with the limit and block nothing;
 * under every policy. A per-job wall limit holds a job with no time limit. */
static void test_limits(void **state)
{
    (void)state;
    for (int pol = SCHED_POLICY_FIFO; pol <= SCHED_POLICY_HERD; pol++) {
        struct cluster *c = cl_new();
        struct sched_limit lim[2];
        for (int r = 0; r < SCHED_RES_N; r++)
            lim[0].left[r] = lim[0].per_job[r] = lim[1].left[r] = lim[1].per_job[r] = -1;
        lim[0].left[SCHED_RES_GPU] = 2;
        lim[1].per_job[SCHED_RES_WALL] = 60;
        cl_node(c, 8, 1000, 8, NULL);
        cl_part(c, 0, 1, -1);
        for (int i = 0; i < 4; i++) {
            struct sched_job *j = cl_job(c, 0);
            j->gpus = 1;
            j->time_limit_min = 10;
            j->limits = i == 3 ? user_a_and_group : user_a;
            j->nlimits = i == 3 ? 2 : 1;
        }
        cl_job(c, 0)->gpus = 1;
        c->jobs[4].time_limit_min = 10;
        struct sched_job *forever = cl_job(c, 0);
        forever->limits = group;
        forever->nlimits = 1;
        c->in.limits = lim;
        c->in.nlimits = 2;
        c->in.policy = (enum sched_policy)pol;
        const struct sched_decision *d = cl_plan(c);
        assert_int_equal(d[0].reason, SCHED_NONE);
        assert_int_equal(d[1].reason, SCHED_NONE);
        for (int i = 2; i < 4; i++) {
            assert_int_equal(d[i].reason, SCHED_LIMIT);
            assert_int_equal(d[i].limit, 0);
            assert_int_equal(d[i].limit_res, SCHED_RES_GPU);
        }
        assert_int_equal(d[4].reason, SCHED_NONE);
        assert_int_equal(d[5].reason, SCHED_LIMIT);
        assert_int_equal(d[5].limit, 1);
        assert_int_equal(d[5].limit_res, SCHED_RES_WALL);
        cl_free(c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reason_names),
        cmocka_unit_test(test_six_full_gpu_jobs),
        cmocka_unit_test(test_gpu_indices_avoid_running),
        cmocka_unit_test(test_cpu_and_memory_limits),
        cmocka_unit_test(test_mem_per_gpu),
        cmocka_unit_test(test_exclusive),
        cmocka_unit_test(test_held_does_not_block),
        cmocka_unit_test(test_partition_blocking),
        cmocka_unit_test(test_partition_down_and_time_limit),
        cmocka_unit_test(test_required_and_excluded_nodes),
        cmocka_unit_test(test_gpu_type),
        cmocka_unit_test(test_multi_node),
        cmocka_unit_test(test_best_fit),
        cmocka_unit_test(test_unavailable_node),
        cmocka_unit_test(test_feasible),
        cmocka_unit_test(test_deterministic_no_overlap),
        cmocka_unit_test(test_empty_input),
        cmocka_unit_test(test_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
