/*
 * mgr_show: sacctmgr show|list of users, accounts, associations and QOS,
 * with Slurm's default columns and widths, format= (Name%N widths), -n,
 * -p and -P. Values come from the controller's accounting database and are
 * printed as Slurm prints them (common/acct_keys.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "client/client.h"
#include "client/cmdutil.h"
#include "client/paths.h"
#include "cmd/sacctmgr/sacctmgr.h"
#include "common/acct_keys.h"
#include "common/conf.h"
#include "common/xmalloc.h"

enum src { S_CLUSTER, S_UNAME, S_ANAME, S_QNAME, S_USER, S_ACCT, S_ASSOC, S_QOS, S_CONST,
           S_LEGACY, S_COORD, S_CTL };

struct col {
    const char *header;    /* as the header shows it and format= names it */
    int width;
    const char *aliases;   /* other names format= takes, ',' separated */
    enum src src;
    const char *key;       /* acct_keys name; S_CONST: the text; S_LEGACY: the TRES list */
    const char *tres;      /* S_LEGACY: the one TRES shown */
};

static const struct col assoc_cols[] = {
    { "Cluster", 10, "", S_CLUSTER, NULL, NULL },
    { "Account", 10, "Acct", S_ANAME, NULL, NULL },
    { "User", 10, "Name", S_UNAME, NULL, NULL },
    { "Partition", 10, "", S_CONST, "", NULL },
    { "Share", 9, "Shares,Fairshare", S_ASSOC, "Fairshare", NULL },
    { "Priority", 10, "", S_ASSOC, "Priority", NULL },
    { "GrpJobs", 7, "", S_ASSOC, "GrpJobs", NULL },
    { "GrpTRES", 13, "", S_ASSOC, "GrpTRES", NULL },
    { "GrpSubmit", 9, "GrpSubmitJobs", S_ASSOC, "GrpSubmitJobs", NULL },
    { "GrpWall", 11, "", S_ASSOC, "GrpWall", NULL },
    { "GrpTRESMins", 13, "", S_ASSOC, "GrpTRESMins", NULL },
    { "MaxJobs", 7, "", S_ASSOC, "MaxJobs", NULL },
    { "MaxTRES", 13, "MaxTRESPerJob", S_ASSOC, "MaxTRES", NULL },
    { "MaxTRESPerNode", 14, "", S_ASSOC, "MaxTRESPerNode", NULL },
    { "MaxSubmit", 9, "MaxSubmitJobs", S_ASSOC, "MaxSubmitJobs", NULL },
    { "MaxWall", 11, "MaxWallDurationPerJob", S_ASSOC, "MaxWall", NULL },
    { "MaxTRESMins", 13, "", S_ASSOC, "MaxTRESMins", NULL },
    { "QOS", 20, "QosLevel", S_ASSOC, "QOS", NULL },
    { "Def QOS", 9, "DefaultQOS,DefQOS", S_ASSOC, "DefaultQOS", NULL },
    { "GrpTRESRunMins", 13, "GrpTRESRunMin", S_ASSOC, "GrpTRESRunMins", NULL },
    { "ParentName", 10, "Parent", S_ASSOC, "Parent", NULL },
    { "Def Acct", 10, "DefaultAccount,DefAcct", S_USER, "DefaultAccount", NULL },
    { "Admin", 9, "AdminLevel", S_USER, "AdminLevel", NULL },
    { "Descr", 20, "Description", S_ACCT, "Description", NULL },
    { "Org", 20, "Organization", S_ACCT, "Organization", NULL },
    { "MaxNodes", 8, "", S_LEGACY, "MaxTRES", "node" },
    { "MaxCPUs", 8, "", S_LEGACY, "MaxTRES", "cpu" },
    { "MaxCPUMins", 11, "", S_LEGACY, "MaxTRESMins", "cpu" },
    { "GrpNodes", 8, "", S_LEGACY, "GrpTRES", "node" },
    { "GrpCPUs", 8, "", S_LEGACY, "GrpTRES", "cpu" },
    { "GrpMem", 7, "", S_LEGACY, "GrpTRES", "mem" },
    { "GrpCPUMins", 11, "", S_LEGACY, "GrpTRESMins", "cpu" },
    { "Coord Accounts", 20, "Coordinators,CoordAccounts", S_COORD, NULL, NULL },
    { "ControlHost", 15, "", S_CTL, "host", NULL },
    { "ControlPort", 12, "", S_CTL, "port", NULL },
    { "RPC", 5, "RPCVersion", S_CONST, "9728", NULL },   /* Slurm 22.05's protocol */
};

