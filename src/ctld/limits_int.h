/*
 * limits_int: what the limit files share (limits.h): where each limit of a
 * job comes from, and its settings read into the core's form.
 */
#ifndef HERD_CTLD_LIMITS_INT_H
#define HERD_CTLD_LIMITS_INT_H

#include <jansson.h>

#include "ctld/limits.h"

struct ctld;
struct job;

struct limit_src {
    enum limit_kind kind;
    const char *name, *holder;     /* as in limit_info */
    const json_t *obj;             /* the QOS's or association's settings (for
                                      LK_ASSOC_USER, with the inherited Max* ones) */
    const char *gpu_type;          /* a typed limit (gres/gpu:TYPE=N), counting only jobs
                                      asking for that type; obj then holds only those */
};

/* Calls fn for every limit set that the job counts against. */
void limits_of_job(const struct ctld *c, const struct job *j,
                   void (*fn)(const struct limit_src *src, void *arg), void *arg);
/* limits_submit.c: Slurm's reason name of the submit limit the job would
 * go over, or NULL. */
const char *limits_submit_over(const struct ctld *c, const struct job *j);
/* Calls fn with each QOS the job is under (its partition's, its own), as
 * an LK_QOS_JOB source, whatever limits they set. */
void limits_qos_objects(const struct ctld *c, const struct job *j,
                        void (*fn)(const struct limit_src *src, void *arg), void *arg);
/* limits_spent.c: a group limit's GrpTRESMins and GrpWall (minutes, in the
 * *_SPENT slots of l) into whether the group may still spend, what it used
 * into li. */
void limits_spent(const struct ctld *c, const struct limit_src *src, struct sched_limit *l,
                  struct limit_info *li);
/* The limit's settings into l (which starts all -1). */
void limits_caps(const struct limit_src *src, struct sched_limit *l);

#endif
