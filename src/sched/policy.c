/* Policy names as slurm.conf and `herd sim --policy` spell them. */
#include <strings.h>

#include "sched/sched_int.h"

static const struct {
    const char *name;
    enum sched_policy p;
} policy_names[] = {
    {"fifo", SCHED_POLICY_FIFO},
    {"fcfs", SCHED_POLICY_FIFO},
    {"builtin", SCHED_POLICY_FIFO},
    {"conservative", SCHED_POLICY_BACKFILL},
    {"backfill", SCHED_POLICY_BACKFILL},
    {"easy", SCHED_POLICY_EASY},
    {"herd", SCHED_POLICY_HERD},
};

bool sched_policy_parse(const char *name, enum sched_policy *out)
{
    for (size_t i = 0; i < sizeof(policy_names) / sizeof(policy_names[0]); i++)
        if (!strcasecmp(name, policy_names[i].name)) {
            *out = policy_names[i].p;
            return true;
        }
    return false;
}

const char *sched_policy_name(enum sched_policy p)
{
    switch (p) {
    case SCHED_POLICY_FIFO: return "fifo";
    case SCHED_POLICY_BACKFILL: return "conservative";
    case SCHED_POLICY_EASY: return "easy";
    case SCHED_POLICY_HERD: return "herd";
    }
    return "unknown";
}

int64_t sched_round_up(int64_t t, int64_t now, int res)
{
    if (t <= now)
        return now;
    if (t >= SCHED_FOREVER)
        return SCHED_FOREVER;
    if (res > 1 && t % res != 0)
        t += res - (t % res + res) % res;
    return t;
}