static const struct col qos_cols[] = {
    { "Name", 10, "", S_QNAME, NULL, NULL },
    { "Priority", 10, "", S_QOS, "Priority", NULL },
    { "GraceTime", 10, "", S_QOS, "GraceTime", NULL },
    { "Preempt", 10, "", S_QOS, "Preempt", NULL },
    { "PreemptExemptTime", 19, "", S_QOS, "PreemptExemptTime", NULL },
    { "PreemptMode", 11, "", S_QOS, "PreemptMode", NULL },
    { "Flags", 40, "", S_QOS, "Flags", NULL },
    { "UsageThres", 10, "UsageThreshold", S_CONST, "", NULL },
    { "UsageFactor", 11, "", S_QOS, "UsageFactor", NULL },
    { "GrpTRES", 13, "", S_QOS, "GrpTRES", NULL },
    { "GrpTRESMins", 13, "", S_QOS, "GrpTRESMins", NULL },
    { "GrpTRESRunMins", 13, "GrpTRESRunMin", S_QOS, "GrpTRESRunMins", NULL },
    { "GrpJobs", 7, "", S_QOS, "GrpJobs", NULL },
    { "GrpSubmit", 9, "GrpSubmitJobs", S_QOS, "GrpSubmitJobs", NULL },
    { "GrpWall", 11, "", S_QOS, "GrpWall", NULL },
    { "MaxTRES", 13, "MaxTRESPerJob", S_QOS, "MaxTRESPerJob", NULL },
    { "MaxTRESPerNode", 14, "", S_QOS, "MaxTRESPerNode", NULL },
    { "MaxTRESMins", 13, "", S_QOS, "MaxTRESMins", NULL },
    { "MaxWall", 11, "MaxWallDurationPerJob", S_QOS, "MaxWall", NULL },
    { "MaxTRESPU", 13, "MaxTRESPerUser", S_QOS, "MaxTRESPerUser", NULL },
    { "MaxJobsPU", 9, "MaxJobsPerUser", S_QOS, "MaxJobsPerUser", NULL },
    { "MaxSubmitPU", 11, "MaxSubmitJobsPerUser", S_QOS, "MaxSubmitJobsPerUser", NULL },
    { "MaxTRESPA", 13, "MaxTRESPerAccount", S_QOS, "MaxTRESPerAccount", NULL },
    { "MaxJobsPA", 9, "MaxJobsPerAccount", S_QOS, "MaxJobsPerAccount", NULL },
    { "MaxSubmitPA", 11, "MaxSubmitJobsPerAccount", S_QOS, "MaxSubmitJobsPerAccount", NULL },
    { "MinTRES", 13, "MinTRESPerJob", S_QOS, "MinTRESPerJob", NULL },
    { "Description", 11, "Descr", S_QOS, "Description", NULL },
};

