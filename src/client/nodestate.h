/*
 * nodestate: a node's state as sinfo shows it. The controller sends Slurm's
 * upper-case names, a base state with '+' flags ("IDLE", "MIXED+DRAIN",
 * "DOWN+NOT_RESPONDING"); sinfo prints them lower case, short ("drng",
 * "down*") or long ("draining"), and sorts its rows by Slurm's state value.
 */
#ifndef HERD_NODESTATE_H
#define HERD_NODESTATE_H

#include <stdbool.h>

enum nodestate_base {
    NODESTATE_UNKNOWN, NODESTATE_DOWN, NODESTATE_IDLE, NODESTATE_ALLOCATED,
    NODESTATE_ERROR, NODESTATE_MIXED, NODESTATE_FUTURE,
};

struct nodestate {
    enum nodestate_base base;
    bool drain;
    bool completing;
    bool no_respond;
    bool reserved;     /* in an ACTIVE reservation (Slurm's RESERVED flag) */
    bool maint;        /* ... one with MAINT (Slurm's MAINTENANCE flag) */
};

/* alloc_cpus decides between drained and draining when the controller
 * sends a bare "DRAIN". */
void nodestate_parse(const char *s, int alloc_cpus, struct nodestate *out);

/* The reservation flags of a node object: "reservation" names the ACTIVE
 * one holding it, "maint" says it has MAINT. A state string may carry them
 * too ("IDLE+MAINTENANCE+RESERVED"); nodestate_parse reads those. */
void nodestate_set_resv(struct nodestate *st, bool reserved, bool maint);

/* Slurm's node state value (base | flag bits), for sorting and grouping. */
int nodestate_value(const struct nodestate *st);

/* Lower-case short ("idle", "drng", "down*") and long ("draining") names
 * into buf. As Slurm 22.05: an idle node in a MAINT reservation is "maint",
 * a busy or drained one gets '$' ("mix$", "allocated$"); an idle node in
 * any other reservation is "resv" ("reserved"). */
void nodestate_short(const struct nodestate *st, char *buf, unsigned n);
void nodestate_long(const struct nodestate *st, char *buf, unsigned n);

/* Counts as "other" in sinfo's A/I/O/T (down, drained, draining). */
bool nodestate_is_other(const struct nodestate *st);

#endif
