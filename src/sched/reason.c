/* The names squeue prints in its REASON column. */
#include "sched/sched.h"

const char *sched_reason_name(enum sched_reason r)
{
    switch (r) {
    case SCHED_NONE: return "None";
    case SCHED_RESOURCES: return "Resources";
    case SCHED_PRIORITY: return "Priority";
    case SCHED_HELD_USER: return "JobHeldUser";
    case SCHED_HELD_ADMIN: return "JobHeldAdmin";
    case SCHED_PART_DOWN: return "PartitionDown";
    case SCHED_PART_TIME_LIMIT: return "PartitionTimeLimit";
    case SCHED_REQ_NODE_NOT_AVAIL: return "ReqNodeNotAvail";
    case SCHED_BAD_CONSTRAINTS: return "BadConstraints";
    case SCHED_LIMIT: return "AccountingPolicy";   /* the caller names the limit */
    case SCHED_BEGIN_TIME: return "BeginTime";
    case SCHED_DEPENDENCY: return "Dependency";
    case SCHED_DEP_NEVER: return "DependencyNeverSatisfied";
    case SCHED_RESERVATION: return "Reservation";
    case SCHED_RESV_MAINT: return "ReqNodeNotAvail, Reserved for maintenance";
    case SCHED_RESV_DELETED: return "ReservationDeleted";
    case SCHED_RESV_OTHER: return "ReqNodeNotAvail, May be reserved for other job";
    }
    return "Unknown";
}
