/*
 * job_runs: a requeue ends a run and starts the job over, as Slurm's does.
 * The run that ends is kept whole (the job's record then, state REQUEUED,
 * or PREEMPTED when a preemption requeued it)
 * in the store's runs table for `sacct -D`; the job goes back with a new
 * SubmitTime and, as Slurm, may not start again before the credentials of
 * the old run have expired (AuthInfo cred_expire + 1 s: Reason=BeginTime),
 * its steps, usage and exit codes cleared for the next run.
 */
#include <stdlib.h>

#include "common/conf.h"
#include "ctld/clock.h"
#include "ctld/ctld.h"
#include "ctld/preempt.h"
#include "ctld/step.h"
#include "ctld/store.h"

void job_run_keep(struct ctld *c, struct job *j)
{
    if (!j->nallocs || !j->start_time)
        return;   /* it never ran (a launch refused before the start) */
    if (!j->end_time)
        j->end_time = ctld_now();   /* job_run_next clears it again */
    step_records_close(j);          /* its steps ended with it */
    json_t *rec = job_record(c, j);
    json_object_set_new(rec, "state", json_string(j->preempt ? "PREEMPTED" : "REQUEUED"));
    char *text = json_dumps(rec, JSON_COMPACT);
    if (text)
        store_run_add(c->store, j->id, j->restarts, text);
    free(text);
    json_decref(rec);
}

void job_run_next(struct ctld *c, struct job *j)
{
    int64_t now = ctld_now();
    j->submit_time = now;
    if (j->begin_time <= now)
        j->begin_time = now + c->conf->cred_expire + 1;
    j->end_time = 0;
    j->exit_code = j->exit_signal = 0;
    json_decref(j->step_recs);
    j->step_recs = NULL;
    json_decref(j->usage);
    j->usage = NULL;
}
