/*
 * sbatch's options: one table drives both getopt_long (command line) and the
 * #SBATCH directives, each row naming the setter that checks and stores its
 * value, so an option behaves the same wherever it is given.
 */
#include <ctype.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "client/begintime.h"
#include "client/mailtype.h"
#include "client/sbatch_opts.h"
#include "client/gpu_bind.h"
#include "common/conf.h"
#include "common/rawstr.h"
#include "common/rlimits.h"
#include "common/taskset.h"
#include "common/timefmt.h"
#include "common/xmalloc.h"
#include "client/clock.h"

struct opt_def;
typedef int (*opt_setter)(struct sbatch_opts *o, const struct opt_def *d, const char *arg,
                          char *err, size_t errlen);

struct opt_def {
    const char *name;
    int has_arg;
    int shortopt;           /* 0: long only */
    opt_setter set;
    size_t off;             /* the field the setter stores into */
    int arg;                /* a constant for the setter (flag value, memory kind) */
};

#define F(field) offsetof(struct sbatch_opts, field)
#define FIELD(o, d, type) ((type *)((char *)(o) + (d)->off))
#define LONG_BASE 0x100

static void say(char *err, size_t errlen, const char *fmt, va_list ap)
{
    int n = snprintf(err, errlen, "sbatch: error: ");

    if (n >= 0 && (size_t)n < errlen)
        vsnprintf(err + n, errlen - n, fmt, ap);
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fatal(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    say(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* An error Slurm's sbatch meets on its fatal path: it exits 255. */
static int fatal(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    say(err, errlen, fmt, ap);
    va_end(ap);
    return SBATCH_OPT_FATAL;
}

static int parse_num(const char *s, int64_t min, int64_t *out)
{
    char *end;
    long long v;

    if (s == NULL || !isdigit((unsigned char)*s))
        return -1;
    v = strtoll(s, &end, 10);
    if (*end != '\0' || v < min || v > INT32_MAX)
        return -1;
    *out = v;
    return 0;
}

static int set_str(struct sbatch_opts *o, const struct opt_def *d, const char *arg,
                   char *err, size_t errlen)
{
    char **field = FIELD(o, d, char *);

    (void)err;
    (void)errlen;
    free(*field);
    *field = xstrdup(arg);
    return 0;
}

/* An option whose argument is optional keeps d->arg's text when none. */
static int set_str_opt(struct sbatch_opts *o, const struct opt_def *d, const char *arg,
                       char *err, size_t errlen)
{
    char buf[16];

    if (arg == NULL) {
        snprintf(buf, sizeof(buf), "%d", d->arg);
        arg = buf;
    }
    return set_str(o, d, arg, err, errlen);
}

static int set_flag(struct sbatch_opts *o, const struct opt_def *d, const char *arg,
                    char *err, size_t errlen)
{
    (void)arg;
    (void)err;
    (void)errlen;
    *FIELD(o, d, int) = d->arg;
    return 0;
}

/* "yes" or "no", as Slurm's --kill-on-invalid-dep takes them. */
static int set_yes_no(struct sbatch_opts *o, const struct opt_def *d, const char *arg,
                      char *err, size_t errlen)
{
    if (strcasecmp(arg, "yes") != 0 && strcasecmp(arg, "no") != 0)
        return fatal(err, errlen, "Invalid --%s specification", d->name);
    *FIELD(o, d, int) = strcasecmp(arg, "yes") == 0;
    return 0;
}

static int set_count(struct sbatch_opts *o, const struct opt_def *d, const char *arg,
                     char *err, size_t errlen)
{
    (void)arg;
    (void)err;
    (void)errlen;
    (*FIELD(o, d, int))++;
    return 0;
}

static int set_pos_int(struct sbatch_opts *o, const struct opt_def *d, const char *arg,
                       char *err, size_t errlen)
{
    if (parse_num(arg, 1, FIELD(o, d, int64_t)) < 0)
        return fail(err, errlen, "Invalid numeric value \"%s\" for --%s.", arg, d->name);
    return 0;
}

/* -N N or N-M: the minimum, until the scheduler takes ranges. */
static int set_nodes(struct sbatch_opts *o, const struct opt_def *d, const char *arg,
                     char *err, size_t errlen)
{
    char *min = xstrdup(arg), *dash = strchr(min, '-');
    int64_t lo, hi;
    int rc = 0;

    (void)d;
    if (dash)
        *dash = '\0';
    if (parse_num(min, 0, &lo) < 0 || (dash && parse_num(dash + 1, 0, &hi) < 0))
        rc = fatal(err, errlen, "\"%s\" is not a valid node count", arg);
    else if (lo == 0)   /* Slurm's controller refuses it, after the parse */
        rc = fail(err, errlen, "Batch job submission failed: Node count specification invalid");
    else if (dash && hi < lo)
        rc = fatal(err, errlen, "Maximum node count %lld is less than minimum node count %lld",
                   (long long)hi, (long long)lo);
    else {
        o->nodes = lo;
        o->max_nodes = dash ? hi : lo;
    }
    free(min);
    return rc;
}

static int set_mem(struct sbatch_opts *o, const struct opt_def *d, const char *arg,
                   char *err, size_t errlen)
{
    uint64_t mb;

    if (sizefmt_parse_mb(arg, &mb) < 0 || mb > INT64_MAX)
        return fatal(err, errlen, "Invalid --%s specification", d->name);
    o->mem_mb[d->arg] = (int64_t)mb;
    o->mem_src[d->arg] = o->src;
    return 0;
}

static int set_time(struct sbatch_opts *o, const struct opt_def *d, const char *arg,
                    char *err, size_t errlen)
{
    int64_t min;

    (void)d;
    if (timefmt_parse_limit(arg, &min) < 0)
        return fatal(err, errlen, "Invalid --time specification");
    o->time_limit = min == 0 ? TIME_INFINITE : min;     /* Slurm: 0 is no limit */
    o->time_set = 1;
    return 0;
}

/* "[type:]count" of --gpus and --gpus-per-node; with allow_bare_type (the
 * gres form "gpu:a100") a type alone counts 1. */
static int parse_gpu_spec(const char *s, bool allow_bare_type, char **type, int64_t *count)
{
    const char *colon = strchr(s, ':');

    *type = NULL;
    if (colon == NULL) {
        if (parse_num(s, 0, count) == 0)
            return 0;
        if (!allow_bare_type || *s == '\0')
            return -1;
        *type = xstrdup(s);
        *count = 1;
        return 0;
    }
    if (colon == s || strchr(colon + 1, ':') || parse_num(colon + 1, 0, count) < 0)
        return -1;
    *type = xstrndup(s, colon - s);
    return 0;
}

static void store_gpu_type(struct sbatch_opts *o, char *type)
{
    if (type) {
        free(o->gpu_type);
        o->gpu_type = type;
    }
}

static int set_gpus(struct sbatch_opts *o, const struct opt_def *d, const char *arg,
                    char *err, size_t errlen)
{
    char *type;
    int64_t n;

    if (parse_gpu_spec(arg, false, &type, &n) < 0)
        return fail(err, errlen, "Invalid --%s specification", d->name);
    *FIELD(o, d, int64_t) = n;
    if (d->off == F(gpus_per_node))
        o->gpus_per_node_gres = 0;
    store_gpu_type(o, type);
    return 0;
}

/* One element of --gres: "gpu", "gpu:N", "gpu:type", "gpu:type:N". */
static int parse_gres_one(const char *s, char **type, int64_t *count)
{
    *type = NULL;
    *count = 1;
    if (strncmp(s, "gres/", 5) == 0)
        s += 5;
    if (strncmp(s, "gpu", 3) != 0 || (s[3] != '\0' && s[3] != ':'))
        return -1;
    if (s[3] == '\0')
        return 0;
    return parse_gpu_spec(s + 4, true, type, count);
}

/* --gres is per node. The GPUs of a comma list add up; one type only. */
static int set_gres(struct sbatch_opts *o, const struct opt_def *d, const char *arg,
                    char *err, size_t errlen)
{
    char *list = xstrdup(arg), *save = NULL, *tok, *type = NULL, *t;
    int64_t total = 0, n;
    int rc = 0;

    (void)d;
    if (strcasecmp(arg, "none") == 0) {
        free(list);
        o->gpus_per_node = SBATCH_UNSET;
        return 0;
    }
    for (tok = strtok_r(list, ",", &save); tok && rc == 0; tok = strtok_r(NULL, ",", &save)) {
        if (parse_gres_one(tok, &t, &n) < 0 || (t && type && strcmp(t, type) != 0)) {
            free(t);
            rc = -1;
            break;
        }
        if (t && !type)
            type = t;
        else
            free(t);
        total += n;
    }
    if (rc == 0 && total > INT32_MAX)
        rc = -1;
    free(list);
    if (rc < 0) {
        free(type);
        return fail(err, errlen, "Invalid generic resource (gres) specification");
    }
    o->gpus_per_node = total;
    o->gpus_per_node_gres = 1;
    store_gpu_type(o, type);
    return 0;
}

/* --gpus-per-task and --gpus-per-socket: "[type:]count", a type alone one. */
static int set_gpus_per(struct sbatch_opts *o, const struct opt_def *d, const char *arg,
                        char *err, size_t errlen)
{
    char *type;
    int64_t n;

    if (parse_gpu_spec(arg, true, &type, &n) < 0 || n > INT32_MAX)
        return fail(err, errlen, "Invalid generic resource (gres) specification");
    *FIELD(o, d, int64_t) = n;
    store_gpu_type(o, type);
    return 0;
}

static int set_gpu_bind(struct sbatch_opts *o, const struct opt_def *d, const char *arg,
                        char *err, size_t errlen)
{
    char why[256];

    (void)d;
    if (!gpu_bind_valid(arg, why, sizeof why)) {
        o->error_rc = 255;   /* Slurm exits -1 here */
        if (why[0])
            return fail(err, errlen, "%s\nsbatch: error: Invalid --gpu-bind argument: gpu:%s",
                        why, arg);
        return fail(err, errlen, "Invalid --gpu-bind argument: gpu:%s", arg);
    }
    xfree(o->gpu_bind);
    o->gpu_bind = xstrdup(arg);
    return 0;
}

static int set_open_mode(struct sbatch_opts *o, const struct opt_def *d, const char *arg,
                         char *err, size_t errlen)
{
    const char *mode = NULL;

    (void)d;
    if (arg[0] == 'a' || arg[0] == 'A')
        mode = "append";
    else if (arg[0] == 't' || arg[0] == 'T')
        mode = "truncate";
    if (mode == NULL)
        return fatal(err, errlen, "Invalid --open-mode specification");
    free(o->open_mode);
    o->open_mode = xstrdup(mode);
    return 0;
}

static int set_nice(struct sbatch_opts *o, const struct opt_def *d, const char *arg,
                    char *err, size_t errlen)
{
    char *end;
    long v;

    if (arg != NULL) {
        v = strtol(arg, &end, 10);
        if (*arg == '\0' || *end != '\0' || v < -2147483645L || v > 2147483645L)
            return fail(err, errlen, "Invalid --nice value: %s", arg);
    }
    return set_str_opt(o, d, arg, err, errlen);
}

static int set_export(struct sbatch_opts *o, const struct opt_def *d, const char *arg,
                      char *err, size_t errlen)
{
    if (*arg == '\0')
        return fail(err, errlen, "Invalid --export specification");
    return set_str(o, d, arg, err, errlen);
}

static int set_mail_type(struct sbatch_opts *o, const struct opt_def *d, const char *arg,
                         char *err, size_t errlen)
{
    if (!mailtype_valid(arg))
        return fatal(err, errlen, "Invalid --%s specification", d->name);
    return set_str(o, d, arg, err, errlen);
}

/* --begin and --deadline: Slurm's time forms, made absolute now. */
static int set_when(struct sbatch_opts *o, const struct opt_def *d, const char *arg,
                    char *err, size_t errlen)
{
    int64_t t;

    if (begintime_parse(arg, client_now(), &t) < 0)
        return fatal(err, errlen, "Invalid --%s specification", d->name);
    *FIELD(o, d, int64_t) = t;
    return 0;
}

/* --acctg-freq: JobAcctGatherFrequency's syntax ("30", "task=30,energy=60");
 * only the task period reaches the job, as the one herdd samples by. */
static int set_acctg_freq(struct sbatch_opts *o, const struct opt_def *d, const char *arg,
                          char *err, size_t errlen)
{
    char why[128] = "";
    int task = -1;

    (void)d;
    if (conf_acctg_freq_parse(arg, &task, why, sizeof why) < 0)
        return fatal(err, errlen, "Invalid --acctg-freq specification \"%s\": %s", arg, why);
    if (task >= 0)
        o->acctg_freq = task;
    return 0;
}

/* --array: its syntax is checked here, as Slurm's sbatch does. */
static int set_array(struct sbatch_opts *o, const struct opt_def *d, const char *arg,
                     char *err, size_t errlen)
{
    int throttle;
    char why[64];
    struct taskset *t = taskset_parse(arg, &throttle, why, sizeof why);

    (void)d;
    if (t == NULL)
        return fail(err, errlen, "Invalid job array specification");
    taskset_free(t);
    xfree(o->array);
    o->array = xstrdup(arg);
    return 0;
}

static const struct opt_def opt_table[] = {
    { "job-name", required_argument, 'J', set_str, F(job_name), 0 },
    { "partition", required_argument, 'p', set_str, F(partition), 0 },
    { "nodes", required_argument, 'N', set_nodes, F(nodes), 0 },
    { "ntasks", required_argument, 'n', set_pos_int, F(ntasks), 0 },
    { "cpus-per-task", required_argument, 'c', set_pos_int, F(cpus_per_task), 0 },
    { "ntasks-per-node", required_argument, 0, set_pos_int, F(ntasks_per_node), 0 },
    { "mem", required_argument, 0, set_mem, 0, SBATCH_MEM_NODE },
    { "mem-per-cpu", required_argument, 0, set_mem, 0, SBATCH_MEM_CPU },
    { "mem-per-gpu", required_argument, 0, set_mem, 0, SBATCH_MEM_GPU },
    { "gres", required_argument, 0, set_gres, 0, 0 },
    { "gpus", required_argument, 'G', set_gpus, F(gpus), 0 },
    { "gpus-per-node", required_argument, 0, set_gpus, F(gpus_per_node), 0 },
    { "gpus-per-task", required_argument, 0, set_gpus_per, F(gpus_per_task), 0 },
    { "gpus-per-socket", required_argument, 0, set_gpus_per, F(gpus_per_socket), 0 },
    { "sockets-per-node", required_argument, 0, set_pos_int, F(sockets_per_node), 0 },
    { "cpus-per-gpu", required_argument, 0, set_pos_int, F(cpus_per_gpu), 0 },
    { "ntasks-per-gpu", required_argument, 0, set_pos_int, F(ntasks_per_gpu), 0 },
    { "gpu-bind", required_argument, 0, set_gpu_bind, 0, 0 },
    { "time", required_argument, 't', set_time, 0, 0 },
    { "output", required_argument, 'o', set_str, F(out), 0 },
    { "error", required_argument, 'e', set_str, F(err), 0 },
    { "input", required_argument, 'i', set_str, F(in), 0 },
    { "chdir", required_argument, 'D', set_str, F(chdir), 0 },
    { "export", required_argument, 0, set_export, F(export_env), 0 },
    { "wrap", required_argument, 0, set_str, F(wrap), 0 },
    { "parsable", no_argument, 0, set_flag, F(parsable), 1 },
    { "hold", no_argument, 'H', set_flag, F(hold), 1 },
    { "nodelist", required_argument, 'w', set_str, F(nodelist), 0 },
    { "exclude", required_argument, 'x', set_str, F(exclude), 0 },
    { "exclusive", optional_argument, 0, set_flag, F(exclusive), 1 },
    { "requeue", no_argument, 0, set_flag, F(requeue), 1 },
    { "no-requeue", no_argument, 0, set_flag, F(requeue), 0 },
    { "account", required_argument, 'A', set_str, F(account), 0 },
    { "qos", required_argument, 'q', set_str, F(qos), 0 },
    { "comment", required_argument, 0, set_str, F(comment), 0 },
    { "constraint", required_argument, 'C', set_str, F(constraint), 0 },
    { "signal", required_argument, 0, set_str, F(signal), 0 },
    { "open-mode", required_argument, 0, set_open_mode, 0, 0 },
    { "mail-type", required_argument, 0, set_mail_type, F(mail_type), 0 },
    { "mail-user", required_argument, 0, set_str, F(mail_user), 0 },
    { "nice", optional_argument, 0, set_nice, F(nice), 100 },
    { "dependency", required_argument, 'd', set_str, F(dependency), 0 },
    { "kill-on-invalid-dep", required_argument, 0, set_yes_no, F(kill_invalid_dep), 0 },
    { "begin", required_argument, 'b', set_when, F(begin_time), 0 },
    { "deadline", required_argument, 0, set_when, F(deadline), 0 },
    { "wckey", required_argument, 0, set_str, F(wckey), 0 },
    { "reservation", required_argument, 0, set_str, F(reservation), 0 },
    { "array", required_argument, 'a', set_array, 0, 0 },
    { "acctg-freq", required_argument, 0, set_acctg_freq, 0, 0 },
    { "wait", no_argument, 'W', set_flag, F(wait), 1 },
    { "quiet", no_argument, 'Q', set_flag, F(quiet), 1 },
    { "verbose", no_argument, 'v', set_count, F(verbose), 0 },
    { "help", no_argument, 'h', set_flag, F(help), 1 },
    { "usage", no_argument, 0, set_flag, F(help), 1 },
};

#define OPT_COUNT (sizeof(opt_table) / sizeof(opt_table[0]))

void sbatch_opts_init(struct sbatch_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->src = SBATCH_SRC_CLI;
    o->nodes = o->max_nodes = o->ntasks = o->cpus_per_task = o->ntasks_per_node = SBATCH_UNSET;
    for (int i = 0; i < SBATCH_MEM_KINDS; i++)
        o->mem_mb[i] = SBATCH_UNSET;
    o->gpus = o->gpus_per_node = SBATCH_UNSET;
    o->gpus_per_task = o->cpus_per_gpu = o->ntasks_per_gpu = SBATCH_UNSET;
    o->gpus_per_socket = o->sockets_per_node = SBATCH_UNSET;
    o->time_limit = TIME_INFINITE;
    o->acctg_freq = SBATCH_UNSET;
    o->requeue = SBATCH_UNSET;
    o->kill_invalid_dep = SBATCH_UNSET;
}

void sbatch_opts_free(struct sbatch_opts *o)
{
    if (o == NULL)
        return;
    for (size_t i = 0; i < OPT_COUNT; i++) {
        const struct opt_def *d = &opt_table[i];

        if (d->set == set_str || d->set == set_export || d->set == set_nice ||
            d->set == set_mail_type)
            xfree(*FIELD(o, d, char *));
    }
    xfree(o->open_mode);
    xfree(o->gpu_type);
    xfree(o->gpu_bind);
    xfree(o->array);
}

static int opt_val(size_t i)
{
    return opt_table[i].shortopt ? opt_table[i].shortopt : (int)(LONG_BASE + i);
}

static const struct opt_def *opt_by_val(int val)
{
    for (size_t i = 0; i < OPT_COUNT; i++)
        if (opt_val(i) == val)
            return &opt_table[i];
    return NULL;
}

/* "+:" first: stop at the script, and report a missing argument as ':'. */
static void opt_build(struct option *longopts, char *shortopts)
{
    char *s = shortopts;

    *s++ = '+';
    *s++ = ':';
    for (size_t i = 0; i < OPT_COUNT; i++) {
        const struct opt_def *d = &opt_table[i];

        longopts[i] = (struct option){ d->name, d->has_arg, NULL, opt_val(i) };
        if (d->shortopt) {
            *s++ = (char)d->shortopt;
            if (d->has_arg != no_argument)
                *s++ = ':';
            if (d->has_arg == optional_argument)
                *s++ = ':';
        }
    }
    *s = '\0';
    longopts[OPT_COUNT] = (struct option){ 0 };
}

/* getopt's complaint in glibc's words, and the hint, as Slurm's sbatch
 * prints them (no "error:"), on its fatal path. */
static int bad_word(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int bad_word(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(err, errlen, "sbatch: ");

    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < errlen)
        n += vsnprintf(err + n, errlen - n, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < errlen)
        snprintf(err + n, errlen - n, "\nTry \"sbatch --help\" for more information");
    return SBATCH_OPT_FATAL;
}

/* word: the argument being scanned. */
static int opt_bad(int c, const char *word, char *err, size_t errlen)
{
    int len = (int)strcspn(word, "=");

    if (strncmp(word, "--", 2) != 0) {
        if (c == ':')
            return bad_word(err, errlen, "option requires an argument -- '%c'", optopt);
        return bad_word(err, errlen, "invalid option -- '%c'", optopt);
    }
    if (c == ':')
        return bad_word(err, errlen, "option '%.*s' requires an argument", len, word);
    if (optopt)
        return bad_word(err, errlen, "option '%.*s' doesn't allow an argument", len, word);
    return bad_word(err, errlen, "unrecognized option '%s'", word);
}

/* One getopt_long pass over argv[1..]; *stop: index of the first non-option. */
static int opt_parse(struct sbatch_opts *o, int argc, char **argv, int *stop,
                     char *err, size_t errlen)
{
    struct option longopts[OPT_COUNT + 1];
    char shortopts[3 + 3 * OPT_COUNT];
    int c, rc = 0;

    opt_build(longopts, shortopts);
    optind = 0;             /* glibc: a full re-initialisation for a new argv */
    opterr = 0;
    for (;;) {
        int at = optind > 0 ? optind : 1;
        const struct opt_def *d;

        if (rc < 0 || (c = getopt_long(argc, argv, shortopts, longopts, NULL)) == -1)
            break;
        d = opt_by_val(c);
        if (c == '?' || c == ':' || d == NULL)
            rc = opt_bad(c, argv[at], err, errlen);
        else
            rc = d->set(o, d, optarg, err, errlen);
    }
    *stop = optind;
    return rc;
}

int sbatch_opts_parse_argv(struct sbatch_opts *o, int argc, char **argv, int *script_idx,
                           char *err, size_t errlen)
{
    o->src = SBATCH_SRC_CLI;
    return opt_parse(o, argc, argv, script_idx, err, errlen);
}

/*
 * The next word of a directive line, as Slurm splits it: blanks separate
 * words, '"' and '\'' quote (and are removed), a '#' that starts a word
 * starts a comment. NULL at the end; *bad on an unmatched quote.
 */
static char *directive_word(const char **pp, bool *bad)
{
    const char *p = *pp;
    char *word, *w;
    char quote = 0;

    while (*p == ' ' || *p == '\t')
        p++;
    if (*p == '\0' || *p == '#')
        return NULL;
    w = word = xmalloc(strlen(p) + 1);
    for (; *p && (quote || (*p != ' ' && *p != '\t')); p++) {
        if (quote && *p == quote)
            quote = 0;
        else if (!quote && (*p == '"' || *p == '\''))
            quote = *p;
        else
            *w++ = *p;
    }
    *w = '\0';
    *pp = p;
    if (quote) {
        *bad = true;
        free(word);
        return NULL;
    }
    return word;
}

/* The words of one directive, argv-style with a program name first. */
static int directive_split(const char *rest, char ***argvp, int *argcp)
{
    char **av = xmalloc(sizeof(*av) * 2), *word;
    int ac = 1;
    bool bad = false;

    av[0] = xstrdup("sbatch");
    while ((word = directive_word(&rest, &bad)) != NULL) {
        av = xrealloc(av, sizeof(*av) * (ac + 2));
        av[ac++] = word;
    }
    av[ac] = NULL;
    *argvp = av;
    *argcp = ac;
    return bad ? -1 : 0;
}

static void argv_free(char **av, int ac)
{
    for (int i = 0; i < ac; i++)
        free(av[i]);
    free(av);
}

/* Adds where a directive's error came from to err's first line; returns rc. */
static int directive_fail(char *err, size_t errlen, int lineno, int rc)
{
    size_t n = strcspn(err, "\n");
    char *rest = xstrdup(err + n);

    snprintf(err + n, errlen - n, " (batch script line %d)%s", lineno, rest);
    free(rest);
    return rc;
}

static int directive_line(struct sbatch_opts *o, const char *rest, int lineno,
                          char *err, size_t errlen)
{
    char **av;
    int ac, stop, rc;

    if (directive_split(rest, &av, &ac) < 0) {
        argv_free(av, ac);
        fail(err, errlen, "Unmatched quote in #SBATCH directive");
        return directive_fail(err, errlen, lineno, -1);
    }
    rc = opt_parse(o, ac, av, &stop, err, errlen);
    if (rc == 0 && stop < ac)
        rc = fail(err, errlen, "Invalid directive found in batch script: %s", av[stop]);
    argv_free(av, ac);
    return rc < 0 ? directive_fail(err, errlen, lineno, rc) : 0;
}

/* A line that ends the directives: anything but blanks and comments. */
static bool line_is_command(const char *line)
{
    while (isspace((unsigned char)*line))
        line++;
    return *line != '\0' && *line != '#';
}

/*
 * Directives are the lines "#SBATCH" + blank + options, from the top of the
 * script up to its first command (Slurm: the first line that is neither
 * blank nor a comment). "# SBATCH" and "#SBATCH-x" are plain comments.
 */
int sbatch_opts_parse_script(struct sbatch_opts *o, const char *script, char *err,
                             size_t errlen)
{
    const char *p = script;
    int lineno = 0, rc = 0;

    o->src = SBATCH_SRC_SCRIPT;
    while (rc == 0 && *p) {
        size_t len = strcspn(p, "\n");
        char *line = xstrndup(p, len);

        lineno++;
        p += len + (p[len] == '\n');
        if (line_is_command(line)) {
            free(line);
            break;
        }
        if (strncmp(line, "#SBATCH", 7) == 0 && (line[7] == ' ' || line[7] == '\t'))
            rc = directive_line(o, line + 7, lineno, err, errlen);
        free(line);
    }
    o->src = SBATCH_SRC_CLI;
    return rc;
}

/* The GPU options Slurm refuses together, in its words. */
static int gpu_opts_check(const struct sbatch_opts *o, char *err, size_t errlen)
{
    const char *gres = "\nsbatch: error: Invalid generic resource (gres) specification";

    if (o->gpus_per_task != SBATCH_UNSET && o->ntasks_per_gpu != SBATCH_UNSET) {
        snprintf(err, errlen, "sbatch: fatal: --gpus-per-task is mutually exclusive with "
                 "--ntasks-per-gpu and SLURM_NTASKS_PER_GPU");
        return -1;
    }
    if (o->gpus_per_socket != SBATCH_UNSET && o->ntasks_per_gpu != SBATCH_UNSET) {
        snprintf(err, errlen, "sbatch: fatal: --gpus-per-socket is mutually exclusive with "
                 "--ntasks-per-gpu and SLURM_NTASKS_PER_GPU");
        return -1;
    }
    if (o->cpus_per_gpu != SBATCH_UNSET && o->cpus_per_task != SBATCH_UNSET)
        return fail(err, errlen, "--cpus-per-gpu is mutually exclusive with --cpus-per-task%s",
                    gres);
    if (o->gpus_per_task != SBATCH_UNSET && o->gpus == SBATCH_UNSET && o->ntasks == SBATCH_UNSET &&
        o->nodes == SBATCH_UNSET && o->ntasks_per_node == SBATCH_UNSET)
        return fail(err, errlen, "Failed to validate job spec. --gpus-per-task used without "
                    "either --gpus or -n/--ntasks is not allowed.%s", gres);
    if (o->gpus_per_socket != SBATCH_UNSET && o->sockets_per_node == SBATCH_UNSET)
        return fail(err, errlen, "--gpus-per-socket option requires --sockets-per-node "
                    "specification%s", gres);
    return 0;
}

/* Memory per GPU needs GPUs (once the memory options are settled). */
static int gpu_mem_check(const struct sbatch_opts *o, char *err, size_t errlen)
{
    if (o->mem_mb[SBATCH_MEM_GPU] == SBATCH_UNSET || o->gpus > 0 || o->gpus_per_node > 0 ||
        o->gpus_per_task > 0 || o->gpus_per_socket > 0)
        return 0;
    return fail(err, errlen, "Requested mem_per_tres=gres:gpu:%lld but did not request any "
                "GPU.\nsbatch: error: Invalid generic resource (gres) specification",
                (long long)o->mem_mb[SBATCH_MEM_GPU]);
}

/*
 * As Slurm: two memory options from the same source are an error; one from
 * the command line replaces whatever the script said.
 */
int sbatch_opts_finish(struct sbatch_opts *o, char *err, size_t errlen)
{
    if (gpu_opts_check(o, err, errlen) < 0)
        return -1;
    for (int src = SBATCH_SRC_CLI; src >= SBATCH_SRC_SCRIPT; src--) {
        int n = 0;

        for (int k = 0; k < SBATCH_MEM_KINDS; k++)
            n += o->mem_src[k] == src;
        if (n > 1) {
            snprintf(err, errlen, "sbatch: fatal: --mem, --mem-per-cpu, and --mem-per-gpu "
                     "are mutually exclusive.");
            return -1;
        }
        if (n == 1) {
            for (int k = 0; k < SBATCH_MEM_KINDS; k++) {
                if (o->mem_src[k] != src) {
                    o->mem_src[k] = 0;
                    o->mem_mb[k] = SBATCH_UNSET;
                }
            }
            break;
        }
    }
    return gpu_mem_check(o, err, errlen);
}

int sbatch_script_check(const char *script, size_t len, char *err, size_t errlen)
{
    size_t i;

    if (len == 0)
        return fail(err, errlen, "Batch script is empty!");
    for (i = 0; i < len && isspace((unsigned char)script[i]); i++)
        ;
    if (i == len)
        return fail(err, errlen, "Batch script contains only whitespace!");
    if (len < 2 || script[0] != '#' || script[1] != '!')
        return fail(err, errlen, "This does not look like a batch script.  The first\n"
                    "sbatch: error: line must start with #! followed by the path to an "
                    "interpreter.\nsbatch: error: For instance: #!/bin/sh");
    if (memchr(script, '\0', len))
        return fail(err, errlen, "The Slurm controller does not allow scripts that\n"
                    "sbatch: error: contain a NULL character '\\0'.");
    if (memmem(script, len, "\r\n", 2))
        return fail(err, errlen, "Batch script contains DOS line breaks (\\r\\n)\n"
                    "sbatch: error: instead of expected UNIX line breaks (\\n).");
    return 0;
}

char *sbatch_wrap_script(const char *cmd)
{
    return xasprintf("#!/bin/sh\n# This script was created by sbatch --wrap.\n\n%s\n", cmd);
}

/* Sets "K=V" in an array of such strings, replacing an entry for K. The
 * entries are held encoded (rawstr.h), and compared so. */
static void env_put(json_t *env, const char *kv)
{
    json_t *e = json_rawstr(kv), *v;
    const char *text = json_string_value(e);
    size_t klen = strcspn(text, "="), i;

    json_array_foreach(env, i, v) {
        const char *s = json_string_value(v);

        if (strncmp(s, text, klen) == 0 && s[klen] == '=') {
            json_array_set_new(env, i, e);
            return;
        }
    }
    json_array_append_new(env, e);
}

static const char *env_get(char **environ, const char *name)
{
    size_t n = strlen(name);

    for (char **e = environ; e && *e; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
            return *e;
    return NULL;
}

static void env_put_all(json_t *env, char **environ)
{
    for (char **e = environ; e && *e; e++)
        if (strchr(*e, '='))
            env_put(env, *e);
}

/* ALL (default): everything; NONE: nothing; "A,B=1[,ALL]": A from the
 * environment (when set there), B as given, and everything with ALL. */
json_t *sbatch_export_env(const char *export_env, char **environ)
{
    json_t *env = json_array();
    char *list, *save = NULL, *tok;

    if (export_env == NULL || strcasecmp(export_env, "ALL") == 0) {
        env_put_all(env, environ);
        return env;
    }
    if (strcasecmp(export_env, "NONE") == 0 || strcasecmp(export_env, "NIL") == 0)
        return env;
    list = xstrdup(export_env);
    for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
        if (strcasecmp(tok, "ALL") == 0)
            env_put_all(env, environ);
    free(list);
    list = xstrdup(export_env);
    for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const char *kv = strchr(tok, '=') ? tok : env_get(environ, tok);

        if (strcasecmp(tok, "ALL") != 0 && kv != NULL)
            env_put(env, kv);
    }
    free(list);
    return env;
}

static void json_set_str(json_t *obj, const char *key, const char *val)
{
    if (val != NULL)
        json_object_set_new(obj, key, json_rawstr(val));
}

static void json_set_num(json_t *obj, const char *key, int64_t val)
{
    if (val != SBATCH_UNSET)
        json_object_set_new(obj, key, json_integer(val));
}

static void json_set_true(json_t *obj, const char *key, int val)
{
    if (val)
        json_object_set_new(obj, key, json_true());
}

static json_t *argv_json(char **argv, int argc)
{
    json_t *a = json_array();

    for (int i = 0; i < argc; i++)
        json_array_append_new(a, json_rawstr(argv[i]));
    return a;
}

static void spec_resources(json_t *j, const struct sbatch_opts *o)
{
    json_set_num(j, "nodes", o->nodes);
    json_set_num(j, "max_nodes", o->max_nodes);
    json_set_num(j, "ntasks", o->ntasks);
    json_set_num(j, "cpus_per_task", o->cpus_per_task);
    json_set_true(j, "cpus_per_task_set", o->cpus_per_task != SBATCH_UNSET);
    json_set_num(j, "ntasks_per_node", o->ntasks_per_node);
    json_set_num(j, "mem_per_node_mb", o->mem_mb[SBATCH_MEM_NODE]);
    json_set_num(j, "mem_per_cpu_mb", o->mem_mb[SBATCH_MEM_CPU]);
    json_set_num(j, "mem_per_gpu_mb", o->mem_mb[SBATCH_MEM_GPU]);
    json_set_num(j, "gpus", o->gpus);
    json_set_num(j, "gpus_per_node", o->gpus_per_node);
    json_set_str(j, "gpu_type", o->gpu_type);
    json_set_num(j, "gpus_per_task", o->gpus_per_task);
    json_set_num(j, "gpus_per_socket", o->gpus_per_socket);
    json_set_num(j, "sockets_per_node", o->sockets_per_node);
    json_set_num(j, "cpus_per_gpu", o->cpus_per_gpu);
    json_set_num(j, "ntasks_per_gpu", o->ntasks_per_gpu);
    json_set_str(j, "gpu_bind", o->gpu_bind);
    json_set_true(j, "gpus_per_node_gres", o->gpus_per_node_gres && o->gpus_per_node != SBATCH_UNSET);
    if (o->time_set)
        json_object_set_new(j, "time_limit", json_integer(o->time_limit));
    json_set_str(j, "req_nodes", o->nodelist);
    json_set_str(j, "exc_nodes", o->exclude);
    json_set_true(j, "exclusive", o->exclusive);
    json_set_true(j, "hold", o->hold);
    if (o->requeue != SBATCH_UNSET)
        json_object_set_new(j, "requeue", json_boolean(o->requeue));
}

/* What this controller does not act on yet; it keeps it with the job. */
static void spec_stored(json_t *j, const struct sbatch_opts *o)
{
    json_set_str(j, "account", o->account);
    json_set_str(j, "qos", o->qos);
    json_set_str(j, "comment", o->comment);
    json_set_str(j, "constraint", o->constraint);
    json_set_str(j, "signal", o->signal);
    json_set_str(j, "open_mode", o->open_mode);
    json_set_str(j, "mail_type", o->mail_type);
    json_set_str(j, "mail_user", o->mail_user);
    json_set_str(j, "nice", o->nice);
    json_set_str(j, "wckey", o->wckey);
    json_set_str(j, "reservation", o->reservation);
    json_set_str(j, "array", o->array);
    json_set_str(j, "dependency", o->dependency);
    json_set_num(j, "acctg_freq", o->acctg_freq);
    if (o->kill_invalid_dep != SBATCH_UNSET)
        json_object_set_new(j, "kill_on_invalid_dep", json_boolean(o->kill_invalid_dep));
    if (o->begin_time)
        json_object_set_new(j, "begin_time", json_integer(o->begin_time));
    if (o->deadline)
        json_object_set_new(j, "deadline", json_integer(o->deadline));
}

/* The submitter's soft limits, which the job gets (PropagateResourceLimits). */
static json_t *rlimits_json(void)
{
    json_t *a = json_array();
    for (size_t i = 0; i < rlimit_count; i++) {
        struct rlimit rl;
        if (getrlimit(rlimit_names[i].res, &rl) < 0)
            continue;
        long long v = rl.rlim_cur == RLIM_INFINITY ? -1 : (long long)rl.rlim_cur;
        json_array_append_new(a, json_sprintf("%s=%lld", rlimit_names[i].name, v));
    }
    return a;
}

json_t *sbatch_opts_to_json(const struct sbatch_opts *o, const struct sbatch_env *env)
{
    json_t *j = json_object();

    json_set_str(j, "name", o->job_name ? o->job_name : env->default_name);
    json_set_str(j, "partition", o->partition);
    json_set_str(j, "script", env->script);
    json_object_set_new(j, "argv", argv_json(env->script_argv, env->script_argc));
    json_object_set_new(j, "environment", sbatch_export_env(o->export_env, env->environ));
    if (o->chdir && o->chdir[0] != '/') {
        char *wd = xasprintf("%s/%s", env->cwd, o->chdir);
        json_object_set_new(j, "work_dir", json_rawstr(wd));
        free(wd);
    } else
        json_set_str(j, "work_dir", o->chdir ? o->chdir : env->cwd);
    json_set_str(j, "submit_dir", env->cwd);
    json_set_str(j, "submit_host", env->host);
    json_object_set_new(j, "umask", json_integer(env->umask));
    json_object_set_new(j, "rlimits", rlimits_json());
    json_set_str(j, "stdout", o->out);
    json_set_str(j, "stderr", o->err);
    json_set_str(j, "stdin", o->in);
    spec_resources(j, o);
    spec_stored(j, o);
    return j;
}
