/*
 * preempt_conf: which setting holds for a job (preempt.h). A QOS's
 * PreemptMode, GraceTime and PreemptExemptTime are sacctmgr's (acctdb.h),
 * read at the moment they are needed, so that a change applies to the
 * next preemption without a restart.
 */
#include <string.h>

#include "common/conf.h"
#include "ctld/ctld.h"
#include "ctld/preempt.h"
#include "ctld/prio.h"

bool preempt_enabled(const struct ctld *c)
{
    return c->conf->preempt_type != CONF_PT_NONE;
}

const json_t *preempt_qos(const struct ctld *c, const char *name)
{
    return name ? json_object_get(json_object_get(prio_get(c)->db, "qos"), name) : NULL;
}

static const struct conf_part *part_of(const struct ctld *c, const struct job *j)
{
    return j->part < c->conf->nparts ? &c->conf->parts[j->part] : NULL;
}

int preempt_job_mode(const struct ctld *c, const struct job *j)
{
    int mode = CONF_PM_UNSET;
    if (c->conf->preempt_type == CONF_PT_QOS) {
        const char *m = json_string_value(json_object_get(preempt_qos(c, prio_job_qos(c, j)),
                                                          "PreemptMode"));
        if (m && conf_preempt_mode_parse(m, &mode, NULL, 0) < 0)
            mode = CONF_PM_UNSET;
    } else if (part_of(c, j)) {
        mode = part_of(c, j)->preempt_mode;
    }
    return mode == CONF_PM_UNSET ? c->conf->preempt_mode : mode;
}

int preempt_job_grace(const struct ctld *c, const struct job *j)
{
    if (c->conf->preempt_type == CONF_PT_QOS) {
        json_t *g = json_object_get(preempt_qos(c, prio_job_qos(c, j)), "GraceTime");
        return (int)json_integer_value(g);   /* absent: 0 */
    }
    return part_of(c, j) ? part_of(c, j)->grace_time : 0;
}

int64_t preempt_job_exempt(const struct ctld *c, const struct job *j)
{
    json_t *e = json_object_get(preempt_qos(c, prio_job_qos(c, j)), "PreemptExemptTime");
    return json_is_integer(e) ? (int64_t)json_integer_value(e) : c->conf->preempt_exempt_s;
}

bool preempt_may_requeue(const struct ctld *c, const struct job *j)
{
    if (j->alloc_only)
        return false;   /* no batch script to run again: salloc's and srun's own */
    json_t *spec = job_spec(c, j);
    json_t *r = json_object_get(spec, "requeue");
    bool may = r ? json_is_true(r) : c->conf->job_requeue;
    json_decref(spec);
    return may;
}

void preempt_job_json(const struct ctld *c, const struct job *j, json_t *o)
{
    if (!preempt_enabled(c) || !j->start_time || j->state == JOB_PENDING)
        return;
    json_object_set_new(o, "preempt_eligible_time",
                        json_integer(j->start_time + preempt_job_exempt(c, j)));
    json_object_set_new(o, "preempt_time", json_integer(j->preempt ? j->preempt->time : 0));
}
