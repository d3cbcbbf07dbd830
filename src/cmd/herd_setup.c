/*
 * herd setup controller|node|login: one host made ready for its role in a
 * cluster (issue 23): the MUNGE key, the controller's slurm.conf or a
 * node's /etc/default/herdd, a login host's fetched configuration, and
 * then the exact commands for this host and the others. This file reads
 * the options and picks the role; setup_*.c do the work.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmds.h"
#include "cmd/setup.h"
#include "common/confless.h"
#include "common/xmalloc.h"

static const char usage_text[] =
    "Usage: herd setup controller [--cluster NAME] [--port N] [--user NAME] [--node LINE]...\n"
    "       herd setup node --conf-server HOST[:PORT] [-N NAME]\n"
    "       herd setup login --conf-server HOST[:PORT]\n"
    "       (each also takes [--root DIR] [--munge-key FILE] [--force])\n"
    "\n"
    "Makes this host ready for its role in a Herd cluster, then prints what to\n"
    "run here and what to copy to the other hosts. Run it as root.\n"
    "\n"
    "  controller  makes the MUNGE key /etc/munge/munge.key (1024 random bytes,\n"
    "              owner munge, mode 0400) unless there is one; writes\n"
    "              /etc/herd/slurm.conf for a configless cluster (the nodes and\n"
    "              login hosts fetch it) with one partition over all nodes; makes\n"
    "              /var/spool/herd/ctld and /var/log/herd for SlurmUser. Without\n"
    "              --node the one node is this host, as `herdd -C` describes it\n"
    "              (CPUs, memory, GPUs through NVML).\n"
    "  node        checks the MUNGE key copied from the controller; writes\n"
    "              /etc/default/herdd (HERDD_OPTIONS=\"--conf-server HOST:PORT\") for\n"
    "              herdd.service; prints this host's NodeName line, for the\n"
    "              controller's slurm.conf.\n"
    "  login       checks the MUNGE key copied from the controller; fetches the\n"
    "              configuration into /run/herd/conf, where the commands read it.\n"
    "\n"
    "  --cluster NAME     ClusterName (default herd)\n"
    "  --port N           SlurmctldPort (default 6817); SlurmdPort is 6818\n"
    "  --user NAME        SlurmUser, whom herdctld runs as (default herd where that\n"
    "                     user exists, else root)\n"
    "  --node LINE        a node's line, \"NodeName=NAME CPUs=... RealMemory=...\";\n"
    "                     once per line\n"
    "  --conf-server HOST[:PORT]  the controller (port 6817 when not given)\n"
    "  -N, --name NAME    this node's name (default: the short host name)\n"
    "  --root DIR         read and write every /etc, /var and /run path under DIR\n"
    "  --munge-key FILE   the MUNGE key (default /etc/munge/munge.key under --root)\n"
    "  --force            replace an existing slurm.conf or /etc/default/herdd\n"
    "  -h, --help         this text\n"
    "\n"
    "A MUNGE key that is there is never replaced; a wrong owner or mode is put\n"
    "right, and said. Without --force an existing file stays as it is.\n"
    "Exit status: 0 done; 1 an error (said on stderr), or no MUNGE key on a node\n"
    "or login host (the commands that copy it are printed).\n";

/* The options that belong to one role: given to another, a usage error. */
enum { O_CLUSTER = 1, O_PORT = 2, O_USER = 4, O_NODE = 8, O_SERVER = 16, O_NAME = 32 };
static const char *const opt_names[] = { "--cluster", "--port", "--user", "--node",
                                         "--conf-server", "--name" };

static const struct setup_role {
    const char *name;
    int (*fn)(const struct setup_opts *o);
    unsigned opts;
} setup_roles[] = {
    { "controller", setup_controller, O_CLUSTER | O_PORT | O_USER | O_NODE },
    { "node", setup_node, O_SERVER | O_NAME },
    { "login", setup_login, O_SERVER },
};

static int usage_error(const char *what)
{
    if (what)
        fprintf(stderr, "herd setup: %s\n", what);
    fprintf(stderr, "Usage: herd setup controller|node|login [OPTIONS] (herd setup --help)\n");
    return 1;
}

/* One option into o; its O_* bit, 0 for the common ones, -1 on an error. */
static int take_opt(int c, struct setup_opts *o)
{
    char *end;
    switch (c) {
    case 'c': o->cluster = optarg; return O_CLUSTER;
    case 'u': o->user = optarg; return O_USER;
    case 's': o->conf_server = optarg; return O_SERVER;
    case 'N': o->name = optarg; return O_NAME;
    case 'r': o->root = optarg; return 0;
    case 'k': o->munge_key = optarg; return 0;
    case 'f': o->force = true; return 0;
    case 'n':
        o->nodes = xrealloc(o->nodes, (o->nnodes + 1) * sizeof *o->nodes);
        o->nodes[o->nnodes++] = optarg;
        return O_NODE;
    case 'p':
        o->port = (int)strtol(optarg, &end, 10);
        if (*end || o->port < 1 || o->port > 65535) {
            usage_error("--port wants a port number, 1 to 65535");
            return -1;
        }
        return O_PORT;
    default:
        usage_error(NULL);
        return -1;
    }
}

static const struct setup_role *role_find(const char *name)
{
    for (size_t i = 0; i < sizeof setup_roles / sizeof *setup_roles; i++)
        if (!strcmp(setup_roles[i].name, name))
            return &setup_roles[i];
    return NULL;
}

/* The role named after the options, and no option it does not take. */
static const struct setup_role *role_of(int argc, char **argv, unsigned given)
{
    if (optind != argc - 1) {
        usage_error(optind == argc ? "which role: controller, node or login?"
                                   : "one role, then options");
        return NULL;
    }
    const struct setup_role *r = role_find(argv[optind]);
    if (!r) {
        fprintf(stderr, "herd setup: no role '%s'\n", argv[optind]);
        usage_error(NULL);
    } else if (given & ~r->opts) {
        unsigned bit = 0;
        while (!((given & ~r->opts) & (1u << bit)))
            bit++;
        fprintf(stderr, "herd setup %s: %s is not for this role\n", r->name, opt_names[bit]);
        usage_error(NULL);
        r = NULL;
    }
    return r;
}

int cmd_herd_setup(int argc, char **argv)
{
    static const struct option opts[] = {
        { "cluster", required_argument, NULL, 'c' },
        { "port", required_argument, NULL, 'p' },
        { "user", required_argument, NULL, 'u' },
        { "node", required_argument, NULL, 'n' },
        { "conf-server", required_argument, NULL, 's' },
        { "name", required_argument, NULL, 'N' },
        { "root", required_argument, NULL, 'r' },
        { "munge-key", required_argument, NULL, 'k' },
        { "force", no_argument, NULL, 'f' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    struct setup_opts o = { .root = "", .cluster = "herd", .port = CONFLESS_PORT };
    unsigned given = 0;
    int c, rc = -1;
    optind = 1;
    while (rc == -1 && (c = getopt_long(argc, argv, "N:h", opts, NULL)) != -1) {
        if (c == 'h') {
            fputs(usage_text, stdout);
            rc = 0;
            break;
        }
        int bit = take_opt(c, &o);
        if (bit < 0)
            rc = 1;
        else
            given |= (unsigned)bit;
    }
    const struct setup_role *r = rc == -1 ? role_of(argc, argv, given) : NULL;
    if (rc == -1)
        rc = r ? r->fn(&o) : 1;
    free(o.nodes);
    return rc;
}
