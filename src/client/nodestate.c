#include "client/nodestate.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Slurm's flag bits, so that "-t" sorts drained rows as Slurm does. */
#define NODESTATE_FLAG_DRAIN 0x0200
#define NODESTATE_FLAG_COMPLETING 0x0400
#define NODESTATE_FLAG_NO_RESPOND 0x0800
#define NODESTATE_FLAG_RES 0x0020
#define NODESTATE_FLAG_MAINT 0x8000

static const struct {
    const char *name;
    enum nodestate_base base;
} bases[] = {
    {"UNKNOWN", NODESTATE_UNKNOWN}, {"DOWN", NODESTATE_DOWN},
    {"IDLE", NODESTATE_IDLE}, {"ALLOCATED", NODESTATE_ALLOCATED},
    {"ALLOC", NODESTATE_ALLOCATED}, {"ERROR", NODESTATE_ERROR},
    {"MIXED", NODESTATE_MIXED}, {"MIX", NODESTATE_MIXED},
    {"FUTURE", NODESTATE_FUTURE},
};

static void nodestate_token(const char *tok, size_t len, struct nodestate *st, bool *has_base)
{
    for (size_t i = 0; i < sizeof bases / sizeof bases[0]; i++) {
        if (strlen(bases[i].name) == len && !strncasecmp(bases[i].name, tok, len)) {
            st->base = bases[i].base;
            *has_base = true;
            return;
        }
    }
    if ((len == 5 && !strncasecmp(tok, "DRAIN", 5)) ||
        (len == 7 && !strncasecmp(tok, "DRAINED", 7))) {
        st->drain = true;
    } else if (len == 8 && !strncasecmp(tok, "DRAINING", 8)) {
        st->drain = true;
        if (!*has_base)
            st->base = NODESTATE_ALLOCATED;
    } else if (len == 10 && !strncasecmp(tok, "COMPLETING", 10)) {
        st->completing = true;
    } else if ((len == 14 && !strncasecmp(tok, "NOT_RESPONDING", 14)) ||
               (len == 10 && !strncasecmp(tok, "NO_RESPOND", 10))) {
        st->no_respond = true;
    } else if ((len == 11 && !strncasecmp(tok, "MAINTENANCE", 11)) ||
               (len == 5 && !strncasecmp(tok, "MAINT", 5))) {
        nodestate_set_resv(st, true, true);
    } else if (len == 8 && !strncasecmp(tok, "RESERVED", 8)) {
        st->reserved = true;
    }
}

void nodestate_parse(const char *s, int alloc_cpus, struct nodestate *out)
{
    memset(out, 0, sizeof *out);
    out->base = NODESTATE_UNKNOWN;
    if (!s)
        return;
    bool has_base = false, bare_drain = true;
    const char *p = s;
    while (*p) {
        size_t len = strcspn(p, "+*$");
        if (len) {
            bool drain_tok = (len == 5 && !strncasecmp(p, "DRAIN", 5)) ||
                             (len == 7 && !strncasecmp(p, "DRAINED", 7));
            if (!drain_tok)
                bare_drain = false;
            nodestate_token(p, len, out, &has_base);
        }
        p += len;
        if (*p == '*')
            out->no_respond = true;
        if (*p == '$')
            nodestate_set_resv(out, true, true);
        if (*p)
            p++;
    }
    if (out->drain && !has_base && bare_drain)
        out->base = alloc_cpus > 0 ? NODESTATE_ALLOCATED : NODESTATE_IDLE;
}

void nodestate_set_resv(struct nodestate *st, bool reserved, bool maint)
{
    /* a MAINT reservation is a reservation: sinfo -t resv lists its nodes */
    st->reserved |= reserved || maint;
    st->maint |= maint;
}

int nodestate_value(const struct nodestate *st)
{
    return (int)st->base | (st->drain ? NODESTATE_FLAG_DRAIN : 0) |
           (st->completing ? NODESTATE_FLAG_COMPLETING : 0) |
           (st->no_respond ? NODESTATE_FLAG_NO_RESPOND : 0) |
           (st->reserved ? NODESTATE_FLAG_RES : 0) | (st->maint ? NODESTATE_FLAG_MAINT : 0);
}

static bool nodestate_busy(const struct nodestate *st)
{
    return st->completing || st->base == NODESTATE_ALLOCATED || st->base == NODESTATE_MIXED;
}

/* Idle in a reservation: Slurm names the reservation instead. */
static const char *nodestate_resv_name(const struct nodestate *st, bool compact)
{
    if (st->base != NODESTATE_IDLE || st->drain || st->completing)
        return NULL;
    if (st->maint)
        return "maint";
    if (st->reserved && !st->no_respond)
        return compact ? "resv" : "reserved";
    return NULL;
}

static void nodestate_name(const struct nodestate *st, bool compact, char *buf, unsigned n)
{
    static const char *shorts[] = {"unk", "down", "idle", "alloc", "err", "mix", "futr"};
    static const char *longs[] = {"unknown", "down", "idle", "allocated", "error", "mixed",
                                  "future"};
    const char *name = nodestate_resv_name(st, compact);
    if (name) {
        snprintf(buf, n, "%s%s", name, st->no_respond ? "*" : "");
        return;
    }
    if (st->drain && st->base != NODESTATE_DOWN)
        name = nodestate_busy(st) ? (compact ? "drng" : "draining")
                                  : (compact ? "drain" : "drained");
    else if (st->completing && st->base != NODESTATE_DOWN)
        name = compact ? "comp" : "completing";
    else
        name = compact ? shorts[st->base] : longs[st->base];
    if (st->drain && st->base == NODESTATE_DOWN)
        name = compact ? "drain" : "drained";
    /* Slurm gives one mark: MAINT's '$' before no-response's '*' */
    snprintf(buf, n, "%s%s", name, st->maint ? "$" : st->no_respond ? "*" : "");
}

void nodestate_short(const struct nodestate *st, char *buf, unsigned n)
{
    nodestate_name(st, true, buf, n);
}

void nodestate_long(const struct nodestate *st, char *buf, unsigned n)
{
    nodestate_name(st, false, buf, n);
}

bool nodestate_is_other(const struct nodestate *st)
{
    return st->drain || st->base == NODESTATE_DOWN || st->base == NODESTATE_ERROR ||
           st->base == NODESTATE_UNKNOWN || st->base == NODESTATE_FUTURE;
}