/* Slurm's default columns of each listing, by header. */
static const char *const defaults[][2] = {
    [E_USER] = { "User,Def Acct,Admin",
                 "User,Def Acct,Admin,Cluster,Account,Partition,Share,Priority,MaxJobs,MaxNodes,"
                 "MaxCPUs,MaxSubmit,MaxWall,MaxCPUMins,QOS,Def QOS" },
    [E_ACCOUNT] = { "Account,Descr,Org",
                    "Account,Descr,Org,Cluster,ParentName,User,Share,Priority,GrpJobs,GrpNodes,"
                    "GrpCPUs,GrpMem,GrpSubmit,GrpWall,GrpCPUMins,MaxJobs,MaxNodes,MaxCPUs,"
                    "MaxSubmit,MaxWall,MaxCPUMins,QOS,Def QOS" },
    [E_ASSOC] = { "Cluster,Account,User,Partition,Share,Priority,GrpJobs,GrpTRES,GrpSubmit,"
                  "GrpWall,GrpTRESMins,MaxJobs,MaxTRES,MaxTRESPerNode,MaxSubmit,MaxWall,"
                  "MaxTRESMins,QOS,Def QOS,GrpTRESRunMins", NULL },
    [E_CLUSTER] = { "Cluster,ControlHost,ControlPort,RPC,Share,GrpJobs,GrpTRES,GrpSubmit,MaxJobs,"
                    "MaxTRES,MaxSubmit,MaxWall,QOS,Def QOS", NULL },
    [E_QOS] = { "Name,Priority,GraceTime,Preempt,PreemptExemptTime,PreemptMode,Flags,UsageThres,"
                "UsageFactor,GrpTRES,GrpTRESMins,GrpTRESRunMins,GrpJobs,GrpSubmit,GrpWall,"
                "MaxTRES,MaxTRESPerNode,MaxTRESMins,MaxWall,MaxTRESPU,MaxJobsPU,MaxSubmitPU,"
                "MaxTRESPA,MaxJobsPA,MaxSubmitPA,MinTRES", NULL },
};

struct shown {
    struct col c;
    int width;             /* negative: left-justified */
};

struct view {
    const struct mgr *m;
    struct shown *cols;
    size_t ncols;
    const json_t *db;
    const char *cluster;
};

struct row {
    const char *uname, *aname, *qname;
    const json_t *user, *acct, *assoc, *qos;
};

static const struct col *col_find(enum entity e, const char *w)
{
    const struct col *t = e == E_QOS ? qos_cols : assoc_cols;
    size_t n = e == E_QOS ? sizeof qos_cols / sizeof *t : sizeof assoc_cols / sizeof *t;
    for (size_t i = 0; i < n; i++)
        if (!strcasecmp(t[i].header, w) || acct_word_in(t[i].aliases, w, strlen(w)))
            return &t[i];
    return NULL;
}

static int add_cols(struct view *v, const char *spec, bool user_widths)
{
    char *list = xstrdup(spec), *save = NULL;
    for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *pct = user_widths ? strchr(tok, '%') : NULL;
        if (pct)
            *pct = '\0';
        const struct col *c = col_find(v->m->what, tok);
        if (!c) {
            fprintf(stderr, " Unknown field '%s'\n", tok);
            free(list);
            return -1;
        }
        int w = pct && atoi(pct + 1) ? atoi(pct + 1) : c->width;
        if (user_widths && !pct && !strcmp(c->header, "Flags"))
            w = 20;   /* Slurm's width for Flags named in format= */
        v->cols = xrealloc(v->cols, (v->ncols + 1) * sizeof *v->cols);
        v->cols[v->ncols++] = (struct shown){ *c, w };
    }
    free(list);
    return 0;
}

/* Slurm's print_fields: right-justified in the width (left when it is
 * negative), a value too long cut with '+', a header cut plainly. */
static void put(const struct view *v, size_t i, const char *s, bool header)
{
    int w = v->cols[i].width, aw = abs(w);
    if (v->m->parsable) {
        fputs(s, stdout);
        if (v->m->parsable == 1 || i + 1 < v->ncols)
            fputc('|', stdout);
        return;
    }
    if ((int)strlen(s) > aw)
        printf(header ? "%.*s " : "%.*s+ ", header ? aw : aw - 1, s);
    else
        printf(w < 0 ? "%-*s " : "%*s ", aw, s);
}

static void header(const struct view *v)
{
    if (v->m->noheader)
        return;
    for (size_t i = 0; i < v->ncols; i++)
        put(v, i, v->cols[i].c.header, true);
    fputc('\n', stdout);
    if (v->m->parsable)
        return;
    for (size_t i = 0; i < v->ncols; i++)
        printf("%.*s ", abs(v->cols[i].width),
               "--------------------------------------------------------------------------------"
               "--------------------------------------------------------------------------------");
    fputc('\n', stdout);
}

