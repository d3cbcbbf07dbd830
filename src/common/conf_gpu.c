/* The GPU-use keys of slurm.conf: JobAcctGatherFrequency (Slurm's) and
 * IdleGPUPolicy (Herd's own), and sbatch's --acctg-freq, which takes the
 * same words as JobAcctGatherFrequency. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf.h"
#include "common/timefmt.h"
#include "common/xmalloc.h"

static int number(const char *s, int64_t *out)
{
    char *end;
    if (!isdigit((unsigned char)*s))
        return -1;
    long long v = strtoll(s, &end, 10);
    if (*end || v > 86400 * 365)
        return -1;
    *out = v;
    return 0;
}

int conf_acctg_freq_parse(const char *s, int *task_s, char *err, size_t errlen)
{
    char *copy = xstrdup(s), *save = NULL;
    int rc = 0;
    for (char *w = strtok_r(copy, ",", &save); w && rc == 0; w = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(w, '=');
        int64_t v;
        if (!eq) {                       /* the old form: a bare number is the task period */
            if ((rc = number(w, &v)) == 0)
                *task_s = (int)v;
            else
                snprintf(err, errlen, "'%s' is not a number of seconds", w);
            continue;
        }
        *eq = '\0';
        if (number(eq + 1, &v) < 0) {
            snprintf(err, errlen, "'%s' is not a number of seconds", eq + 1);
            rc = -1;
        } else if (strcasecmp(w, "task") == 0)
            *task_s = (int)v;
        else if (strcasecmp(w, "energy") && strcasecmp(w, "network") && strcasecmp(w, "filesystem")) {
            snprintf(err, errlen, "unknown data type '%s' (task, energy, network, filesystem)", w);
            rc = -1;
        }
    }
    free(copy);
    return rc;
}

static int idle_word(struct conf_idle_gpu *p, char *w, char *err, size_t errlen)
{
    char *val = strchr(w, '=');
    if (val)
        *val++ = '\0';
    int64_t v;
    if (strcasecmp(w, "dry_run") == 0 && !val) {
        p->dry_run = true;
        return 0;
    }
    if (!val || !*val) {
        snprintf(err, errlen, "'%s' needs a value", w);
        return -1;
    }
    if (strcasecmp(w, "threshold") == 0) {
        if (number(val, &v) < 0 || v < 1 || v > 100) {
            snprintf(err, errlen, "threshold '%s' is not a percentage from 1 to 100", val);
            return -1;
        }
        p->threshold_pct = (int)v;
    } else if (!strcasecmp(w, "flag_after") || !strcasecmp(w, "action_after")) {
        if (timefmt_parse_secs(val, &v) < 0 || v < 0) {
            snprintf(err, errlen, "%s '%s' is not a time (minutes, mm:ss, hh:mm:ss)", w, val);
            return -1;
        }
        *(strcasecmp(w, "flag_after") ? &p->action_after_s : &p->flag_after_s) = v;
    } else if (strcasecmp(w, "action") == 0) {
        if (!strcasecmp(val, "none"))
            p->action = CONF_IDLE_NONE;
        else if (!strcasecmp(val, "cancel"))
            p->action = CONF_IDLE_CANCEL;
        else if (!strcasecmp(val, "requeue"))
            p->action = CONF_IDLE_REQUEUE;
        else {
            snprintf(err, errlen, "action '%s' is not none, cancel or requeue", val);
            return -1;
        }
    } else if (!strcasecmp(w, "exempt_qos") || !strcasecmp(w, "exempt_accounts") ||
               !strcasecmp(w, "exempt_users") || !strcasecmp(w, "notify")) {
        char **slot = !strcasecmp(w, "notify") ? &p->notify
                    : !strcasecmp(w, "exempt_qos") ? &p->exempt_qos
                    : !strcasecmp(w, "exempt_users") ? &p->exempt_users : &p->exempt_accounts;
        free(*slot);
        *slot = xstrdup(val);
        for (char *c = *slot; *c; c++)   /* lists are written with ':' inside one word */
            if (*c == ':' && slot != &p->notify)
                *c = ',';
    } else {
        snprintf(err, errlen, "unknown word '%s' (threshold, flag_after, action, action_after, "
                 "exempt_qos, exempt_accounts, exempt_users, notify, dry_run)", w);
        return -1;
    }
    return 0;
}

int conf_idle_gpu_parse(struct conf_idle_gpu *p, const char *s, char *err, size_t errlen)
{
    conf_idle_gpu_clear(p);
    char *copy = xstrdup(s), *save = NULL;
    int rc = 0;
    for (char *w = strtok_r(copy, ",", &save); w && rc == 0; w = strtok_r(NULL, ",", &save))
        rc = idle_word(p, w, err, errlen);
    free(copy);
    if (rc == 0 && p->flag_after_s <= 0) {
        snprintf(err, errlen, "flag_after must be given and above 0 (the policy is off "
                 "without the key)");
        rc = -1;
    }
    if (rc < 0)
        conf_idle_gpu_clear(p);
    return rc;
}

void conf_idle_gpu_clear(struct conf_idle_gpu *p)
{
    free(p->exempt_qos);
    free(p->exempt_accounts);
    free(p->exempt_users);
    free(p->notify);
    memset(p, 0, sizeof *p);
    p->threshold_pct = CONF_IDLE_DEFAULT_PCT;
    p->action = CONF_IDLE_NONE;
}

bool conf_idle_gpu_listed(const char *list, const char *name)
{
    if (!list || !name)
        return false;
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && strncasecmp(p, name, n) == 0)
            return true;
        if (!e)
            break;
        p = e + 1;
    }
    return false;
}
