/*
 * sshare: the fair-share tree, as Slurm's sshare prints it under Fair Tree:
 * accounts indented by depth, each user's raw and normalized shares, its
 * decayed usage and its fair-share factor. Without -a or -u only the
 * calling user's associations are listed (with every account).
 */
#include <getopt.h>
#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/client.h"
#include "client/cmdutil.h"
#include "client/paths.h"
#include "cmd/cmds.h"
#include "common/xmalloc.h"

#define PROG "sshare"

enum col { C_ACCOUNT, C_USER, C_RAWSH, C_NORMSH, C_RAWU, C_NORMU, C_EFFU, C_FS, C_LEVELFS,
           C_GRPTRES, C_TRESRUN };

static const struct {
    const char *name;
    int width;             /* negative: left-justified */
} cols[] = {
    {"Account", -20}, {"User", 10}, {"RawShares", 10}, {"NormShares", 11}, {"RawUsage", 11},
    {"NormUsage", 11}, {"EffectvUsage", 13}, {"FairShare", 10}, {"LevelFS", 10},
    {"GrpTRESMins", -30}, {"TRESRunMins", -30},
};

static const enum col cols_default[] = { C_ACCOUNT, C_USER, C_RAWSH, C_NORMSH, C_RAWU, C_EFFU,
                                         C_FS };
static const enum col cols_long[] = { C_ACCOUNT, C_USER, C_RAWSH, C_NORMSH, C_RAWU, C_NORMU,
                                      C_EFFU, C_FS, C_LEVELFS, C_GRPTRES, C_TRESRUN };

struct sshare_opts {
    bool all, long_list, noheader, users_only;
    int parsable;          /* 1: -p (trailing '|'), 2: -P */
    struct strlist users, accounts;
};

static char *cell(const json_t *a, enum col c)
{
    bool user = json_is_string(json_object_get(a, "user"));
    bool root = jget_int(a, "depth", 0) == 0;
    const json_t *lf = json_object_get(a, "level_fs");
    switch (c) {
    case C_ACCOUNT: {
        int depth = (int)jget_int(a, "depth", 0) - (user ? 1 : 0);
        return xasprintf("%*s%s", depth > 0 ? depth : 0, "", jget_str(a, "account", ""));
    }
    case C_USER: return xstrdup(user ? jget_str(a, "user", "") : "");
    case C_RAWSH:
        return root ? xstrdup("") : xasprintf("%lld", (long long)jget_int(a, "raw_shares", 0));
    case C_NORMSH:
        return xasprintf("%f", root ? 0.0 : json_number_value(json_object_get(a, "norm_shares")));
    case C_RAWU: return xasprintf("%.0f", floor(json_number_value(json_object_get(a, "raw_usage"))));
    case C_NORMU: return xasprintf("%f", json_number_value(json_object_get(a, "norm_usage")));
    case C_EFFU: return xasprintf("%f", json_number_value(json_object_get(a, "eff_usage")));
    case C_FS:
        return user ? xasprintf("%f", json_number_value(json_object_get(a, "fairshare")))
                    : xstrdup("");
    case C_LEVELFS:
        if (root)
            return xstrdup("");
        return json_is_null(lf) ? xstrdup("inf") : xasprintf("%f", json_number_value(lf));
    case C_GRPTRES: case C_TRESRUN: return xstrdup("");
    }
    return xstrdup("");
}

static void print_line(const struct sshare_opts *o, const enum col *cs, size_t n,
                       char *(*text)(const json_t *, enum col), const json_t *a)
{
    for (size_t i = 0; i < n; i++) {
        char *s = text ? text(a, cs[i]) : xstrdup(cols[cs[i]].name);
        int w = cols[cs[i]].width;
        if (o->parsable)
            printf("%s%s", s, i + 1 < n || o->parsable == 1 ? "|" : "");
        else
            printf("%s%*.*s", i ? " " : "", w, w < 0 ? -w : w, s);
        free(s);
    }
    printf("\n");
}

static void print_rule(const enum col *cs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int w = abs(cols[cs[i]].width);
        printf("%s", i ? " " : "");
        for (int k = 0; k < w; k++)
            putchar('-');
    }
    printf("\n");
}

static bool row_wanted(const struct sshare_opts *o, const json_t *a)
{
    const char *user = jget_str(a, "user", NULL);
    if (o->accounts.n && !strlist_has(&o->accounts, jget_str(a, "account", ""), false))
        return false;
    if (!user)
        return !o->users_only;
    if (o->all)
        return true;
    if (o->users.n)
        return strlist_has(&o->users, user, false);
    struct passwd *pw = getpwuid(getuid());
    return pw && strcmp(pw->pw_name, user) == 0;
}

static void sshare_print(const struct sshare_opts *o, const json_t *answer)
{
    const enum col *cs = o->long_list ? cols_long : cols_default;
    size_t n = o->long_list ? sizeof cols_long / sizeof *cs : sizeof cols_default / sizeof *cs;
    size_t i;
    json_t *a;
    if (!o->noheader) {
        print_line(o, cs, n, NULL, NULL);
        if (!o->parsable)
            print_rule(cs, n);
    }
    json_array_foreach(json_object_get(answer, "associations"), i, a)
        if (row_wanted(o, a))
            print_line(o, cs, n, cell, a);
}

static const struct option sshare_options[] = {
    {"accounts", required_argument, NULL, 'A'}, {"all", no_argument, NULL, 'a'},
    {"help", no_argument, NULL, 'H'},           {"long", no_argument, NULL, 'l'},
    {"noheader", no_argument, NULL, 'n'},       {"parsable", no_argument, NULL, 'p'},
    {"parsable2", no_argument, NULL, 'P'},      {"users", required_argument, NULL, 'u'},
    {"Users", no_argument, NULL, 'U'},          {"usage", no_argument, NULL, 'H'},
    {"verbose", no_argument, NULL, 'v'},        {NULL, 0, NULL, 0},
};

static int sshare_parse(int argc, char **argv, struct sshare_opts *o)
{
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "A:ahlnpPu:Uv", sshare_options, NULL)) != -1) {
        switch (c) {
        case 'A': strlist_split(&o->accounts, optarg); break;
        case 'a': o->all = true; break;
        case 'l': o->long_list = true; break;
        case 'h': case 'n': o->noheader = true; break;
        case 'p': o->parsable = 1; break;
        case 'P': o->parsable = 2; break;
        case 'u':
            if (!strcmp(optarg, "all") || !strcmp(optarg, "ALL"))
                o->all = true;
            else
                strlist_split(&o->users, optarg);
            break;
        case 'U': o->users_only = true; break;
        case 'v': break;
        case 'H':
            printf("Usage: sshare [-A accounts] [-a] [-l] [-n] [-p|-P] [-u users] [-U] [-v]\n");
            exit(0);
        default: fprintf(stderr, "Try \"sshare --help\" for more information\n"); return -1;
        }
    }
    return 0;
}

int cmd_sshare(int argc, char **argv)
{
    struct sshare_opts o = { 0 };
    json_t *answer = NULL;
    char err[256];
    int rc = 1;
    if (sshare_parse(argc, argv, &o) == 0) {
        int st = client_call(PROG, "GET", PATH_SHARES, NULL, &answer, err, sizeof err);
        if (st == 200) {
            sshare_print(&o, answer);
            rc = 0;
        } else {
            cmd_error(PROG, "%s", st < 0 ? err : client_error_text(answer, st));
        }
    }
    json_decref(answer);
    strlist_clear(&o.users);
    strlist_clear(&o.accounts);
    return rc;
}
