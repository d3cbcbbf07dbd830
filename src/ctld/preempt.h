/*
 * preempt: PreemptType=preempt/qos and preempt/partition_prio in the
 * controller. The scheduling core chooses victims (sched_decision.preempt)
 * from the classes and masks a pass's snapshot gives it (preempt_snap.c);
 * the controller carries its choice out (preempt.c): a victim with a
 * GraceTime gets SIGTERM (or its --signal signal under
 * PreemptParameters=send_user_signal) at once and SIGKILL when the grace is
 * over; without one it is cancelled at once. Its end, whatever ended it,
 * is then what its PreemptMode says: REQUEUE (back to the queue, the run
 * kept as PREEMPTED for sacct -D), CANCEL (state PREEMPTED) or SUSPEND
 * (suspend.h). See docs/preemption.md.
 */
#ifndef HERD_CTLD_PREEMPT_H
#define HERD_CTLD_PREEMPT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ctld;
struct job;
struct sched_snap;

/* A victim's preemption, from the pass that chose it until its run ends
 * (kept after a CANCEL for scontrol's PreemptTime). */
struct job_preempt {
    int64_t time;          /* when it was chosen: scontrol's PreemptTime */
    int64_t grace_end;     /* killed then unless it has ended */
    uint64_t by;           /* the job it gives way to */
    int mode;              /* CONF_PM_REQUEUE or CONF_PM_CANCEL: what its end becomes */
    bool killed;           /* the kill was sent */
};

/* preempt_conf.c: the settings that hold for a job. */
bool preempt_enabled(const struct ctld *c);
/* Its PreemptMode: its QOS's (preempt/qos) or its partition's
 * (partition_prio), else the cluster's; CONF_PM_* bits. */
int preempt_job_mode(const struct ctld *c, const struct job *j);
/* GraceTime seconds: its QOS's (preempt/qos) or its partition's. */
int preempt_job_grace(const struct ctld *c, const struct job *j);
/* PreemptExemptTime seconds: its QOS's, else the cluster's. */
int64_t preempt_job_exempt(const struct ctld *c, const struct job *j);
/* --requeue, or JobRequeue=1 without --no-requeue; never an allocation. */
bool preempt_may_requeue(const struct ctld *c, const struct job *j);
/* scontrol show job's PreemptEligibleTime and PreemptTime (0: None) into
 * o, once the job has started and only while preemption is on. */
void preempt_job_json(const struct ctld *c, const struct job *j, json_t *o);
/* The QOS record (acctdb.h) of a name; NULL if none. */
const json_t *preempt_qos(const struct ctld *c, const char *name);

/* preempt_snap.c: each running job's class and each pending job's mask
 * into the snapshot, victims in their grace marked, and the jobs that wait
 * for their victims put first. From ctld_sched_snap_take. */
void preempt_snap(const struct ctld *c, struct sched_snap *s);

/* After the QOS changed (and at start-up): a warning when there are more
 * QOS than classes, the rest being never preempted. */
void preempt_qos_note(const struct ctld *c);

/* preempt.c */
/* A pass chose these running jobs to make room for preemptor. */
void preempt_victims(struct ctld *c, struct job *preemptor, const uint64_t *ids, size_t n);
/* A victim's run ended (its agent says how): requeued or ended PREEMPTED. */
void preempt_job_end(struct ctld *c, struct job *j, int exit_code, int exit_signal,
                     int64_t when);
/* A victim's preemption in the job's stored record, and back at start-up:
 * a grace survives a controller restart. */
void preempt_record(const struct job *j, json_t *rec);
void preempt_from_record(struct job *j, const json_t *rec);
/* Every second: victims whose grace is over are killed. */
void preempt_tick(struct ctld *c, int64_t now);

#endif
