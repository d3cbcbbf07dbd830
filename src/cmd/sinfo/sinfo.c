/*
 * sinfo: partitions and the state of their nodes, as Slurm's sinfo prints
 * them.
 */
#include <getopt.h>
#include <stdlib.h>
#include <time.h>

#include "client/client.h"
#include "client/paths.h"
#include "client/resv.h"
#include "cmd/cmds.h"
#include "cmd/sinfo/sinfo.h"
#include "common/hostlist.h"
#include "client/clock.h"

#define PROG "sinfo"

enum { OPT_HELP = 0x100, OPT_USAGE, OPT_JSON };

static const struct option sinfo_options[] = {
    {"all", no_argument, NULL, 'a'},
    {"exact", no_argument, NULL, 'e'},
    {"format", required_argument, NULL, 'o'},
    {"Format", required_argument, NULL, 'O'},
    {"help", no_argument, NULL, OPT_HELP},
    {"json", no_argument, NULL, OPT_JSON},
    {"list-reasons", no_argument, NULL, 'R'},
    {"long", no_argument, NULL, 'l'},
    {"Node", no_argument, NULL, 'N'},
    {"nodes", required_argument, NULL, 'n'},
    {"noheader", no_argument, NULL, 'h'},
    {"partition", required_argument, NULL, 'p'},
    {"reservation", no_argument, NULL, 'T'},
    {"states", required_argument, NULL, 't'},
    {"summarize", no_argument, NULL, 's'},
    {"usage", no_argument, NULL, OPT_USAGE},
    {"verbose", no_argument, NULL, 'v'},
    {NULL, 0, NULL, 0},
};

static void sinfo_usage(void)
{
    printf("Usage: sinfo [-aehlNRsTv] [-t states] [-p partition] [-n nodes]\n"
           "             [-o format] [-O Format] [--json]\n");
}

static int sinfo_set_nodes(struct sinfo_opts *o, const char *expr)
{
    hostlist_destroy(o->nodes);
    if (!(o->nodes = hostlist_create(expr))) {
        cmd_error(PROG, "'%s' invalid entry for --nodes", expr);
        return -1;
    }
    return 0;
}

/* -e is accepted: rows already split on every value the format shows. */
static int sinfo_option(struct sinfo_opts *o, int c)
{
    switch (c) {
    case 'a': case 'e': case 'v': return 0;
    case 'h': o->noheader = true; return 0;
    case 'l': o->long_list = true; return 0;
    case 'N': o->node_mode = true; return 0;
    case 'R': o->list_reasons = true; return 0;
    case 's': o->summarize = true; return 0;
    case 'T': o->reservations = true; return 0;
    case 'o': o->format = optarg; o->long_format = NULL; return 0;
    case 'O': o->long_format = optarg; o->format = NULL; return 0;
    case 'p': strlist_split(&o->parts, optarg); return 0;
    case 'n': return sinfo_set_nodes(o, optarg);
    case 't': o->states_given = true; return sinfo_parse_states(o, optarg, PROG);
    case OPT_JSON: o->json = true; return 0;
    case OPT_HELP: case OPT_USAGE: sinfo_usage(); exit(0);
    default:
        fprintf(stderr, "Try \"sinfo --help\" for more information\n");
        return -1;
    }
}

static int sinfo_parse(int argc, char **argv, struct sinfo_opts *o)
{
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "aehlNn:o:O:p:Rst:Tv", sinfo_options, NULL)) != -1)
        if (sinfo_option(o, c) < 0)
            return -1;
    if (optind < argc) {
        cmd_error(PROG, "Unrecognized option: %s", argv[optind]);
        return -1;
    }
    /* Slurm's default from the environment; -o, -O, -s, -N and -R win */
    const char *env = getenv("SINFO_FORMAT");
    if (env && *env && !o->format && !o->long_format && !o->summarize && !o->node_mode &&
        !o->list_reasons)
        o->format = env;
    if (o->list_reasons && !o->states_given && sinfo_parse_states(o, SINFO_REASON_STATES,
                                                                  PROG) < 0)
        return -1;
    /* a -O naming an unknown field fails before the controller is asked */
    if (o->long_format && !o->json) {
        struct fmt *f = sinfo_format(o, PROG);
        if (!f)
            return -1;
        fmt_destroy(f);
    }
    return 0;
}

static json_t *sinfo_fetch(const char *path, const char *what)
{
    char err[256];
    json_t *answer;
    int status = client_call(PROG, "GET", path, NULL, &answer, err, sizeof err);
    if (status == 200)
        return answer;
    fprintf(stderr, "%s: %s\n", what, status < 0 ? err : client_error_text(answer, status));
    json_decref(answer);
    return NULL;
}

/* -T: as Slurm, --json still prints the nodes */
static int sinfo_resv(const struct sinfo_opts *o)
{
    json_t *owner;
    const json_t *list = resv_fetch(PROG, "slurm_load_reservations", 0, &owner);
    if (list)
        sinfo_print_resv(stdout, list, o);
    json_decref(owner);
    return list ? 0 : 1;
}

int cmd_sinfo(int argc, char **argv)
{
    struct sinfo_opts o = {.now = client_now()};
    json_t *parts = NULL, *nodes = NULL;
    int rc = 1;
    int parsed = sinfo_parse(argc, argv, &o);
    if (parsed == 0 && o.reservations && !o.json)
        rc = sinfo_resv(&o);
    else if (parsed == 0 &&
        (parts = sinfo_fetch(PATH_PARTITIONS, "slurm_load_partitions")) &&
        (nodes = sinfo_fetch(PATH_NODES, "slurm_load_node"))) {
        if (o.json)
            sinfo_print_json(stdout, parts, nodes, &o);
        rc = o.json ? 0 : sinfo_print(stdout, parts, nodes, &o, PROG) < 0;
    }
    json_decref(parts);
    json_decref(nodes);
    strlist_clear(&o.parts);
    hostlist_destroy(o.nodes);
    free(o.states);
    return rc;
}
