#include "client/jobstate.h"

#include <stddef.h>
#include <strings.h>

struct jobstate {
    const char *name;
    const char *code;
    bool active;
};

/* In Slurm's enum order; the flag states after the base ones. */
static const struct jobstate jobstates[] = {
    {"PENDING", "PD", true},
    {"RUNNING", "R", true},
    {"SUSPENDED", "S", true},
    {"COMPLETED", "CD", false},
    {"CANCELLED", "CA", false},
    {"FAILED", "F", false},
    {"TIMEOUT", "TO", false},
    {"NODE_FAIL", "NF", false},
    {"PREEMPTED", "PR", false},
    {"BOOT_FAIL", "BF", false},
    {"DEADLINE", "DL", false},
    {"OUT_OF_MEMORY", "OOM", false},
    {"COMPLETING", "CG", true},
    {"CONFIGURING", "CF", true},
    {"RESIZING", "RS", true},
    {"RESV_DEL_HOLD", "RD", true},
    {"REQUEUED", "RQ", true},
    {"REQUEUE_FED", "RF", true},
    {"REQUEUE_HOLD", "RH", true},
    {"REVOKED", "RV", false},
    {"SIGNALING", "SI", true},
    {"SPECIAL_EXIT", "SE", false},
    {"STAGE_OUT", "SO", true},
    {"STOPPED", "ST", true},
};

#define NSTATES (sizeof jobstates / sizeof jobstates[0])

static const struct jobstate *jobstate_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < NSTATES; i++)
        if (!strcasecmp(jobstates[i].name, name) || !strcasecmp(jobstates[i].code, name))
            return &jobstates[i];
    return NULL;
}

const char *jobstate_short(const char *state)
{
    const struct jobstate *s = jobstate_find(state);
    return s ? s->code : (state ? state : "");
}

const char *jobstate_parse(const char *name)
{
    const struct jobstate *s = jobstate_find(name);
    return s ? s->name : NULL;
}

bool jobstate_is_active(const char *state)
{
    const struct jobstate *s = jobstate_find(state);
    return s && s->active;
}

const char *jobstate_all_names(void)
{
    return "PENDING,RUNNING,SUSPENDED,COMPLETED,CANCELLED,FAILED,TIMEOUT,NODE_FAIL,"
           "PREEMPTED,BOOT_FAIL,DEADLINE,OUT_OF_MEMORY,COMPLETING,CONFIGURING,RESIZING,"
           "RESV_DEL_HOLD,REQUEUED,REQUEUE_FED,REQUEUE_HOLD,REVOKED,SIGNALING,"
           "SPECIAL_EXIT,STAGE_OUT,STOPPED";
}
