/*
 * job_pool: where the controller's jobs live. A job lives for as long as it
 * waits and runs; what a request or a pass allocates around its birth lives
 * for microseconds. From one heap the two interleave, and every short-lived
 * chunk freed between two jobs stays a hole too small for the next job:
 * with 100,000 pending a third of the heap was such holes (29 MB, 291 B a
 * job). Jobs come instead from slabs of their own, and a slab whose jobs
 * are all gone goes back.
 *
 * The controller's main loop alone calls these (jobs are built and
 * destroyed there).
 */
#ifndef HERD_CTLD_JOB_POOL_H
#define HERD_CTLD_JOB_POOL_H

#include <stddef.h>

struct job;

/* A zeroed job; exits on memory exhaustion, as xcalloc. */
struct job *job_pool_get(void);
/* Gives back a job job_pool_get returned (NULL is none). */
void job_pool_put(struct job *j);
/* Slabs held (for tests and the memory figures). */
size_t job_pool_slabs(void);

#endif
