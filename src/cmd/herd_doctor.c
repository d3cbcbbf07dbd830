/* herd doctor [--conf-server HOST[:PORT]] [--munge-key FILE] [-N NODE]
 * [--role controller|node|login]: checks this host (doctor.h). The
 * configuration is the host's own (as the commands find it) or, on a
 * configless host, fetched from the controller for this run. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmds.h"
#include "cmd/doctor.h"
#include "cmd/setup.h"
#include "common/conf.h"
#include "common/confless.h"

static const char usage[] =
    "Usage: herd doctor [--conf-server HOST[:PORT]] [--munge-key FILE] [-N NODE]\n"
    "                   [--role controller|node|login]\n"
    "Checks this host and says in plain words what is wrong, one line a check\n"
    "(ok, warn or FAIL); exits 1 when a check fails.\n"
    "  --conf-server  the controller to check against (default: SlurmctldHost of\n"
    "                 slurm.conf, else the DNS SRV record _slurmctld._tcp)\n"
    "  --munge-key    the MUNGE key file (default /etc/munge/munge.key)\n"
    "  -N, --node     the node this host is (default: the node named as the host)\n"
    "  --role         what this host is (default: found from slurm.conf)\n"
    "Checks: the MUNGE key and munged; the controller reachable, decoding this\n"
    "host's credentials (same key), clock skew, slurm.conf and gres.conf/cgroup.conf\n"
    "the same as the controller's; a controller's StateSaveLocation and port; a\n"
    "node's cgroup controllers, NVML for its GPUs, port and SlurmdSpoolDir.\n"
    "MUNGE's socket is $HERD_MUNGE_SOCKET, else AuthInfo=socket= of slurm.conf.\n";

static const char *const verdicts[] = { "ok", "warn", "FAIL" };

void doctor_say(struct doctor *d, enum doctor_verdict v, const char *check, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%-5s %-13s ", verdicts[v], check);
    vprintf(fmt, ap);
    putchar('\n');
    va_end(ap);
    d->failures += v == DOC_FAIL;
    d->warnings += v == DOC_WARN;
}

static int parse_role(const char *s, enum doctor_role *role)
{
    static const char *const names[] = { "login", "controller", "node" };
    for (int i = 0; i < 3; i++)
        if (!strcmp(s, names[i])) {
            *role = (enum doctor_role)i;
            return 0;
        }
    return -1;
}

/* The controller: --conf-server, else slurm.conf's, else DNS. */
static void find_controller(struct doctor *d, const char *server)
{
    char err[256];
    if (server) {
        if (confless_server_parse(server, d->ctld_host, sizeof d->ctld_host, &d->ctld_port) < 0)
            doctor_say(d, DOC_FAIL, "controller", "--conf-server %s: want HOST or HOST:PORT",
                       server);
    } else if (d->conf) {
        snprintf(d->ctld_host, sizeof d->ctld_host, "%s",
                 d->conf->ctld_addr ? d->conf->ctld_addr : d->conf->ctld_host);
        d->ctld_port = d->conf->ctld_port;
    } else if (confless_srv_lookup(d->ctld_host, sizeof d->ctld_host, &d->ctld_port, err,
                                   sizeof err) < 0) {
        d->ctld_host[0] = '\0';
        doctor_say(d, DOC_FAIL, "controller", "not known: no slurm.conf here, no "
                   "--conf-server, and %s", err);
    }
}

static bool names_this_host(const char *name, const char *host)
{
    return name && (!strcmp(name, host) ||
                    (!strncmp(name, host, strlen(host)) && name[strlen(host)] == '.'));
}

/* The role and node, from what slurm.conf says of this host's name. */
static void find_role(struct doctor *d, bool role_given)
{
    char host[256];
    setup_short_host(host, sizeof host);
    if (!d->node[0] && d->conf)
        for (size_t i = 0; i < d->conf->nnodes; i++)
            if (!strcmp(d->conf->nodes[i].name, host) ||
                names_this_host(d->conf->nodes[i].addr, host))
                snprintf(d->node, sizeof d->node, "%s", d->conf->nodes[i].name);
    if (role_given) {
        if (d->role == ROLE_NODE && !d->node[0])
            snprintf(d->node, sizeof d->node, "%s", host);
        return;
    }
    if (d->conf && names_this_host(d->conf->ctld_host, host))
        d->role = ROLE_CONTROLLER;
    else
        d->role = d->node[0] ? ROLE_NODE : ROLE_LOGIN;
}

static void load_conf(struct doctor *d)
{
    char err[512];
    d->conf_path = conf_default_path();
    if (access(d->conf_path, F_OK) != 0) {
        d->conf_path = NULL;
        return;
    }
    d->conf = conf_load(d->conf_path, err, sizeof err);
    if (!d->conf)
        doctor_say(d, DOC_FAIL, "slurm.conf", "%s", err);
}

static void run_checks(struct doctor *d, const char *server, bool role_given)
{
    load_conf(d);
    if (!d->munge_socket && d->conf)
        d->munge_socket = d->conf->munge_socket;   /* AuthInfo=socket=... */
    find_controller(d, server);
    doctor_munge(d);
    doctor_controller(d);     /* may fetch the configuration of a configless host */
    find_role(d, role_given);
    if (d->role == ROLE_CONTROLLER)
        doctor_ctld_host(d);
    if (d->role == ROLE_NODE) {
        doctor_node_host(d);
        doctor_cgroups(d);
        doctor_nvml(d);
    }
}

int cmd_herd_doctor(int argc, char **argv)
{
    static const struct option opts[] = {
        { "conf-server", required_argument, NULL, 's' },
        { "munge-key", required_argument, NULL, 'k' },
        { "node", required_argument, NULL, 'N' },
        { "role", required_argument, NULL, 'r' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    struct doctor d = { .munge_key = "/etc/munge/munge.key",
                        .munge_socket = getenv("HERD_MUNGE_SOCKET") };
    const char *server = NULL;
    bool role_given = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "s:k:N:r:h", opts, NULL)) != -1) {
        if (c == 's')
            server = optarg;
        else if (c == 'k')
            d.munge_key = optarg;
        else if (c == 'N')
            snprintf(d.node, sizeof d.node, "%s", optarg);
        else if (c == 'r' && parse_role(optarg, &d.role) == 0)
            role_given = true;
        else {
            fputs(usage, c == 'h' ? stdout : stderr);
            return c == 'h' ? 0 : 1;
        }
    }
    if (d.munge_socket && !d.munge_socket[0])
        d.munge_socket = NULL;
    run_checks(&d, server, role_given);
    if (d.failures)
        printf("herd doctor: %d problem%s found\n", d.failures, d.failures == 1 ? "" : "s");
    else
        printf("herd doctor: no problem found%s\n", d.warnings ? " (see the warnings)" : "");
    doctor_forget_fetched(&d);
    conf_destroy(d.conf);
    return d.failures ? 1 : 0;
}
