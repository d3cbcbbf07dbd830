/*
 * sacctmgr: the read-only part of Slurm's account manager, `list` (or
 * `show`) of users, accounts and associations, from the association tree the
 * controller ranks fair share by (GET /v1/shares; herd-assoc.conf, and the
 * accounts jobs name). Tools ask it which accounts a user may charge
 * (Snakemake: `sacctmgr -n -s list user NAME format=account%20`). Changing
 * associations is done in herd-assoc.conf, not here.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "client/client.h"
#include "client/cmdutil.h"
#include "client/paths.h"
#include "cmd/cmds.h"
#include "common/conf.h"
#include "common/xmalloc.h"

#define PROG "sacctmgr"

enum entity { E_USER, E_ACCOUNT, E_ASSOC };

struct col {
    const char *name;      /* as -o/format= names it and the header shows it */
    int width;
};

/* Slurm's default columns (a subset: the ones Herd has values for). */
static const struct col user_cols[] = { { "User", 10 }, { "Def Acct", 10 }, { "Admin", 9 } };
static const struct col user_assoc_cols[] = {
    { "User", 10 }, { "Def Acct", 10 }, { "Admin", 9 }, { "Cluster", 10 },
    { "Account", 10 }, { "Partition", 10 }, { "Share", 9 }, { "QOS", 20 }, { "Def QOS", 9 },
};
static const struct col account_cols[] = { { "Account", 10 }, { "Descr", 20 }, { "Org", 20 } };
static const struct col assoc_cols[] = {
    { "Cluster", 10 }, { "Account", 10 }, { "User", 10 }, { "Partition", 10 },
    { "Share", 9 }, { "QOS", 20 }, { "Def QOS", 9 },
};

struct mgr {
    enum entity what;
    bool noheader, with_assoc;
    int parsable;          /* 0, 1 (-p), 2 (-P) */
    struct col *cols;
    size_t ncols;
    char **names;          /* the users or accounts asked for; none: all */
    size_t nnames;
    const char *cluster;
    const json_t *assocs;
};

/* One value of one row: a row is an association (user NULL: an account). */
static char *value(const struct mgr *m, const char *col, const json_t *a)
{
    const char *acct = jget_str(a, "account", ""), *user = jget_str(a, "user", NULL);
    if (!strcasecmp(col, "User"))
        return xstrdup(user ? user : "");
    if (!strcasecmp(col, "Account"))
        return xstrdup(acct);
    if (!strcasecmp(col, "Def Acct") || !strcasecmp(col, "DefaultAccount"))
        return xstrdup(acct);
    if (!strcasecmp(col, "Admin") || !strcasecmp(col, "AdminLevel"))
        return xstrdup(user && !strcmp(user, "root") ? "Administrator" : "None");
    if (!strcasecmp(col, "Cluster"))
        return xstrdup(m->cluster);
    if (!strcasecmp(col, "Share") || !strcasecmp(col, "Fairshare"))
        return xasprintf("%lld", (long long)jget_int(a, "raw_shares", 1));
    if (!strcasecmp(col, "QOS"))
        return xstrdup("normal");
    if (!strcasecmp(col, "Descr") || !strcasecmp(col, "Description") || !strcasecmp(col, "Org") ||
        !strcasecmp(col, "Organization"))
        return xstrdup(acct);
    return xstrdup("");
}

static const char *canon(const char *name)
{
    static const char *known[] = { "User", "Account", "Def Acct", "DefaultAccount", "Admin",
                                   "AdminLevel", "Cluster", "Share", "Fairshare", "QOS",
                                   "Def QOS", "DefaultQOS", "Partition", "Descr", "Description",
                                   "Org", "Organization", "Priority", NULL };
    for (const char **k = known; *k; k++)
        if (!strcasecmp(*k, name))
            return *k;
    return NULL;
}

