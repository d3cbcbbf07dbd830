/*
 * assoc: the association tree fair share ranks, read from herd-assoc.conf
 * (docs/scheduling.md): lines of Key=Value pairs, '#' comments,
 *   Account=NAME [Parent=ACCOUNT] [FairShare=N]
 *   User=NAME Account=ACCOUNT [FairShare=N] [Default=yes]
 *   QOS=NAME Priority=N
 * A parent must be defined before its children. Users and accounts jobs
 * name that the file does not list join with FairShare=1.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/xmalloc.h"
#include "ctld/prio.h"

static char *assoc_key(const char *account, const char *user)
{
    return user ? xasprintf("%s:%s", account, user) : xstrdup(account);
}

static size_t assoc_find(const struct assocs *as, const char *account, const char *user)
{
    char *k = assoc_key(account, user);
    json_t *v = json_object_get(as->index, k);
    free(k);
    return v ? (size_t)json_integer_value(v) : SCHED_ASSOC_NONE;
}

static size_t assoc_add(struct assocs *as, const char *account, const char *user, size_t parent,
                        uint32_t shares)
{
    if (as->n == as->cap) {
        as->cap = as->cap ? as->cap * 2 : 16;
        as->a = xrealloc(as->a, as->cap * sizeof(*as->a));
    }
    as->a[as->n] = (struct assoc){ xstrdup(account), user ? xstrdup(user) : NULL, parent,
                                   shares, 0.0 };
    char *k = assoc_key(account, user);
    json_object_set_new(as->index, k, json_integer((json_int_t)as->n));
    free(k);
    as->dirty = true;
    return as->n++;
}

static bool parse_u32(const char *s, uint32_t *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (!*s || *end || errno || v > UINT32_MAX)
        return false;
    *out = (uint32_t)v;
    return true;
}

struct line {
    const char *account, *user, *parent, *qos, *fairshare, *priority, *dflt;
};

static int line_keys(char *text, struct line *l, char *err, size_t errlen)
{
    char *save = NULL;
    memset(l, 0, sizeof(*l));
    for (char *tok = strtok_r(text, " \t\r\n", &save); tok; tok = strtok_r(NULL, " \t\r\n", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq || eq == tok || !eq[1]) {
            snprintf(err, errlen, "'%s' is not Key=Value", tok);
            return -1;
        }
        *eq++ = '\0';
        const char **slot = !strcasecmp(tok, "Account") ? &l->account
                          : !strcasecmp(tok, "User") ? &l->user
                          : !strcasecmp(tok, "Parent") ? &l->parent
                          : !strcasecmp(tok, "QOS") ? &l->qos
                          : !strcasecmp(tok, "FairShare") ? &l->fairshare
                          : !strcasecmp(tok, "Priority") ? &l->priority
                          : !strcasecmp(tok, "Default") ? &l->dflt : NULL;
        if (!slot) {
            snprintf(err, errlen, "unknown key '%s'", tok);
            return -1;
        }
        *slot = eq;
    }
    return 0;
}

static int apply_line(struct assocs *as, const struct line *l, char *err, size_t errlen)
{
    uint32_t shares = 1, prio = 0;
    if (l->fairshare && !parse_u32(l->fairshare, &shares)) {
        snprintf(err, errlen, "invalid FairShare '%s'", l->fairshare);
        return -1;
    }
    if (l->qos) {
        if (!l->priority || !parse_u32(l->priority, &prio)) {
            snprintf(err, errlen, "QOS=%s needs Priority=N", l->qos);
            return -1;
        }
        json_object_set_new(as->qos, l->qos, json_integer(prio));
        if (prio > as->max_qos)
            as->max_qos = prio;
        return 0;
    }
    if (!l->account) {
        snprintf(err, errlen, "a line needs Account= (or QOS=)");
        return -1;
    }
    size_t parent = assoc_find(as, l->user ? l->account : (l->parent ? l->parent : "root"), NULL);
    if (parent == SCHED_ASSOC_NONE) {
        snprintf(err, errlen, "account '%s' is not defined above", l->user ? l->account : l->parent);
        return -1;
    }
    if (assoc_find(as, l->account, l->user) != SCHED_ASSOC_NONE) {
        snprintf(err, errlen, "%s%s%s defined twice", l->account, l->user ? ":" : "",
                 l->user ? l->user : "");
        return -1;
    }
    assoc_add(as, l->account, l->user, parent, shares);
    if (l->user && (!json_object_get(as->defaults, l->user) ||
                    (l->dflt && !strcasecmp(l->dflt, "yes"))))
        json_object_set_new(as->defaults, l->user, json_string(l->account));
    return 0;
}

int assocs_load(struct assocs *as, const char *path, char *err, size_t errlen)
{
    memset(as, 0, sizeof(*as));
    as->index = json_object();
    as->defaults = json_object();
    as->qos = json_object();
    assoc_add(as, "root", NULL, SCHED_ASSOC_NONE, 1);
    FILE *f = path ? fopen(path, "r") : NULL;
    if (!f)
        return 0;
    char buf[1024], msg[256];
    int lineno = 0, rc = 0;
    while (rc == 0 && fgets(buf, sizeof buf, f)) {
        struct line l;
        lineno++;
        buf[strcspn(buf, "#")] = '\0';
        if (line_keys(buf, &l, msg, sizeof msg) < 0 ||
            ((l.account || l.user || l.qos) && apply_line(as, &l, msg, sizeof msg) < 0)) {
            snprintf(err, errlen, "%s:%d: %s", path, lineno, msg);
            rc = -1;
        }
    }
    fclose(f);
    return rc;
}

void assocs_free(struct assocs *as)
{
    if (!as)
        return;
    for (size_t i = 0; i < as->n; i++) {
        free(as->a[i].account);
        free(as->a[i].user);
    }
    free(as->a);
    free(as->tree);
    json_decref(as->index);
    json_decref(as->defaults);
    json_decref(as->qos);
    memset(as, 0, sizeof(*as));
}

const char *assocs_listed_account(const struct assocs *as, const char *user)
{
    return json_string_value(json_object_get(as->defaults, user ? user : ""));
}

const char *assocs_default_account(const struct assocs *as, const char *user)
{
    const char *a = assocs_listed_account(as, user);
    return a ? a : "root";
}

size_t assocs_user(struct assocs *as, const char *user, const char *account)
{
    if (!account || !*account)
        account = assocs_default_account(as, user);
    size_t i = assoc_find(as, account, user);
    if (i != SCHED_ASSOC_NONE)
        return i;
    size_t acct = assoc_find(as, account, NULL);
    if (acct == SCHED_ASSOC_NONE)
        acct = assoc_add(as, account, NULL, 0, 1);
    return assoc_add(as, account, user, acct, 1);
}

const struct sched_assoc *assocs_tree(struct assocs *as)
{
    static const struct sched_assoc none;
    if (as->n == 0)
        return &none;
    if (!as->dirty && as->tree)
        return as->tree;
    free(as->tree);
    as->tree = xcalloc(as->n, sizeof(*as->tree));
    for (size_t i = 0; i < as->n; i++) {
        const struct assoc *a = &as->a[i];
        as->tree[i] = (struct sched_assoc){ .parent = a->parent, .user = a->user != NULL,
                                            .shares = a->shares, .usage = a->usage,
                                            .name = a->user ? a->user : a->account };
    }
    sched_fairtree(as->tree, as->n);
    as->dirty = false;
    return as->tree;
}

double assocs_qos_factor(const struct assocs *as, const char *qos)
{
    json_t *v = json_object_get(as->qos, qos ? qos : "normal");
    if (!v || as->max_qos == 0)
        return 0.0;
    return (double)json_integer_value(v) / (double)as->max_qos;
}
