/*
 * node_fail_firm: when a NODE_FAIL the controller assumed (its node fell
 * silent while the job ran) stops being open to correction. Until then the
 * agent's late report of the job's real end replaces it (api_nodes.c), and
 * afterok/afternotok/aftercorr dependents wait (depend.c), so that no
 * dependent acts on an end that is later rewritten. It becomes firm when
 * the node's kill of the job's stale copy reports, when the node comes back
 * without the job, or, once SlurmdTimeout has passed since the end, as
 * soon as a dependent waits to learn the outcome: from then on the
 * NODE_FAIL stands, as Slurm keeps it. A job nobody waits on stays open, so
 * that a node back after a long outage still puts its real end on record.
 */
#include "common/conf.h"
#include "common/log.h"
#include "ctld/ctld.h"
#include "ctld/depend.h"

void node_fail_firm(struct ctld *c, struct job *j, const char *why)
{
    if (!j->end_assumed)
        return;
    j->end_assumed = false;
    j->stale_kill_at = 0;
    log_info("job %llu: NODE_FAIL stands (%s)", (unsigned long long)j->id, why);
    job_save(c, j);
    depend_notify(c, j);
}

void node_fail_firm_due(struct ctld *c, struct job *j, int64_t now)
{
    if (j->end_assumed && now >= j->end_time + c->conf->slurmd_timeout &&
        depend_awaits_outcome(c, j))
        node_fail_firm(c, j, "a dependent waits, and no report of its real end came within "
                             "SlurmdTimeout");
}

static bool listed(json_t *jobs, uint64_t id)
{
    size_t i;
    json_t *v;
    json_array_foreach(jobs, i, v)
        if (json_is_integer(v) && (uint64_t)json_integer_value(v) == id)
            return true;
    return false;
}

/* The first registration after silence: a job the agent no longer holds
 * has no end left to report. */
void node_fail_firm_unlisted(struct ctld *c, struct node *n, json_t *jobs)
{
    size_t idx = node_index(c, n);
    struct job *j;
    JOB_FOREACH(c, j) {
        if (j->end_assumed && j->nallocs && j->allocs[0].node == idx && !listed(jobs, j->id))
            node_fail_firm(c, j, "its node came back without it");
    }
}
