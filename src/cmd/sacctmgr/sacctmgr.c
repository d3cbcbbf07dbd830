/*
 * sacctmgr: Slurm's account manager (sacctmgr.h). This file reads the
 * command line: options, then a verb and an entity, then words that are
 * conditions (before "set", or after "where") or settings (after "set"; on
 * add, every Key=value). Keywords are case-insensitive; names may be
 * comma-separated lists.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "client/client.h"
#include "cmd/cmds.h"
#include "cmd/sacctmgr/sacctmgr.h"
#include "common/acct_keys.h"
#include "common/xmalloc.h"

/* Is the n bytes at w full, or its prefix of at least min letters? */
static bool word_is2(const char *w, size_t n, const char *full, size_t min)
{
    return n >= min && n <= strlen(full) && !strncasecmp(w, full, n);
}

static bool word_is(const char *w, const char *full, size_t min)
{
    return word_is2(w, strlen(w), full, min);
}

static const char *verb_of(const char *w)
{
    if (word_is(w, "show", 2) || word_is(w, "list", 2))
        return "show";
    if (word_is(w, "add", 3) || word_is(w, "create", 2))
        return "add";
    if (word_is(w, "modify", 3) || word_is(w, "update", 2))
        return "modify";
    if (word_is(w, "delete", 3) || word_is(w, "remove", 3))
        return "delete";
    return NULL;
}

static int entity_of(const char *w, enum entity *e)
{
    if (word_is(w, "users", 4))
        *e = E_USER;
    else if (word_is(w, "accounts", 3))
        *e = E_ACCOUNT;
    else if (word_is(w, "associations", 5))
        *e = E_ASSOC;
    else if (word_is(w, "qos", 3))
        *e = E_QOS;
    else if (word_is(w, "coordinators", 5))
        *e = E_COORD;
    else if (word_is(w, "clusters", 2))
        *e = E_CLUSTER;
    else
        return -1;
    return 0;
}

static void add_list(json_t *to, const char *list)
{
    char *copy = xstrdup(list), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
        json_array_append_new(to, json_string(t));
    free(copy);
}

static void add_where(struct mgr *m, const char *key, const char *list)
{
    json_t *a = json_object_get(m->where, key);
    if (!a)
        json_object_set_new(m->where, key, a = json_array());
    add_list(a, list);
}

/* A condition: name=, user=, account= (the entity's own names, or a
 * filter on associations); cluster= and partition= are the one there is. */
static int condition(struct mgr *m, const char *k, size_t n, const char *v)
{
    bool user = word_is2(k, n, "users", 4), acct = word_is2(k, n, "accounts", 3);
    if (word_is2(k, n, "names", 4) || (user && (m->what == E_USER || m->what == E_COORD)) ||
        (acct && m->what == E_ACCOUNT))
        add_list(m->names, v);
    else if (user || acct)
        add_where(m, user ? "user" : "account", v);
    else if (!word_is2(k, n, "clusters", 3) && !word_is2(k, n, "partitions", 3)) {
        fprintf(stderr, " Unknown condition: %.*s\n Use keyword 'set' to modify value\n",
                (int)n, k);
        return -1;
    }
    return 0;
}

/* A setting: Key=value, Key+=value or Key-=value, checked as the
 * controller will check it. */
static int setting(struct mgr *m, const char *k, size_t n, const char *v)
{
    char op = n > 1 && (k[n - 1] == '+' || k[n - 1] == '-') ? k[n - 1] : '=';
    size_t kn = op == '=' ? n : n - 1;
    unsigned ent = m->what == E_USER ? AK_USER : m->what == E_ACCOUNT ? AK_ACCOUNT : AK_QOS;
    if (word_is2(k, kn, "names", 4))
        add_list(m->names, v);
    if (word_is2(k, kn, "names", 4) || word_is2(k, kn, "clusters", 3))
        return 0;
    const struct acct_key *key = acct_key_find(k, kn, ent);
    if (!key) {
        fprintf(stderr, " Unknown option: %.*s=%s\n Use keyword 'where' to modify condition\n",
                (int)n, k, v);
        return -1;
    }
    char err[256];
    json_t *val = acct_value_parse(key, v, err, sizeof err);
    if (!val && key->kind == AK_WALL)
        fprintf(stderr, " Bad %s time format: %.*s=%s\n", key->name, (int)n, k, v);
    else if (!val)
        fprintf(stderr, " %s\n", err);
    if (!val)
        return -1;
    json_decref(val);
    char opstr[2] = { op, 0 };
    json_array_append_new(m->set, json_pack("[s, s, s]", key->name, opstr, v));
    return 0;
}

