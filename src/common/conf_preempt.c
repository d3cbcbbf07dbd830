/*
 * conf_preempt: the words of slurm.conf's preemption keys (PreemptType,
 * PreemptMode, PreemptParameters), read and printed as Slurm spells them.
 * conf.c's setters call these; sacctmgr's QOS PreemptMode= reads the same
 * words (common/acct_keys.c).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf.h"
#include "common/xmalloc.h"

static const struct {
    const char *name;
    int type;
} types[] = {
    { "preempt/none", CONF_PT_NONE },
    { "preempt/qos", CONF_PT_QOS },
    { "preempt/partition_prio", CONF_PT_PARTITION_PRIO },
};

int conf_preempt_type_parse(const char *s, int *out)
{
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        if (!strcasecmp(s, types[i].name)) {
            *out = types[i].type;
            return 0;
        }
    return -1;
}

const char *conf_preempt_type_name(int t)
{
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        if (types[i].type == t)
            return types[i].name;
    return "preempt/none";
}

static const struct {
    const char *word;
    int bit;
} modes[] = {
    { "OFF", CONF_PM_OFF }, { "SUSPEND", CONF_PM_SUSPEND }, { "REQUEUE", CONF_PM_REQUEUE },
    { "CANCEL", CONF_PM_CANCEL }, { "GANG", CONF_PM_GANG }, { "WITHIN", CONF_PM_WITHIN },
    { "PRIORITY", CONF_PM_PRIORITY },
};

static int mode_word(const char *w, int *bit)
{
    for (size_t i = 0; i < sizeof modes / sizeof *modes; i++)
        if (!strcasecmp(w, modes[i].word)) {
            *bit = modes[i].bit;
            return 0;
        }
    return -1;
}

/* One of OFF, SUSPEND, REQUEUE, CANCEL at most, with GANG and WITHIN;
 * PRIORITY (a victim only for a higher-priority job) has no place in the
 * core's per-class masks, so it is refused rather than ignored. */
int conf_preempt_mode_parse(const char *s, int *out, char *err, size_t errlen)
{
    char *copy = xstrdup(s), *save = NULL;
    int mode = 0, kinds = 0, rc = 0;
    bool off = false;
    for (char *w = strtok_r(copy, ",", &save); w && rc == 0; w = strtok_r(NULL, ",", &save)) {
        int bit;
        if (mode_word(w, &bit) < 0) {
            rc = -1;
            if (err)
                snprintf(err, errlen, "unknown PreemptMode '%s' (OFF, CANCEL, REQUEUE, SUSPEND, "
                         "GANG, WITHIN)", w);
        } else if (bit == CONF_PM_PRIORITY) {
            rc = -1;
            if (err)
                snprintf(err, errlen, "PreemptMode=PRIORITY is not supported by Herd");
        }
        off |= bit == CONF_PM_OFF;
        kinds += bit == CONF_PM_SUSPEND || bit == CONF_PM_REQUEUE || bit == CONF_PM_CANCEL;
        mode |= bit;
    }
    free(copy);
    if (rc == 0 && (!*s || kinds > 1 || (off && mode))) {
        rc = -1;
        if (err)
            snprintf(err, errlen, "PreemptMode '%s' names more than one of OFF, CANCEL, "
                     "REQUEUE and SUSPEND", s);
    }
    if (rc == 0)
        *out = mode;
    return rc;
}

void conf_preempt_mode_name(int mode, bool lower, char *buf, size_t n)
{
    static const int order[] = { CONF_PM_GANG, CONF_PM_WITHIN, CONF_PM_SUSPEND,
                                 CONF_PM_REQUEUE, CONF_PM_CANCEL };
    static const char *const words[] = { "GANG", "WITHIN", "SUSPEND", "REQUEUE", "CANCEL" };
    size_t at = 0;
    buf[0] = '\0';
    if (mode <= 0) {
        snprintf(buf, n, "%s", lower ? "cluster" : "OFF");
        return;
    }
    for (size_t i = 0; i < sizeof order / sizeof *order; i++)
        if ((mode & order[i]) && at < n)
            at += (size_t)snprintf(buf + at, n - at, "%s%s", at ? "," : "", words[i]);
    for (char *p = buf; lower && *p; p++)
        *p = (char)tolower((unsigned char)*p);
}

static bool number(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!isdigit((unsigned char)*s) || *end || errno || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* One PreemptParameters word; reclaim_licenses and reorder_count are
 * Slurm's and change nothing here. */
static int param(struct conf *c, const char *w)
{
    const char *eq = strchr(w, '=');
    size_t k = eq ? (size_t)(eq - w) : strlen(w);
    long v;
    if (!eq && !strcasecmp(w, "youngest_first"))
        c->preempt_flags |= CONF_PP_YOUNGEST_FIRST;
    else if (!eq && !strcasecmp(w, "strict_order"))
        c->preempt_flags |= CONF_PP_STRICT_ORDER;
    else if (!eq && !strcasecmp(w, "send_user_signal"))
        c->preempt_flags |= CONF_PP_SEND_USER_SIGNAL;
    else if (!eq && !strcasecmp(w, "reclaim_licenses"))
        return 0;
    else if (eq && k == 18 && !strncasecmp(w, "suspend_grace_time", k) &&
             number(eq + 1, 0, 86400, &v))
        c->suspend_grace_s = (int)v;
    else if (eq && k == 19 && !strncasecmp(w, "min_exempt_priority", k) &&
             number(eq + 1, 0, 0x7fffffffL, &v))
        c->min_exempt_prio = v;
    else if (eq && k == 13 && !strncasecmp(w, "reorder_count", k) && number(eq + 1, 0, 5, &v))
        return 0;
    else
        return -1;
    return 0;
}

int conf_preempt_params_parse(struct conf *c, const char *s, char *err, size_t errlen)
{
    char *copy = xstrdup(s), *save = NULL;
    int rc = 0;
    c->preempt_flags = 0;
    for (char *w = strtok_r(copy, ",", &save); w && rc == 0; w = strtok_r(NULL, ",", &save))
        if ((rc = param(c, w)) < 0)
            snprintf(err, errlen, "invalid PreemptParameters option '%s' (youngest_first, "
                     "strict_order, send_user_signal, suspend_grace_time=N, "
                     "min_exempt_priority=N)", w);
    free(copy);
    return rc;
}

int conf_preempt_check(const struct conf *c, char *err, size_t errlen)
{
    if (c->preempt_type == CONF_PT_NONE || c->preempt_mode != CONF_PM_OFF)
        return 0;
    snprintf(err, errlen, "%s: PreemptType=%s needs a PreemptMode other than OFF "
             "(CANCEL, REQUEUE or SUSPEND)", c->path, conf_preempt_type_name(c->preempt_type));
    return -1;
}
