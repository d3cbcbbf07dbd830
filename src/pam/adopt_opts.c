/* pam_herd_adopt's arguments: see adopt_opts.h. */
#include "pam/adopt_opts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct named { const char *name; int val; };

static const struct named log_levels[] = {
    { "quiet", ALOG_QUIET }, { "fatal", ALOG_FATAL }, { "error", ALOG_ERROR }, { "info", ALOG_INFO },
    { "verbose", ALOG_VERBOSE }, { "debug", ALOG_DEBUG }, { "debug2", ALOG_DEBUG + 1 },
    { "debug3", ALOG_DEBUG + 2 }, { "debug4", ALOG_DEBUG + 3 }, { "debug5", ALOG_DEBUG + 4 },
    { NULL, 0 },
};
static const struct named no_jobs[] = { { "deny", ACT_DENY }, { "ignore", ACT_IGNORE },
                                        { NULL, 0 } };
static const struct named unknown[] = { { "newest", ACT_NEWEST }, { "allow", ACT_ALLOW },
                                        { "deny", ACT_DENY }, { NULL, 0 } };
static const struct named adopt_failure[] = { { "allow", ACT_ALLOW }, { "deny", ACT_DENY },
                                              { NULL, 0 } };
static const struct named generic_failure[] = { { "ignore", ACT_IGNORE },
                                                { "allow", ACT_ALLOW },
                                                { "deny", ACT_DENY }, { NULL, 0 } };

static int lookup(const struct named *t, const char *v, int *out)
{
    for (; t->name; t++)
        if (strcasecmp(t->name, v) == 0) {
            *out = t->val;
            return 0;
        }
    return -1;
}

static void note(char *bad, size_t badlen, const char *arg, const char *why)
{
    size_t used = strlen(bad);
    if (used < badlen)
        snprintf(bad + used, badlen - used, "%s: %s\n", arg, why);
}

static int set_str(char *dst, size_t n, const char *v)
{
    if (strlen(v) >= n)
        return -1;
    memcpy(dst, v, strlen(v) + 1);
    return 0;
}

void adopt_opts_parse(struct adopt_opts *o, int argc, const char **argv, char *bad,
                      size_t badlen)
{
    *o = (struct adopt_opts){
        .no_jobs = ACT_DENY, .unknown = ACT_NEWEST, .adopt_failure = ACT_ALLOW,
        .generic_failure = ACT_IGNORE, .log_level = ALOG_INFO, .ignore_root = true,
    };
    strcpy(o->service, "sshd");
    if (badlen)
        bad[0] = '\0';
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *eq = strchr(a, '=');
        if (!eq) {
            note(bad, badlen, a, "unknown option");
            continue;
        }
        size_t klen = (size_t)(eq - a);
        const char *v = eq + 1;
        int val = 0, rc = 0;
#define KEY(k) (klen == strlen(k) && strncmp(a, k, klen) == 0)
        if (KEY("action_no_jobs"))
            rc = lookup(no_jobs, v, &val), o->no_jobs = rc ? o->no_jobs : (enum adopt_action)val;
        else if (KEY("action_unknown"))
            rc = lookup(unknown, v, &val), o->unknown = rc ? o->unknown : (enum adopt_action)val;
        else if (KEY("action_adopt_failure"))
            rc = lookup(adopt_failure, v, &val),
            o->adopt_failure = rc ? o->adopt_failure : (enum adopt_action)val;
        else if (KEY("action_generic_failure"))
            rc = lookup(generic_failure, v, &val),
            o->generic_failure = rc ? o->generic_failure : (enum adopt_action)val;
        else if (KEY("log_level"))
            rc = lookup(log_levels, v, &val), o->log_level = rc ? o->log_level : val;
        else if (KEY("ignore_root"))
            rc = (strcmp(v, "0") && strcmp(v, "1")) ? -1 : (o->ignore_root = v[0] == '1', 0);
        else if (KEY("nodename"))
            rc = set_str(o->nodename, sizeof o->nodename, v);
        else if (KEY("service"))
            rc = set_str(o->service, sizeof o->service, v);
        else if (KEY("admins"))
            rc = set_str(o->admins, sizeof o->admins, v);
        else {
            note(bad, badlen, a, "unknown option");
            continue;
        }
#undef KEY
        if (rc)
            note(bad, badlen, a, "bad value, default kept");
    }
}

bool adopt_opts_admin(const struct adopt_opts *o, const char *user)
{
    size_t ul = strlen(user);
    for (const char *p = o->admins; *p;) {
        size_t n = strcspn(p, ",");
        if (n == ul && ul && strncmp(p, user, n) == 0)
            return true;
        p += n + (p[n] == ',');
    }
    return false;
}
