/*
 * sinfo: partitions and the state of their nodes, as Slurm's sinfo prints
 * them.
 */
#include <getopt.h>
#include <stdlib.h>
#include <time.h>

#include "cmd/client.h"
#include "cmd/cmds.h"
#include "cmd/sinfo.h"

#define PROG "sinfo"

enum { OPT_HELP = 0x100, OPT_USAGE };

static const struct option sinfo_options[] = {
    {"all", no_argument, NULL, 'a'},
    {"format", required_argument, NULL, 'o'},
    {"help", no_argument, NULL, OPT_HELP},
    {"long", no_argument, NULL, 'l'},
    {"Node", no_argument, NULL, 'N'},
    {"noheader", no_argument, NULL, 'h'},
    {"partition", required_argument, NULL, 'p'},
    {"usage", no_argument, NULL, OPT_USAGE},
    {"verbose", no_argument, NULL, 'v'},
    {NULL, 0, NULL, 0},
};

static int sinfo_parse(int argc, char **argv, struct sinfo_opts *o)
{
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "ahlNo:p:v", sinfo_options, NULL)) != -1) {
        switch (c) {
        case 'a': case 'v': break;
        case 'h': o->noheader = true; break;
        case 'l': o->long_list = true; break;
        case 'N': o->node_mode = true; break;
        case 'o': o->format = optarg; break;
        case 'p': strlist_split(&o->parts, optarg); break;
        case OPT_HELP: case OPT_USAGE:
            printf("Usage: sinfo [-ahlNv] [-o format] [-p partition]\n");
            exit(0);
        default:
            fprintf(stderr, "Try \"sinfo --help\" for more information\n");
            return -1;
        }
    }
    if (optind < argc) {
        cmd_error(PROG, "Unrecognized option: %s", argv[optind]);
        return -1;
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

int cmd_sinfo(int argc, char **argv)
{
    struct sinfo_opts o = {.now = (int64_t)time(NULL)};
    json_t *parts = NULL, *nodes = NULL;
    int rc = 1;
    if (sinfo_parse(argc, argv, &o) == 0 &&
        (parts = sinfo_fetch("/v1/partitions", "slurm_load_partitions")) &&
        (nodes = sinfo_fetch("/v1/nodes", "slurm_load_node"))) {
        sinfo_print(stdout, parts, nodes, &o, PROG);
        rc = 0;
    }
    json_decref(parts);
    json_decref(nodes);
    strlist_clear(&o.parts);
    return rc;
}
