/*
 * sinfo -t and -n: which nodes the rows count. State names match as in
 * Slurm's sinfo/opts.c: any prefix of a base state's long or compact name
 * ("i", "mix"), then of the flag names ("dr" is drain, "drng" draining);
 * "all" keeps every node.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd/sinfo/sinfo.h"
#include "common/hostlist.h"
#include "common/xmalloc.h"

/* Slurm 22.05's valid states line, word for word ("?" and "reboot^"
 * included), for the error on a bad name. */
#define SINFO_VALID_STATES                                                                  \
    "unknown,down,idle,allocated,?,mixed,future,drain,drained,draining,no_respond,"         \
    "reserved,perfctrs,cloud,completing,powering_down,powered_down,power_down,powering_up,"  \
    "fail,maint,reboot,reboot^,unknown"

static const struct {
    const char *name, *compact;
    enum nodestate_base base;
} sinfo_bases[] = {
    {"UNKNOWN", "UNK", NODESTATE_UNKNOWN}, {"DOWN", "DOWN", NODESTATE_DOWN},
    {"IDLE", "IDLE", NODESTATE_IDLE},      {"ALLOCATED", "ALLOC", NODESTATE_ALLOCATED},
    {"ERROR", "ERROR", NODESTATE_ERROR},   {"MIXED", "MIX", NODESTATE_MIXED},
    {"FUTURE", "FUTR", NODESTATE_FUTURE},
};

/* The flag names in Slurm's order; states Herd never has match no node. */
static const struct {
    const char *name, *alias;
    int kind;
} sinfo_flags[] = {
    {"DRAIN", NULL, SINFO_ST_DRAIN},          {"DRAINED", NULL, SINFO_ST_DRAINED},
    {"DRAINING", "DRNG", SINFO_ST_DRAINING},  {"COMPLETING", "COMP", SINFO_ST_COMPLETING},
    {"NO_RESPOND", NULL, SINFO_ST_NO_RESPOND}, {"POWER_DOWN", "POWERED_DOWN", SINFO_ST_NEVER},
    {"POWER_UP", "POWERING_UP", SINFO_ST_NEVER}, {"FAIL", NULL, SINFO_ST_NEVER},
    {"MAINT", NULL, SINFO_ST_MAINT},          {"REBOOT", "REBOOT_REQUESTED", SINFO_ST_NEVER},
    {"RESERVED", "RESV", SINFO_ST_RESERVED},  {"PERFCTRS", "NPC", SINFO_ST_NEVER},
};

static bool prefix_of(const char *name, const char *s)
{
    return name && !strncasecmp(name, s, strlen(s)) && strlen(s) <= strlen(name);
}

static int sinfo_state_id(const char *s, struct sinfo_state *out)
{
    for (size_t i = 0; i < sizeof sinfo_bases / sizeof sinfo_bases[0]; i++) {
        if (prefix_of(sinfo_bases[i].name, s) || prefix_of(sinfo_bases[i].compact, s)) {
            out->base = sinfo_bases[i].base;
            out->kind = out->base == NODESTATE_ALLOCATED ? SINFO_ST_ALLOC : SINFO_ST_BASE;
            return 0;
        }
    }
    for (size_t i = 0; i < sizeof sinfo_flags / sizeof sinfo_flags[0]; i++) {
        if (prefix_of(sinfo_flags[i].name, s) || prefix_of(sinfo_flags[i].alias, s)) {
            out->kind = sinfo_flags[i].kind;
            return 0;
        }
    }
    return -1;
}

int sinfo_parse_states(struct sinfo_opts *o, const char *csv, const char *prog)
{
    free(o->states);
    o->states = NULL;
    o->nstates = 0;
    if (!strcasecmp(csv, "all"))
        return 0;
    struct strlist l = {0};
    strlist_split(&l, csv);
    int rc = 0;
    o->states = xcalloc(l.n ? l.n : 1, sizeof *o->states);
    for (size_t i = 0; i < l.n && rc == 0; i++) {
        if (sinfo_state_id(l.items[i], &o->states[o->nstates++]) < 0) {
            cmd_error(prog, "Bad state string: \"%s\"", l.items[i]);
            cmd_error(prog, "valid states: %s", SINFO_VALID_STATES);
            rc = -1;
        }
    }
    strlist_clear(&l);
    return rc;
}

static bool sinfo_state_match(const struct sinfo_state *want, const struct nodestate *st,
                              int64_t alloc_cpus)
{
    bool busy = st->base == NODESTATE_ALLOCATED || st->base == NODESTATE_MIXED ||
                st->completing;
    switch (want->kind) {
    case SINFO_ST_BASE: return st->base == want->base;
    case SINFO_ST_ALLOC: return alloc_cpus > 0;
    case SINFO_ST_DRAIN: return st->drain;
    case SINFO_ST_DRAINED: return st->drain && !busy;
    case SINFO_ST_DRAINING: return st->drain && busy;
    case SINFO_ST_NO_RESPOND: return st->no_respond;
    case SINFO_ST_COMPLETING: return st->completing;
    case SINFO_ST_MAINT: return st->maint;
    case SINFO_ST_RESERVED: return st->reserved;
    default: return false;
    }
}

void sinfo_node_state(const json_t *node, struct nodestate *st)
{
    nodestate_parse(jget_str(node, "state", "UNKNOWN"), (int)jget_int(node, "alloc_cpus", 0),
                    st);
    nodestate_set_resv(st, *jget_str(node, "reservation", ""), jget_bool(node, "maint", false));
}

bool sinfo_node_wanted(const json_t *node, const struct sinfo_opts *o)
{
    if (o->nodes && hostlist_find(o->nodes, jget_str(node, "name", "")) < 0)
        return false;
    if (!o->states)
        return true;
    int64_t alloc = jget_int(node, "alloc_cpus", 0);
    struct nodestate st;
    sinfo_node_state(node, &st);
    for (size_t i = 0; i < o->nstates; i++)
        if (sinfo_state_match(&o->states[i], &st, alloc))
            return true;
    return false;
}