/* "format=account%20,user": the columns asked for, widths after '%'. */
static int parse_format(struct mgr *m, const char *spec)
{
    char *list = xstrdup(spec), *save = NULL;
    for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *pct = strchr(tok, '%');
        int width = pct ? atoi(pct + 1) : 10;
        if (pct)
            *pct = '\0';
        const char *name = canon(tok);
        if (!name) {
            fprintf(stderr, " Unknown field '%s'\n", tok);
            free(list);
            return -1;
        }
        m->cols = xrealloc(m->cols, (m->ncols + 1) * sizeof *m->cols);
        m->cols[m->ncols++] = (struct col){ name, width ? width : 10 };
    }
    free(list);
    return 0;
}

static void default_cols(struct mgr *m)
{
    const struct col *c = m->what == E_ACCOUNT ? account_cols
                        : m->what == E_ASSOC   ? assoc_cols
                        : m->with_assoc        ? user_assoc_cols : user_cols;
    size_t n = m->what == E_ACCOUNT ? sizeof account_cols / sizeof *c
             : m->what == E_ASSOC   ? sizeof assoc_cols / sizeof *c
             : m->with_assoc        ? sizeof user_assoc_cols / sizeof *c
                                    : sizeof user_cols / sizeof *c;
    m->cols = xcalloc(n, sizeof *m->cols);
    memcpy(m->cols, c, n * sizeof *c);
    m->ncols = n;
}

/* Slurm's print_fields: right-justified in the width, cut with '+'. */
static void put(const struct mgr *m, size_t i, const char *v)
{
    int w = m->cols[i].width;
    if (m->parsable) {
        fputs(v, stdout);
        if (m->parsable == 1 || i + 1 < m->ncols)
            fputc('|', stdout);
        return;
    }
    if ((int)strlen(v) > w)
        printf("%.*s+ ", w - 1, v);
    else
        printf("%*s ", w, v);
}

static void header(const struct mgr *m)
{
    if (m->noheader)
        return;
    for (size_t i = 0; i < m->ncols; i++)
        put(m, i, m->cols[i].name);
    fputc('\n', stdout);
    for (size_t i = 0; !m->parsable && i < m->ncols; i++) {
        for (int k = 0; k < m->cols[i].width; k++)
            fputc('-', stdout);
        fputc(' ', stdout);
    }
    if (!m->parsable)
        fputc('\n', stdout);
}

static bool named(const struct mgr *m, const char *name)
{
    if (!m->nnames)
        return true;
    for (size_t i = 0; i < m->nnames; i++)
        if (!strcmp(m->names[i], name))
            return true;
    return false;
}

/* Users: one row each (their first association), or one per association
 * with -s; accounts: one row each; associations: every one. */
static bool row_wanted(const struct mgr *m, const json_t *a, json_t *seen)
{
    const char *user = jget_str(a, "user", NULL), *acct = jget_str(a, "account", "");
    if (m->what == E_ASSOC)
        return named(m, user ? user : acct) || named(m, acct);
    const char *key = m->what == E_USER ? user : acct;
    if (!key || (m->what == E_ACCOUNT && user) || !named(m, key))
        return false;
    if (m->what == E_USER && m->with_assoc)
        return true;
    if (json_object_get(seen, key))
        return false;
    json_object_set_new(seen, key, json_true());
    return true;
}

static void print_rows(const struct mgr *m)
{
    json_t *seen = json_object();
    size_t i;
    json_t *a;
    header(m);
    json_array_foreach(m->assocs, i, a) {
        if (!row_wanted(m, a, seen))
            continue;
        for (size_t c = 0; c < m->ncols; c++) {
            char *v = value(m, m->cols[c].name, a);
            put(m, c, v);
            free(v);
        }
        fputc('\n', stdout);
    }
    json_decref(seen);
}

static int entity_of(const char *w, enum entity *e)
{
    if (!strncasecmp(w, "user", 4))
        *e = E_USER;
    else if (!strncasecmp(w, "account", 7))
        *e = E_ACCOUNT;
    else if (!strncasecmp(w, "assoc", 5))
        *e = E_ASSOC;
    else
        return -1;
    return 0;
}

/* The where-conditions that name users or accounts; others (cluster=) are
 * the one cluster this is. */
