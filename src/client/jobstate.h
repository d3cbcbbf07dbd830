/*
 * jobstate: Slurm's job state names as the commands show and take them:
 * the long name the controller sends ("PENDING"), its short code ("PD"),
 * whether squeue shows it by default, and the order squeue sorts by.
 */
#ifndef HERD_JOBSTATE_H
#define HERD_JOBSTATE_H

#include <stdbool.h>

/* "RUNNING" -> "R"; a name it does not know is returned as it is. */
const char *jobstate_short(const char *state);

/* The long name for a short or long one in any case ("pd", "Pending"),
 * or NULL when it is not a job state. */
const char *jobstate_parse(const char *name);

/* Not finished: what squeue lists without -t. */
bool jobstate_is_active(const char *state);

/* All long names, lower case, comma-separated (Slurm's error text). */
const char *jobstate_all_names(void);

#endif
