/*
 * mgr_edit: sacctmgr add, modify and delete. The change goes to the
 * controller, which checks who asks and what, and answers what changed;
 * this prints that as Slurm 22.05's sacctmgr does. Without -i the change is
 * first sent as a dry run, shown, and committed only on "y" (n, Enter, end
 * of input or 30 seconds discard it; Slurm keeps asking at end of input).
 */
#include <ctype.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "client/client.h"
#include "client/cmdutil.h"
#include "client/paths.h"
#include "cmd/sacctmgr/sacctmgr.h"
#include "common/acct_keys.h"
#include "common/conf.h"
#include "common/xmalloc.h"

static const char *const entity_word[] = { [E_USER] = "user", [E_ACCOUNT] = "account",
                                           [E_ASSOC] = "assoc", [E_QOS] = "qos",
                                           [E_COORD] = "coordinator" };

struct out {
    const struct mgr *m;
    const char *cluster;
    const json_t *ents, *assocs;
    bool refused;          /* Slurm then leaves out the association settings */
};

static unsigned ent_mask(enum entity e)
{
    return e == E_USER ? AK_USER : e == E_ACCOUNT ? AK_ACCOUNT : AK_QOS;
}

/* The setting the request gives for key (its last), or NULL. */
static const char *given(const struct mgr *m, const char *key)
{
    const char *text = NULL;
    size_t i;
    json_t *s;
    json_array_foreach(m->set, i, s) {
        const char *w = json_string_value(json_array_get(s, 0));
        const struct acct_key *k = acct_key_find(w, strlen(w), ent_mask(m->what));
        if (k && !strcmp(k->name, key))
            text = json_string_value(json_array_get(s, 2));
    }
    return text;
}

/* A setting as the controller stores it, printed as Slurm prints it. */
static char *shown(const struct mgr *m, const struct acct_key *k)
{
    char err[128];
    json_t *v = acct_value_parse(k, given(m, k->name), err, sizeof err);
    char *s = k->kind == AK_FACTOR && json_is_real(v) ? xasprintf("%.4f", json_real_value(v))
            : k->kind == AK_GRACE ? xasprintf("%lld", (long long)json_integer_value(v))
                                  : acct_value_format(k, v);
    for (char *p = s; k->kind == AK_PMODE && *p; p++)   /* add says REQUEUE, show requeue */
        *p = (char)toupper((unsigned char)*p);
    json_decref(v);
    return s;
}

static void names(const json_t *list)
{
    size_t i;
    json_t *v;
    json_array_foreach(list, i, v)
        printf("  %s\n", json_string_value(v));
}

/* By name, as Slurm's add lists them, but for PreemptExemptTime, which it
 * lists after PreemptMode. */
static const char *sort_name(const struct acct_key *k)
{
    return strcmp(k->name, "PreemptExemptTime") ? k->name : "PreemptMode~";
}

static int key_cmp(const void *a, const void *b)
{
    return strcasecmp(sort_name(*(const struct acct_key *const *)a),
                      sort_name(*(const struct acct_key *const *)b));
}

/* The association settings given ("Fairshare", limits), Parent last. */
static void assoc_settings(const struct mgr *m, const char *fmt, bool parent)
{
    size_t i;
    json_t *s;
    json_array_foreach(m->set, i, s) {
        const char *w = json_string_value(json_array_get(s, 0));
        const struct acct_key *k = acct_key_find(w, strlen(w), ent_mask(m->what));
        if (!k || !k->assoc || !strcmp(k->name, "Parent") || !strcmp(k->name, "Account"))
            continue;
        char *v = shown(m, k);
        printf(fmt, k->name, v);
        free(v);
    }
    if (parent)
        printf("  %-14s= %s\n", "Parent", given(m, "Parent") ? given(m, "Parent") : "root");
}

