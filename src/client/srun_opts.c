/*
 * srun_opts: reading srun's and salloc's options. See srun_opts.h.
 */
#include "client/srun_opts.h"

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "client/client.h"
#include "client/gpu_bind.h"
#include "client/cmdutil.h"
#include "common/conf.h"
#include "common/xmalloc.h"

/* Who speaks in the errors: srun, or salloc reading the same options. */
static const char *prog_name = "srun";

enum { OPT_NTPN = 0x100, OPT_GPT, OPT_JOBID, OPT_MPI, OPT_IGNORED, OPT_PTY, OPT_OVERLAP, OPT_OPEN_MODE, OPT_HELP,
       OPT_GPU_BIND, OPT_CPG };

/* What srun takes and does not act on: binding and step resources within
 * the allocation, which every step shares (docs/srun.md). */
static const struct option srun_options[] = {
    {"ntasks", required_argument, NULL, 'n'},
    {"nodes", required_argument, NULL, 'N'},
    {"ntasks-per-node", required_argument, NULL, OPT_NTPN},
    {"cpus-per-task", required_argument, NULL, 'c'},
    {"gpus-per-task", required_argument, NULL, OPT_GPT},
    {"nodelist", required_argument, NULL, 'w'},
    {"job-name", required_argument, NULL, 'J'},
    {"chdir", required_argument, NULL, 'D'},
    {"label", no_argument, NULL, 'l'},
    {"unbuffered", no_argument, NULL, 'u'},
    {"kill-on-bad-exit", optional_argument, NULL, 'K'},
    {"jobid", required_argument, NULL, OPT_JOBID},
    {"mpi", required_argument, NULL, OPT_MPI},
    {"quiet", no_argument, NULL, 'Q'},
    {"verbose", no_argument, NULL, 'v'},
    {"exclusive", optional_argument, NULL, OPT_IGNORED},
    {"overlap", no_argument, NULL, OPT_OVERLAP},
    {"exact", no_argument, NULL, OPT_IGNORED},
    {"cpu-bind", required_argument, NULL, OPT_IGNORED},
    {"cpu_bind", required_argument, NULL, OPT_IGNORED},
    {"gpu-bind", required_argument, NULL, OPT_GPU_BIND},
    {"cpus-per-gpu", required_argument, NULL, OPT_CPG},
    {"gpus-per-socket", required_argument, NULL, OPT_IGNORED},
    {"sockets-per-node", required_argument, NULL, OPT_IGNORED},
    {"ntasks-per-gpu", required_argument, NULL, OPT_IGNORED},
    {"mem", required_argument, NULL, OPT_IGNORED},
    {"mem-per-cpu", required_argument, NULL, OPT_IGNORED},
    {"mem-per-gpu", required_argument, NULL, OPT_IGNORED},
    {"time", required_argument, NULL, 't'},
    {"gres", required_argument, NULL, OPT_IGNORED},
    {"gpus", required_argument, NULL, 'G'},
    {"gpus-per-node", required_argument, NULL, OPT_IGNORED},
    {"exclude", required_argument, NULL, 'x'},
    {"constraint", required_argument, NULL, 'C'},
    {"comment", required_argument, NULL, OPT_IGNORED},
    {"acctg-freq", required_argument, NULL, OPT_IGNORED},
    {"reservation", required_argument, NULL, OPT_IGNORED},
    {"begin", required_argument, NULL, OPT_IGNORED},
    {"hold", no_argument, NULL, 'H'},
    {"nice", optional_argument, NULL, OPT_IGNORED},
    {"dependency", required_argument, NULL, 'd'},
    {"partition", required_argument, NULL, 'p'},
    {"account", required_argument, NULL, 'A'},
    {"qos", required_argument, NULL, 'q'},
    {"export", required_argument, NULL, OPT_IGNORED},
    {"distribution", required_argument, NULL, 'm'},
    {"pty", no_argument, NULL, OPT_PTY},
    {"output", required_argument, NULL, 'o'},
    {"error", required_argument, NULL, 'e'},
    {"input", required_argument, NULL, 'i'},
    {"open-mode", required_argument, NULL, OPT_OPEN_MODE},
    {"help", no_argument, NULL, OPT_HELP},
    {"usage", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

static int count_arg(const char *opt, const char *v, int *out)
{
    char *end;
    long n = strtol(v, &end, 10);
    if (end == v || n < 1 || n > 1 << 24 || (*end && *end != '-')) {
        cmd_error(prog_name, "Invalid numeric value \"%s\" for %s.", v, opt);
        return -1;
    }
    *out = (int)n;   /* "-N 2-4": the least, which a step inside an allocation gets */
    return 0;
}

/* "N" or "N-M". */
static bool count_form(const char *v)
{
    size_t n = strspn(v, "0123456789");
    if (n == 0 || v[n] == '\0')
        return n > 0;
    const char *max = v + n + 1;
    size_t k = strspn(max, "0123456789");
    return v[n] == '-' && k > 0 && max[k] == '\0';
}

/* -N; Slurm meets a malformed count on its fatal path. */
static int nodes_arg(const char *v, int *out)
{
    if (!count_form(v)) {
        fprintf(stderr, "%s: error: \"%s\" is not a valid node count\n", prog_name, v);
        return SRUN_PARSE_FATAL;
    }
    return count_arg("--nodes", v, out);
}

/* "--gpus-per-task=2", "=a100:2", or "=a100" (one, as sbatch takes it; a
 * type no node has is refused by the controller); 0 is none, as Slurm. */
static int gpus_arg(const char *v, int *out)
{
    const char *colon = strrchr(v, ':'), *n = colon ? colon + 1 : v;
    if (!colon && *v && !strchr("0123456789", *v)) {
        *out = 1;
        return 0;
    }
    if (strcmp(n, "0") == 0) {
        *out = 0;
        return 0;
    }
    return count_arg("--gpus-per-task", n, out);
}

static int unsupported(const char *what)
{
    cmd_error(prog_name, "%s is not supported yet", what);
    return -1;
}

/* pmi2 is Slurm's PMI-1 and PMI-2 server (src/noded/pmi.h); pmix is not. */
static int mpi_arg(const char *v, struct srun_opts *o)
{
    if (strcmp(v, "list") == 0) {
        printf("MPI plugin types are...\n\tnone\n\tpmi2\n");
        exit(0);
    }
    if (strcmp(v, "none") != 0 && strcmp(v, "pmi2") != 0) {
        cmd_error(prog_name, "MPI type '%s' is not supported (none, pmi2)", v);
        return -1;
    }
    o->mpi = v;
    return 0;
}

/* --input: all (the default), none, one task's rank, or a file that every
 * task reads (a per-task %t pattern is not taken). */
static int input_arg(const char *v, struct srun_opts *o)
{
    char *end;
    long t = strtol(v, &end, 10);
    if (strcmp(v, "all") == 0 || strcmp(v, "none") == 0)
        o->input_task = v[0] == 'a' ? -1 : -2;
    else if (*v && !*end && t >= 0 && t < INT32_MAX)
        o->input_task = (int)t;
    else if (strchr(v, '%'))
        return unsupported("srun's --input with a file name pattern");
    else
        o->input = v;
    return 0;
}

/* Refused in Slurm's words; "none": every task sees all the step's GPUs. */
static int gpu_bind_arg(const char *v, struct srun_opts *o)
{
    char why[256];
    if (!gpu_bind_valid(v, why, sizeof why)) {
        o->error_rc = 255;   /* Slurm exits -1 here */
        if (why[0])
            cmd_error(prog_name, "%s", why);
        cmd_error(prog_name, "Invalid --gpu-bind argument: gpu:%s", v);
        return -1;
    }
    o->gpu_bind = v;
    o->gpu_bind_none = strncasecmp(v, "none", 4) == 0;
    return 0;
}

static int srun_opt(int c, struct srun_opts *o)
{
    switch (c) {
    case 'n': return count_arg("--ntasks", optarg, &o->ntasks);
    case 'N': return nodes_arg(optarg, &o->nodes);
    case OPT_NTPN: return count_arg("--ntasks-per-node", optarg, &o->ntasks_per_node);
    case 'c': return count_arg("--cpus-per-task", optarg, &o->cpus_per_task);
    case OPT_GPT: return gpus_arg(optarg, &o->gpus_per_task);
    case OPT_GPU_BIND: return gpu_bind_arg(optarg, o);
    case OPT_CPG: return count_arg("--cpus-per-gpu", optarg, &o->cpus_per_gpu);
    case 'w': o->nodelist = optarg; return 0;
    case 'J': o->name = optarg; return 0;
    case 'D': o->chdir = optarg; return 0;
    case 'l': o->label = true; return 0;
    case 'u': o->unbuffered = true; return 0;
    case OPT_OVERLAP: o->overlap = true; return 0;
    case 'K': o->kill_on_bad_exit = !optarg || strcmp(optarg, "0") != 0; return 0;
    case OPT_JOBID: o->jobid = optarg; return 0;
    case 'Q': o->quiet = true; return 0;
    case OPT_MPI: return mpi_arg(optarg, o);
    case 'i': return input_arg(optarg, o);
    case 'o': o->output = optarg; return 0;
    case 'e': o->error = optarg; return 0;
    case OPT_OPEN_MODE:
        if (strcmp(optarg, "append") && strcmp(optarg, "truncate")) {
            cmd_error(prog_name, "Invalid --open-mode argument: %s. Ignored", optarg);
            return 0;
        }
        o->append = optarg[0] == 'a';
        return 0;
    case OPT_PTY:   /* as Slurm: task 0 on a terminal, unbuffered, the only one reading */
        o->pty = o->unbuffered = true;
        o->input_task = 0;
        return 0;
    case 'v': case 't': case 'p': case 'A': case 'q': case 'm': case 'G': case 'x':
    case 'C': case 'H': case 'd': case OPT_IGNORED:
        return 0;
    case OPT_HELP:
        printf("Usage: srun [-n ntasks] [-N nodes] [-c ncpus] [-l] [-K] [-w hosts] "
               "[--gpus-per-task=n] executable [args...]\n");
        exit(0);
    default:
        fprintf(stderr, "Try \"srun --help\" for more information\n");
        return -1;
    }
}

/* The options that shape an allocation, which sbatch's parser reads. */
static const char *const alloc_names[] = {
    "ntasks", "nodes", "ntasks-per-node", "cpus-per-task", "nodelist", "job-name", "time",
    "partition", "account", "qos", "exclude", "constraint", "mem", "mem-per-cpu",
    "mem-per-gpu", "gres", "gpus", "gpus-per-node", "gpus-per-task", "cpus-per-gpu",
    "gpus-per-socket", "sockets-per-node", "ntasks-per-gpu", "gpu-bind", "exclusive", "comment", "begin", "hold",
    "nice", "dependency", "reservation", "acctg-freq", NULL,
};

static const char *long_name(int c, int li)
{
    if (li >= 0)
        return srun_options[li].name;
    for (const struct option *p = srun_options; p->name; p++)
        if (p->val == c)
            return p->name;
    return NULL;
}

static void keep_for_alloc(struct srun_opts *o, int c, int li)
{
    const char *name = long_name(c, li);
    for (const char *const *a = alloc_names; name && *a; a++)
        if (strcmp(name, *a) == 0) {
            o->alloc_argv = xrealloc(o->alloc_argv, (size_t)(o->alloc_argc + 2) * sizeof(char *));
            o->alloc_argv[o->alloc_argc++] = optarg ? xasprintf("--%s=%s", name, optarg)
                                                    : xasprintf("--%s", name);
            o->alloc_argv[o->alloc_argc] = NULL;
            return;
        }
}

/* Inside a job (srun only), a step takes the job's --gpu-bind and
 * --gpus-per-task unless given its own, as Slurm's srun reads them. */
static void inherit_job_gpus(const char *prog, struct srun_opts *o)
{
    const char *job = o->jobid ? o->jobid : getenv("SLURM_JOB_ID");
    const char *bind = getenv("SLURM_GPU_BIND"), *gpt = getenv("SLURM_GPUS_PER_TASK");
    char why[256];
    if (strcmp(prog, "srun") != 0 || !job || !*job)
        return;
    if (!o->gpu_bind && bind && *bind && gpu_bind_valid(bind, why, sizeof why)) {
        o->gpu_bind = bind;
        o->gpu_bind_none = strncasecmp(bind, "none", 4) == 0;
    }
    if (!o->gpus_per_task && gpt && *gpt && !o->gpu_bind_none)
        gpus_arg(gpt, &o->gpus_per_task);
}

int srun_parse(const char *prog, int argc, char **argv, struct srun_opts *o)
{
    int c, li = -1;
    optind = 1;
    prog_name = prog;
    o->alloc_argv = xcalloc(2, sizeof(char *));
    o->alloc_argv[o->alloc_argc++] = xstrdup(prog);
    o->mpi = "none";
    o->input_task = -1;
    const char *mpi = getenv("SLURM_MPI_TYPE");
    if (!mpi)
        mpi = client_conf(prog)->mpi_default;
    if (mpi && mpi_arg(mpi, o) < 0)
        return -1;
    while ((c = getopt_long(argc, argv, "+n:N:c:w:J:D:luK::Qvt:p:A:q:m:o:e:i:G:x:C:Hd:",
                            srun_options, &li)) != -1) {
        /* getopt has said what is wrong, as Slurm's does; the hint names us */
        if (c == '?' || c == ':') {
            fprintf(stderr, "Try \"%s --help\" for more information\n", prog);
            return SRUN_PARSE_FATAL;
        }
        int rc = srun_opt(c, o);
        if (rc < 0)
            return rc;
        keep_for_alloc(o, c, li);
        li = -1;
    }
    o->argv = argv + optind;
    inherit_job_gpus(prog, o);
    return 0;
}

void srun_opts_free(struct srun_opts *o)
{
    for (int i = 0; i < o->alloc_argc; i++)
        free(o->alloc_argv[i]);
    free(o->alloc_argv);
}