static char *legacy(const json_t *assoc, const struct col *c)
{
    json_t *n = json_object_get(json_object_get(assoc, c->key), c->tres);
    return n ? xasprintf("%lld", (long long)json_integer_value(n)) : xstrdup("");
}

static char *keyed(const json_t *obj, const char *key, unsigned ent)
{
    const struct acct_key *k = acct_key_find(key, strlen(key), ent);
    return k ? acct_value_format(k, json_object_get(obj, key)) : xstrdup("");
}

/* Does user coordinate account (or an account above it)? */
static bool coordinates(const json_t *db, const char *user, const char *account)
{
    for (int depth = 0; account && depth < 64; depth++) {
        const json_t *a = json_object_get(json_object_get(db, "accounts"), account);
        size_t i;
        json_t *u;
        json_array_foreach(json_object_get(a, "coordinators"), i, u)
            if (!strcmp(json_string_value(u), user))
                return true;
        const char *parent = NULL;
        json_array_foreach(json_object_get(db, "assocs"), i, u)
            if (!json_object_get(u, "user") &&
                !strcmp(json_string_value(json_object_get(u, "account")), account))
                parent = json_string_value(json_object_get(u, "Parent"));
        account = parent;
    }
    return false;
}

/* A user's row: the accounts it coordinates; an account's: its coordinators. */
static char *coords(const json_t *db, const struct row *r)
{
    const json_t *table = json_object_get(db, r->uname ? "accounts" : "users");
    char *out = xstrdup("");
    const char *name;
    json_t *x;
    json_object_foreach((json_t *)table, name, x) {
        if (!(r->uname ? coordinates(db, r->uname, name) : coordinates(db, name, r->aname)))
            continue;
        char *prev = out;
        out = xasprintf("%s%s%s", prev, *prev ? "," : "", name);
        free(prev);
    }
    return out;
}

/* The controller's address and port, as slurm.conf gives them. */
static char *ctl_value(const char *key)
{
    const struct conf *cf = client_conf(PROG);
    if (!strcmp(key, "port"))
        return xasprintf("%d", cf->ctld_port);
    return xstrdup(cf->ctld_addr ? cf->ctld_addr : cf->ctld_host ? cf->ctld_host : "");
}

static char *value(const struct view *v, const struct col *c, const struct row *r)
{
    switch (c->src) {
    case S_CLUSTER: return xstrdup(v->cluster);
    case S_UNAME: return xstrdup(r->uname ? r->uname : "");
    case S_ANAME: return xstrdup(r->aname ? r->aname : "");
    case S_QNAME: return xstrdup(r->qname ? r->qname : "");
    case S_CONST: return xstrdup(c->key);
    case S_LEGACY: return legacy(r->assoc, c);
    case S_USER: return keyed(r->user, c->key, AK_USER);
    case S_ACCT: return keyed(r->acct, c->key, AK_ACCOUNT);
    case S_ASSOC: return keyed(r->assoc, c->key, AK_ACCOUNT | AK_USER);
    case S_QOS: return keyed(r->qos, c->key, AK_QOS);
    case S_COORD: return coords(v->db, r);
    case S_CTL: return ctl_value(c->key);
    }
    return xstrdup("");
}

static void print_row(const struct view *v, const struct row *r)
{
    for (size_t i = 0; i < v->ncols; i++) {
        char *s = value(v, &v->cols[i].c, r);
        put(v, i, s, false);
        free(s);
    }
    fputc('\n', stdout);
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The keys of an object, sorted: Slurm lists users and accounts by name. */
static const char **sorted_keys(const json_t *obj, size_t *n)
{
    const char **k = xcalloc(json_object_size(obj) + 1, sizeof *k), *key;
    json_t *v;
    *n = 0;
    json_object_foreach((json_t *)obj, key, v)
        k[(*n)++] = key;
    qsort(k, *n, sizeof *k, name_cmp);
    return k;
}

static struct row assoc_row(const struct view *v, const json_t *a)
{
    const char *acct = json_string_value(json_object_get(a, "account"));
    const char *user = json_string_value(json_object_get(a, "user"));
    return (struct row){ user, acct, NULL,
                         json_object_get(json_object_get(v->db, "users"), user ? user : ""),
                         json_object_get(json_object_get(v->db, "accounts"), acct), a, NULL };
}

/* Every association of one user or one account (for withassoc / -s). */
static void assocs_of(const struct view *v, const char *user, const char *acct)
{
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(v->db, "assocs"), i, a) {
        const char *au = json_string_value(json_object_get(a, "user"));
        const char *aa = json_string_value(json_object_get(a, "account"));
        if (user ? (au && !strcmp(au, user) && acct_list_wants(json_object_get(v->m->where, "account"), aa))
                 : !strcmp(aa, acct)) {
            struct row r = assoc_row(v, a);
            print_row(v, &r);
        }
    }
}

