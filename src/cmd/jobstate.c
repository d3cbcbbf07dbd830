#include "cmd/jobstate.h"

#include <stddef.h>
#include <strings.h>

struct jobstate {
    const char *name;
    const char *code;
    bool active;
    int order;
};

/* In Slurm's enum order; the flag states after the base ones. */
static const struct jobstate jobstates[] = {
    {"PENDING", "PD", true, 0},
    {"RUNNING", "R", true, 1},
    {"SUSPENDED", "S", true, 2},
    {"COMPLETED", "CD", false, 3},
    {"CANCELLED", "CA", false, 4},
    {"FAILED", "F", false, 5},
    {"TIMEOUT", "TO", false, 6},
    {"NODE_FAIL", "NF", false, 7},
    {"PREEMPTED", "PR", false, 8},
    {"BOOT_FAIL", "BF", false, 9},
    {"DEADLINE", "DL", false, 10},
    {"OUT_OF_MEMORY", "OOM", false, 11},
    {"COMPLETING", "CG", true, 12},
    {"CONFIGURING", "CF", true, 13},
    {"RESIZING", "RS", true, 14},
    {"RESV_DEL_HOLD", "RD", true, 15},
    {"REQUEUED", "RQ", true, 16},
    {"REQUEUE_FED", "RF", true, 17},
    {"REQUEUE_HOLD", "RH", true, 18},
    {"REVOKED", "RV", false, 19},
    {"SIGNALING", "SI", true, 20},
    {"SPECIAL_EXIT", "SE", false, 21},
    {"STAGE_OUT", "SO", true, 22},
    {"STOPPED", "ST", true, 23},
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

int jobstate_order(const char *state)
{
    const struct jobstate *s = jobstate_find(state);
    return s ? s->order : (int)NSTATES;
}

const char *jobstate_all_names(void)
{
    return "pending,running,suspended,completed,cancelled,failed,timeout,node_fail,"
           "preempted,boot_fail,deadline,out_of_memory,completing,configuring,resizing,"
           "resv_del_hold,requeued,requeue_fed,requeue_hold,revoked,signaling,"
           "special_exit,stage_out,stopped";
}