static void print_add_account(const struct out *o)
{
    const char *d = given(o->m, "Description"), *org = given(o->m, "Organization");
    char *dl = xstrdup(d ? d : "Account Name"), *ol = xstrdup(org ? org : "Parent/Account Name");
    for (char *p = d ? dl : ""; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    for (char *p = org ? ol : ""; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    printf(" Adding Account(s)\n");
    names(o->ents);
    printf(" Settings\n  Description     = %s\n  Organization    = %s\n Associations\n", dl, ol);
    size_t i;
    json_t *a;
    json_array_foreach(o->assocs, i, a)
        printf("  A = %-10.10s C = %-10.10s\n", jget_str(a, "account", ""), o->cluster);
    if (!o->refused) {
        printf(" Settings\n");
        assoc_settings(o->m, "  %-14s= %s\n", true);
    }
    free(dl);
    free(ol);
}

static void print_add_user(const struct out *o)
{
    const char *d = given(o->m, "DefaultAccount"), *adm = given(o->m, "AdminLevel");
    if (json_array_size(o->ents)) {
        printf(" Adding User(s)\n");
        names(o->ents);
        if (d || adm)
            printf(" Settings =\n");
        if (d)
            printf("  Default Account = %s\n", d);
        if (adm) {
            const struct acct_key *k = acct_key_find("AdminLevel", 10, AK_USER);
            char *v = shown(o->m, k);
            printf("  Admin Level     = %s\n", v);
            free(v);
        }
    }
    printf(" Associations =\n");
    size_t i;
    json_t *a;
    json_array_foreach(o->assocs, i, a)
        printf("  U = %-9.9s A = %-10.10s C = %-10.10s\n", jget_str(a, "user", ""),
               jget_str(a, "account", ""), o->cluster);
    printf(" Non Default Settings\n");
    assoc_settings(o->m, "  %-14s= %s\n", false);
}

static void print_add_qos(const struct out *o)
{
    const struct acct_key *ks[64];
    size_t n = 0, i;
    json_t *s;
    json_array_foreach(o->m->set, i, s) {
        const char *w = json_string_value(json_array_get(s, 0));
        const struct acct_key *k = acct_key_find(w, strlen(w), AK_QOS);
        if (k && strcmp(k->name, "Description") && n < 64)
            ks[n++] = k;
    }
    qsort(ks, n, sizeof *ks, key_cmp);
    printf(" Adding QOS(s)\n");
    names(o->ents);
    const char *d = given(o->m, "Description");
    printf(" Settings\n  Description    = %s\n",
           d ? d : json_string_value(json_array_get(o->ents, 0)));
    for (i = 0; i < n; i++) {
        char *v = shown(o->m, ks[i]);
        if (!strcmp(ks[i]->name, "MaxJobsPerUser"))
            printf("  MaxJobsPerUser = %s\n", v);
        else
            printf("  %-25s= %s\n", ks[i]->name, v);
        free(v);
    }
}

static void assoc_line(const struct out *o, const json_t *a, bool deleting)
{
    const char *u = jget_str(a, "user", NULL), *acct = jget_str(a, "account", "");
    if (!u)
        printf("  C = %-10.10s A = %s of %s\n", o->cluster, acct, jget_str(a, "parent", ""));
    else if (deleting)
        printf("  C = %-10.10s A = %-10.10s U = %-9.9s\n", o->cluster, acct, u);
    else
        printf("  C = %-10.10s A = %-20.20s U = %-9.9s\n", o->cluster, acct, u);
}

/* Slurm's words for coordinators added or removed. */
static void print_coord(const struct out *o, bool add)
{
    size_t i;
    json_t *a;
    json_t *accts = json_array();
    json_array_foreach(o->assocs, i, a)
        if (!json_array_size(accts) || strcmp(jget_str(a, "account", ""),
            json_string_value(json_array_get(accts, json_array_size(accts) - 1))))
            json_array_append(accts, json_object_get(a, "account"));
    printf(add ? " Adding Coordinator User(s)\n" : " Removing Coordinators with user name\n");
    names(o->ents);
    printf(add ? " To Account(s) and all sub-accounts\n" : " From Account(s)\n");
    names(accts);
    json_decref(accts);
    if (add)
        return;
    printf(" Removed Coordinators (sub accounts not listed)...\n");
    json_array_foreach(o->assocs, i, a)
        printf("  U = %-9.9s A = %-10.10s\n", jget_str(a, "user", ""), jget_str(a, "account", ""));
}

static void print_change(const struct out *o, const char *op)
{
    bool del = !strcmp(op, "delete");
    const char *what = entity_word[o->m->what];
    if (json_array_size(o->ents)) {
        if (o->m->what == E_QOS)
            printf(del ? " Deleting QOS(s)...\n" : " Modified qos...\n");
        else
            printf(del ? " Deleting %ss...\n" : " Modified %ss...\n", what);
        names(o->ents);
    }
    if (json_array_size(o->assocs)) {
        printf(del ? " Deleting %s associations...\n" : " Modified %s associations...\n", what);
        size_t i;
        json_t *a;
        json_array_foreach(o->assocs, i, a)
            assoc_line(o, a, del);
    }
}

/* The result's text; false when nothing changed. */
static bool print_result(const struct mgr *m, const char *op, const json_t *res,
                         const char *cluster, bool refused)
{
    struct out o = { m, cluster, json_object_get(res, "entities"),
                     json_object_get(res, "assocs"), refused };
    if (!json_array_size(o.ents) && !json_array_size(o.assocs)) {
        printf(!strcmp(op, "add") ? " Nothing new added.\n"
               : !strcmp(op, "delete") ? " Nothing deleted\n" : " Nothing modified\n");
        return false;
    }
    if (m->what == E_COORD)
        print_coord(&o, !strcmp(op, "add"));
    else if (strcmp(op, "add"))
        print_change(&o, op);
    else if (m->what == E_ACCOUNT)
        print_add_account(&o);
    else if (m->what == E_USER)
        print_add_user(&o);
    else
        print_add_qos(&o);
    return true;
}

/* What a refused add would have added, for Slurm's text after the refusal. */
static json_t *as_asked(const struct mgr *m)
{
    json_t *res = json_pack("{s:O, s:[]}", "entities", m->names, "assocs");
    json_t *accts = json_array();
    const char *a = given(m, "Account");
    char *copy = xstrdup(a ? a : ""), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
        json_array_append_new(accts, json_string(t));
    size_t i, k;
    json_t *n, *acct;
    json_array_foreach(m->names, i, n) {
        if (m->what == E_ACCOUNT)
            json_array_append_new(json_object_get(res, "assocs"),
                                  json_pack("{s:O}", "account", n));
        json_array_foreach(m->what == E_USER ? accts : NULL, k, acct)
            json_array_append_new(json_object_get(res, "assocs"),
                                  json_pack("{s:O, s:O}", "user", n, "account", acct));
    }
    free(copy);
    json_decref(accts);
    return res;
}

static void denied(const struct mgr *m, const char *op, const char *cluster)
{
    static const char *const what[] = { [E_USER] = "users", [E_ACCOUNT] = "accounts",
                                        [E_ASSOC] = "associations", [E_QOS] = "QOS",
                                        [E_COORD] = "coordinators" };
    if (strcmp(op, "add")) {
        fprintf(stderr, "sacctmgr: error: Your user doesn't have privilege to perform this "
                        "action\n Error with request: Access/permission denied\n");
        return;
    }
    fprintf(stderr, " Problem adding %s: Access/permission denied\n", what[m->what]);
    json_t *res = as_asked(m);
    print_result(m, op, res, cluster, true);
    json_decref(res);
}

/* The controller's refusal: Slurm's own lines start with a space. */
static void server_error(json_t *res, int status)
{
    const char *t = client_error_text(res, status);
    fprintf(stderr, t[0] == ' ' ? "%s\n" : "sacctmgr: error: %s\n", t);
}

/* Sends the change; the status, *res the answer. */
static int send_edit(const struct mgr *m, const char *op, bool dry, json_t **res)
{
    json_t *body = json_pack("{s:s, s:s, s:O, s:O, s:O, s:b}", "op", op, "entity",
                             entity_word[m->what], "names", m->names, "where", m->where,
                             "set", m->set, "dry_run", dry);
    char err[256];
    int status = client_call(PROG, "POST", PATH_ACCTDB, body, res, err, sizeof err);
    json_decref(body);
    if (status < 0)
        fprintf(stderr, "sacctmgr: error: %s\n", err);
    return status;
}

/* "(N/y): " until y, n or Enter; false on n, Enter, end of input or 30 s. */
static bool confirm(void)
{
    printf("Would you like to commit changes? (You have 30 seconds to decide)\n");
    for (;;) {
        printf("(N/y): ");
        fflush(stdout);
        struct pollfd p = { STDIN_FILENO, POLLIN, 0 };
        char buf[64];
        if (poll(&p, 1, 30000) <= 0) {
            printf("\n timeout\n");
            return false;
        }
        if (!fgets(buf, sizeof buf, stdin))
            return false;
        if (buf[0] == 'y' || buf[0] == 'Y')
            return true;
        if (buf[0] == 'n' || buf[0] == 'N' || buf[0] == '\n')
            return false;
        printf("Y or N please\n");
    }
}

int mgr_edit(struct mgr *m, const char *op)
{
    if (m->what == E_ASSOC) {
        fprintf(stderr, " Associations are added and changed through users and accounts\n");
        return 1;
    }
    const char *cluster = client_conf(PROG)->cluster_name;
    json_t *res = NULL;
    int status = send_edit(m, op, !m->immediate, &res), rc = 1;
    if (status == 403)
        denied(m, op, cluster);
    else if (status != 200 && status >= 0)
        server_error(res, status);
    else if (status == 200 && print_result(m, op, res, cluster, false))
        rc = 0;
    json_decref(res);
    if (rc || m->immediate)
        return rc;
    if (!confirm()) {
        printf(" Changes Discarded\n");
        return 0;
    }
    status = send_edit(m, op, false, &res);
    if (status != 200 && status >= 0)
        server_error(res, status);
    json_decref(res);
    return status == 200 ? 0 : 1;
}