static bool names_key(const char *k, size_t n)
{
    static const char *keys[] = { "name", "names", "user", "users", "account", "accounts", NULL };
    for (const char **p = keys; *p; p++)
        if (strlen(*p) == n && !strncasecmp(*p, k, n))
            return true;
    return false;
}

/* "list user NAME... [withassoc] [where name=NAME] [format=...]" */
static int parse_words(struct mgr *m, int argc, char **argv)
{
    if (argc < 2 || (strcasecmp(argv[0], "list") && strcasecmp(argv[0], "show"))) {
        fprintf(stderr, "sacctmgr: only 'list' (or 'show') of users, accounts and associations "
                        "is supported; associations are kept in herd-assoc.conf\n");
        return -1;
    }
    if (entity_of(argv[1], &m->what) < 0) {
        fprintf(stderr, " Unknown option: %s\n", argv[1]);
        return -1;
    }
    for (int i = 2; i < argc; i++) {
        const char *w = argv[i], *eq = strchr(w, '=');
        if (!strcasecmp(w, "withassoc") || !strcasecmp(w, "where"))
            m->with_assoc |= !strcasecmp(w, "withassoc");
        else if (eq && !strncasecmp(w, "format", 6) && parse_format(m, eq + 1) < 0)
            return -1;
        else if (eq && names_key(w, (size_t)(eq - w))) {
            m->names = xrealloc(m->names, (m->nnames + 1) * sizeof *m->names);
            m->names[m->nnames++] = (char *)eq + 1;
        } else if (!eq) {
            m->names = xrealloc(m->names, (m->nnames + 1) * sizeof *m->names);
            m->names[m->nnames++] = (char *)w;
        }
    }
    return 0;
}

/* The first line is Slurm's; the rest says what Herd's sacctmgr does. */
static void usage(void)
{
    printf("sacctmgr [<OPTION>] [<COMMAND>]\n"
           "    <OPTION>: -n (no header), -p or -P (parsable), -s (with associations),\n"
           "              -i, -Q, -r, -v (accepted)\n"
           "    <COMMAND>: list|show user|account|association [NAMES] [format=FIELDS]\n"
           "    Associations are kept in herd-assoc.conf beside slurm.conf.\n");
}

static int parse_opts(struct mgr *m, int argc, char **argv)
{
    static const struct option opts[] = {
        { "noheader", no_argument, NULL, 'n' }, { "parsable", no_argument, NULL, 'p' },
        { "parsable2", no_argument, NULL, 'P' }, { "associations", no_argument, NULL, 's' },
        { "immediate", no_argument, NULL, 'i' }, { "quiet", no_argument, NULL, 'Q' },
        { "readonly", no_argument, NULL, 'r' }, { "help", no_argument, NULL, 'h' },
        { "usage", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
    };
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "+hnpPsiQrv", opts, NULL)) != -1) {
        switch (c) {
        case 'n': m->noheader = true; break;
        case 'p': m->parsable = 1; break;
        case 'P': m->parsable = 2; break;
        case 's': m->with_assoc = true; break;
        case 'i': case 'Q': case 'r': case 'v': break;
        case 'h': usage(); exit(0);
        default:
            fprintf(stderr, "Try \"sacctmgr --help\" for more information\n");
            return -1;
        }
    }
    return parse_words(m, argc - optind, argv + optind);
}

int cmd_sacctmgr(int argc, char **argv)
{
    struct mgr m = { 0 };
    json_t *answer = NULL;
    char err[256];
    int rc = 1;
    /* --help answers without a slurm.conf */
    if (parse_opts(&m, argc, argv) == 0) {
        m.cluster = client_conf(PROG)->cluster_name;
        if (!m.ncols)
            default_cols(&m);
        int status = client_call(PROG, "GET", PATH_SHARES, NULL, &answer, err, sizeof err);
        if (status == 200) {
            m.assocs = json_object_get(answer, "associations");
            print_rows(&m);
            rc = 0;
        } else {
            fprintf(stderr, "sacctmgr: error: %s\n",
                    status < 0 ? err : client_error_text(answer, status));
        }
    }
    json_decref(answer);
    free(m.cols);
    free(m.names);
    return rc;
}
