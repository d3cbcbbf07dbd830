/*
 * herd: the one client binary. Called as sbatch, squeue, sinfo or scancel
 * (links to it) it is that command; called as herd it takes the command as
 * its first argument: `herd up`, `herd down`, `herd squeue ...`.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "client/version.h"
#include "cmd/cmds.h"
#include "up/up.h"

/* `herd sim` is the program herd-sim beside this one (the real file, not a
 * link to it): the simulator links the scheduling core, the commands do not.
 * argv[0] stays "sim", the name its messages give. */
static int herd_sim(int argc, char **argv)
{
    static const char name[] = "herd-sim";
    char path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path);
    char *slash = n > 0 && n < (ssize_t)sizeof path ? memrchr(path, '/', n) : NULL;
    (void)argc;
    if (!slash || (size_t)(slash + 1 - path) + sizeof name > sizeof path) {
        fprintf(stderr, "herd: cannot find herd-sim: %s\n",
                n < 0 ? strerror(errno) : "path too long");
        return 1;
    }
    memcpy(slash + 1, name, sizeof name);
    execv(path, argv);
    fprintf(stderr, "herd: cannot run %s: %s\n", path, strerror(errno));
    return 1;
}

struct herd_cmd {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *help;
};

static const struct herd_cmd herd_cmds[] = {
#define HERD_CMD(name, help) {#name, cmd_##name, help},
#include "cmd/commands.def"
#undef HERD_CMD
    {"sim", herd_sim, "replay a workload trace (herd sim [--policy P] TRACE.swf[.gz])"},
    {"up", cmd_herd_up, "start a local cluster (herd up -D DIR)"},
    {"down", cmd_herd_down, "stop a local cluster (herd down -D DIR)"},
    {"why", cmd_herd_why, "why a job waits, in words (herd why JOBID)"},
    {"conf-fetch", cmd_herd_conf_fetch, "fetch the configuration from a configless controller"},
    {"setup", cmd_herd_setup, "make this host a controller, node or login host (--help)"},
    {"doctor", cmd_herd_doctor, "check this host: MUNGE, controller, clock, config, cgroups, "
                                "NVML, ports"},
    {"web-url", cmd_herd_web_url, "a link that logs you into the dashboard (auth/jwt)"},
    {NULL, NULL, NULL},
};

static const struct herd_cmd *herd_find(const char *name)
{
    for (const struct herd_cmd *c = herd_cmds; c->name; c++)
        if (!strcmp(c->name, name))
            return c;
    return NULL;
}

static int herd_usage(FILE *out)
{
    fprintf(out, "Usage: herd COMMAND [ARGS...]\n\nCommands:\n");
    for (const struct herd_cmd *c = herd_cmds; c->name; c++)
        fprintf(out, "  %-8s %s\n", c->name, c->help);
    fprintf(out, "\nThe Slurm commands above are also links to herd.\n");
    return out == stdout ? 0 : 1;
}

/* `CMD -V` / `CMD --version` as the whole command line, as Slurm prints it. */
static bool version_asked(int argc, char **argv)
{
    return argc == 2 && (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version"));
}

static int run_cmd(const struct herd_cmd *c, int argc, char **argv)
{
    argv[0] = (char *)c->name;
    if (version_asked(argc, argv) && strcmp(c->name, "up") && strcmp(c->name, "down") &&
        strcmp(c->name, "sim")) {
        printf("slurm %s\n", SLURM_COMPAT_VERSION);
        return 0;
    }
    return c->fn(argc, argv);
}

/* argv[0] becomes the command's bare name, so that getopt's messages read
 * "squeue: unrecognized option '--foo'" as Slurm's do. */
int main(int argc, char **argv)
{
    char *self = basename(argv[0]);
    const struct herd_cmd *c = herd_find(self);
    if (c && strcmp(c->name, "up") && strcmp(c->name, "down"))
        return run_cmd(c, argc, argv);
    if (argc < 2)
        return herd_usage(stderr);
    if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
        return herd_usage(stdout);
    if (version_asked(argc, argv)) {
        printf("herd %s (speaks slurm %s)\n", HERD_VERSION, SLURM_COMPAT_VERSION);
        return 0;
    }
    if (!(c = herd_find(argv[1]))) {
        fprintf(stderr, "herd: unknown command '%s'\n", argv[1]);
        return herd_usage(stderr);
    }
    return run_cmd(c, argc - 1, argv + 1);
}