static int parse_words(struct mgr *m, const char *verb, int argc, char **argv)
{
    bool set = !strcmp(verb, "add") && m->what != E_COORD;   /* coordinator: all conditions */
    for (int i = 0; i < argc; i++) {
        const char *w = argv[i], *eq = strchr(w, '=');
        if (!strcasecmp(w, "where") || !strcasecmp(w, "set")) {
            set = !strcasecmp(w, "set");
        } else if (!strcasecmp(w, "withassoc") || !strcasecmp(w, "withcoord") ||
                   !strcasecmp(w, "tree") || !strcasecmp(w, "withdeleted")) {
            m->with_assoc |= !strcasecmp(w, "withassoc");
            m->with_coord |= !strcasecmp(w, "withcoord");
        } else if (!eq) {
            add_list(m->names, w);
        } else if (word_is2(w, (size_t)(eq - w), "format", 6)) {
            free(m->format);
            m->format = xstrdup(eq + 1);
        } else if ((set ? setting : condition)(m, w, (size_t)(eq - w), eq + 1) < 0) {
            return -1;
        }
    }
    return 0;
}

/* The first line is Slurm's; the rest says what Herd's sacctmgr does. */
static void usage(void)
{
    printf("sacctmgr [<OPTION>] [<COMMAND>]\n"
           "    <OPTION>: -i (immediate), -n (no header), -p or -P (parsable),\n"
           "              -s (with associations), -Q, -r, -v (accepted)\n"
           "    <COMMAND>: add|modify|delete account|user|qos|coordinator ...,\n"
           "               show|list account|user|association|qos|cluster [where ...]\n"
           "               [format=FIELDS] (docs/accounts.md)\n");
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
    while ((c = getopt_long(argc, argv, "hnpPsiQrv", opts, NULL)) != -1) {
        switch (c) {
        case 'n': m->noheader = true; break;
        case 'p': m->parsable = 1; break;
        case 'P': m->parsable = 2; break;
        case 's': m->with_assoc = true; break;
        case 'i': m->immediate = true; break;
        case 'Q': case 'r': case 'v': break;
        case 'h': usage(); exit(0);
        default:
            fprintf(stderr, "Try \"sacctmgr --help\" for more information\n");
            return -1;
        }
    }
    return optind;
}

int cmd_sacctmgr(int argc, char **argv)
{
    struct mgr m = { .names = json_array(), .where = json_object(), .set = json_array() };
    int rc = 1, first = parse_opts(&m, argc, argv);
    const char *verb = first >= 0 && first < argc ? verb_of(argv[first]) : NULL;
    if (first < 0) {
        rc = 1;
    } else if (!verb || first + 1 >= argc || entity_of(argv[first + 1], &m.what) < 0) {
        fprintf(stderr, " Unknown option: %s\n", first + 1 < argc ? argv[first + 1]
                                                  : first < argc ? argv[first] : "");
    } else if (parse_words(&m, verb, argc - first - 2, argv + first + 2) == 0) {
        rc = strcmp(verb, "show") && m.what == E_CLUSTER
               ? (fprintf(stderr, " Herd has one cluster, named by slurm.conf's ClusterName; "
                                  "its limits are the root association's\n"), 1)
           : strcmp(verb, "show") ? mgr_edit(&m, verb)
           : m.what == E_COORD ? (fprintf(stderr, " Use 'show user withcoord'\n"), 1)
                               : mgr_show(&m);
    }
    json_decref(m.names);
    json_decref(m.where);
    json_decref(m.set);
    free(m.format);
    return rc;
}
