/* herd conf-fetch [--conf-server HOST[:PORT]] [--conf-cache DIR]: a login
 * host's configuration from the controller (configless, as Slurm's sackd
 * keeps it): fetched once into /run/herd/conf, where the commands look when
 * /etc/herd/slurm.conf is absent. Run it at boot and from a timer. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmds.h"
#include "common/confless.h"

int cmd_herd_conf_fetch(int argc, char **argv)
{
    static const struct option opts[] = {
        { "conf-server", required_argument, NULL, 's' },
        { "conf-cache", required_argument, NULL, 'c' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *server = NULL, *cache = CONFLESS_CACHE;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "s:c:h", opts, NULL)) != -1) {
        if (c == 's')
            server = optarg;
        else if (c == 'c')
            cache = optarg;
        else {
            fprintf(c == 'h' ? stdout : stderr, "Usage: herd conf-fetch [--conf-server "
                    "HOST[:PORT]] [--conf-cache DIR]\n");
            return c == 'h' ? 0 : 1;
        }
    }
    char host[256], err[512], hash[64];
    int port;
    if (server ? confless_server_parse(server, host, sizeof host, &port) < 0
               : confless_srv_lookup(host, sizeof host, &port, err, sizeof err) < 0) {
        fprintf(stderr, "herd conf-fetch: %s\n",
                server ? "--conf-server wants HOST or HOST:PORT" : err);
        return 1;
    }
    if (confless_fetch(host, port, NULL, cache, hash, sizeof hash, err, sizeof err) < 0) {
        fprintf(stderr, "herd conf-fetch: %s\n", err);
        return 1;
    }
    printf("herd conf-fetch: %s/slurm.conf from %s:%d (hash %s)\n", cache, host, port, hash);
    return 0;
}