static void list_entities(const struct view *v, const char *table)
{
    size_t n;
    const json_t *obj = json_object_get(v->db, table);
    const char **keys = sorted_keys(obj, &n);
    for (size_t i = 0; i < n; i++) {
        if (!acct_list_wants(v->m->names, keys[i]))
            continue;
        const json_t *e = json_object_get(obj, keys[i]);
        struct row r = { 0 };
        if (v->m->what == E_USER)
            r.uname = keys[i], r.user = e;
        else
            r.aname = keys[i], r.acct = e;
        if (v->m->with_assoc)
            assocs_of(v, r.uname, r.aname);
        else
            print_row(v, &r);
    }
    free(keys);
}

static void list_assocs(const struct view *v)
{
    size_t i;
    json_t *a;
    const json_t *users = json_object_get(v->m->where, "user");
    const json_t *accts = json_object_get(v->m->where, "account");
    json_array_foreach(json_object_get(v->db, "assocs"), i, a) {
        const char *u = json_string_value(json_object_get(a, "user"));
        const char *acct = json_string_value(json_object_get(a, "account"));
        if ((json_array_size(users) && !acct_list_wants(users, u)) || !acct_list_wants(accts, acct) ||
            (json_array_size(v->m->names) && !acct_list_wants(v->m->names, u) && !acct_list_wants(v->m->names, acct)))
            continue;
        struct row r = assoc_row(v, a);
        print_row(v, &r);
    }
}

static void list_qos(const struct view *v)
{
    const char *name;
    json_t *q;
    json_object_foreach(json_object_get(v->db, "qos"), name, q)
        if (acct_list_wants(v->m->names, name)) {
            struct row r = { .qname = name, .qos = q };
            print_row(v, &r);
        }
}

/* The one cluster: its root association's share and limits. */
static void list_cluster(const struct view *v)
{
    size_t i;
    json_t *a;
    json_array_foreach(json_object_get(v->db, "assocs"), i, a)
        if (!json_object_get(a, "user") && !strcmp(json_string_value(json_object_get(a,
                                                   "account")), "root") &&
            acct_list_wants(v->m->names, v->cluster)) {
            struct row r = assoc_row(v, a);
            r.aname = NULL;
            print_row(v, &r);
            return;
        }
}

int mgr_show(struct mgr *m)
{
    struct view v = { .m = m };
    json_t *answer = NULL;
    char err[256];
    const char *cols = m->format ? m->format : defaults[m->what][m->with_assoc ? 1 : 0];
    if (!cols)
        cols = defaults[m->what][0];
    if (add_cols(&v, cols, m->format != NULL) < 0 ||
        (m->with_coord && !m->format && add_cols(&v, "Coord Accounts", false) < 0))
        return 1;
    int status = client_call(PROG, "GET", PATH_ACCTDB, NULL, &answer, err, sizeof err);
    if (status != 200) {
        fprintf(stderr, "sacctmgr: error: %s\n", status < 0 ? err : client_error_text(answer, status));
        json_decref(answer);
        free(v.cols);
        return 1;
    }
    v.db = answer;
    v.cluster = jget_str(answer, "cluster", "");
    header(&v);
    if (m->what == E_ASSOC)
        list_assocs(&v);
    else if (m->what == E_QOS)
        list_qos(&v);
    else if (m->what == E_CLUSTER)
        list_cluster(&v);
    else
        list_entities(&v, m->what == E_USER ? "users" : "accounts");
    json_decref(answer);
    free(v.cols);
    return 0;
}
