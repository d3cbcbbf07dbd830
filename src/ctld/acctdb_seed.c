/*
 * acctdb_seed: herd-assoc.conf, read once into a new accounting database
 * (docs/scheduling.md): lines of Key=Value pairs, '#' comments,
 *   Account=NAME [Parent=ACCOUNT] [FairShare=N]
 *   User=NAME Account=ACCOUNT [FairShare=N] [Default=yes]
 *   QOS=NAME Priority=N
 * A parent must be defined before its children. Once the database exists,
 * sacctmgr changes it and the file is no longer read.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ctld/acctdb.h"

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

static int add_qos(json_t *db, const struct line *l, char *err, size_t errlen)
{
    uint32_t prio;
    if (!l->priority || !parse_u32(l->priority, &prio)) {
        snprintf(err, errlen, "QOS=%s needs Priority=N", l->qos);
        return -1;
    }
    json_t *q = json_object_get(json_object_get(db, "qos"), l->qos);
    if (!q) {
        q = json_pack("{s:s, s:f}", "Description", l->qos, "UsageFactor", 1.0);
        json_object_set_new(json_object_get(db, "qos"), l->qos, q);
    }
    json_object_set_new(q, "Priority", json_integer(prio));
    return 0;
}

static void add_user(json_t *db, const struct line *l)
{
    json_t *users = json_object_get(db, "users"), *u = json_object_get(users, l->user);
    if (!u) {
        u = json_pack("{s:s, s:s}", "DefaultAccount", l->account, "AdminLevel", "None");
        json_object_set_new(users, l->user, u);
    } else if (l->dflt && !strcasecmp(l->dflt, "yes")) {
        json_object_set_new(u, "DefaultAccount", json_string(l->account));
    }
}

static int add_assoc(json_t *db, const struct line *l, char *err, size_t errlen)
{
    uint32_t shares = 1;
    if (l->fairshare && !parse_u32(l->fairshare, &shares)) {
        snprintf(err, errlen, "invalid FairShare '%s'", l->fairshare);
        return -1;
    }
    const char *parent = l->user ? l->account : (l->parent ? l->parent : "root");
    if (!acctdb_assoc(db, parent, NULL)) {
        snprintf(err, errlen, "account '%s' is not defined above", parent);
        return -1;
    }
    if (acctdb_assoc(db, l->account, l->user)) {
        snprintf(err, errlen, "%s%s%s defined twice", l->account, l->user ? ":" : "",
                 l->user ? l->user : "");
        return -1;
    }
    json_t *a = acctdb_new_assoc(l->account, l->user, parent);
    json_object_set_new(a, "Fairshare", json_integer(shares));
    json_array_append_new(json_object_get(db, "assocs"), a);
    if (l->user)
        add_user(db, l);
    else
        json_object_set_new(json_object_get(db, "accounts"), l->account,
                            json_pack("{s:s, s:s}", "Description", l->account,
                                      "Organization", parent));
    return 0;
}

static int apply_line(json_t *db, const struct line *l, char *err, size_t errlen)
{
    if (l->qos)
        return add_qos(db, l, err, errlen);
    if (!l->account) {
        snprintf(err, errlen, "a line needs Account= (or QOS=)");
        return -1;
    }
    return add_assoc(db, l, err, errlen);
}

int acctdb_seed(json_t *db, const char *path, char *err, size_t errlen)
{
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
            ((l.account || l.user || l.qos) && apply_line(db, &l, msg, sizeof msg) < 0)) {
            snprintf(err, errlen, "%s:%d: %s", path, lineno, msg);
            rc = -1;
        }
    }
    fclose(f);
    return rc;
}
