/*
 * suspend: the stub of suspend.h. No job is suspended yet, so a SUSPEND
 * preemption falls back to REQUEUE or CANCEL (preempt.c).
 */
#include "common/log.h"
#include "ctld/ctld.h"
#include "ctld/suspend.h"

int preempt_suspend(struct ctld *c, struct job *victim, struct job *preemptor)
{
    (void)c;
    log_info("job %llu: PreemptMode=SUSPEND is not available yet; job %llu's victim is "
             "requeued or cancelled instead", (unsigned long long)victim->id,
             (unsigned long long)preemptor->id);
    return -1;
}
