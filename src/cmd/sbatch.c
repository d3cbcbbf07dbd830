/*
 * sbatch: submits a batch script (file, stdin or --wrap) as Slurm's sbatch
 * does. The options are sbatch_opts' work; this file reads the script,
 * gathers the submitter's surroundings, posts the spec and prints the id.
 */
#include <errno.h>
#include <jansson.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "client/client.h"
#include "client/cmdutil.h"
#include "client/paths.h"
#include "client/sbatch_opts.h"
#include "cmd/cmds.h"
#include "common/conf.h"
#include "common/rawstr.h"
#include "common/xmalloc.h"
#include "common/slurm_errno.h"

#define PROG "sbatch"

extern char **environ;

struct sbatch_job {
    char *script;
    size_t len;
    char *name;
    char *command;          /* the script's absolute path (scontrol's Command=) */
    char **argv;
    int argc;
};

static char *read_all(FILE *f, size_t *len)
{
    size_t cap = 8192, n = 0, got;
    char *buf = xmalloc(cap + 1);

    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap)
            buf = xrealloc(buf, (cap *= 2) + 1);
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* The controller refuses a script over SchedulerParameters=max_script_size;
 * sbatch says so without sending it, in the words of the refusal. */
static int script_size_check(const struct sbatch_job *job, char *err, size_t errlen)
{
    if ((int64_t)job->len <= conf_max_script_size(client_conf(PROG)))
        return 0;
    snprintf(err, errlen, PROG ": error: Batch job submission failed: Pathname of a file, "
             "directory or other parameter too long");
    return -1;
}

/* The script and its default job name, from --wrap, the file or stdin. */
static int job_load(struct sbatch_job *job, const char *wrap, int argc, char **argv, int idx,
                    char *err, size_t errlen)
{
    FILE *f;

    if (wrap) {
        if (idx < argc) {
            snprintf(err, errlen, PROG ": error: Script arguments not permitted with "
                     "--wrap option");
            return -1;
        }
        job->script = sbatch_wrap_script(wrap);
        job->len = strlen(job->script);
        job->name = xstrdup("wrap");
        return script_size_check(job, err, errlen);
    }
    if (idx < argc) {
        char *copy = xstrdup(argv[idx]);

        if ((f = fopen(argv[idx], "r")) == NULL) {
            snprintf(err, errlen, PROG ": error: Unable to open file %s", argv[idx]);
            free(copy);
            return -1;
        }
        job->script = read_all(f, &job->len);
        fclose(f);
        job->name = xstrdup(basename(copy));
        job->command = realpath(argv[idx], NULL);
        free(copy);
        job->argv = argv + idx + 1;
        job->argc = argc - idx - 1;
    } else {
        if (isatty(STDIN_FILENO)) {
            snprintf(err, errlen, PROG ": error: No batch script given and standard input "
                     "is a terminal");
            return -1;
        }
        job->script = read_all(stdin, &job->len);
        job->name = xstrdup("sbatch");
    }
    if (sbatch_script_check(job->script, job->len, err, errlen) < 0)
        return -1;
    return script_size_check(job, err, errlen);
}

static void job_free(struct sbatch_job *job)
{
    xfree(job->script);
    xfree(job->name);
    xfree(job->command);
}

/* Finds the script (first pass), then parses its directives and the
 * command line again over them, so that the command line wins. 0, -1 or
 * SBATCH_OPT_FATAL. */
static int opts_load(struct sbatch_opts *o, struct sbatch_job *job, int argc, char **argv,
                     char *err, size_t errlen)
{
    int idx, rc;

    if ((rc = sbatch_opts_parse_argv(o, argc, argv, &idx, err, errlen)) < 0)
        return rc;
    if (o->help)
        return 0;
    if (job_load(job, o->wrap, argc, argv, idx, err, errlen) < 0)
        return -1;
    sbatch_opts_free(o);
    sbatch_opts_init(o);
    if ((rc = sbatch_opts_parse_script(o, job->script, err, errlen)) < 0 ||
        (rc = sbatch_opts_parse_argv(o, argc, argv, &idx, err, errlen)) < 0)
        return rc;
    return sbatch_opts_finish(o, err, errlen);
}

static json_t *spec_build(const struct sbatch_opts *o, const struct sbatch_job *job)
{
    char cwd[4096], host[256] = "";
    mode_t mask = umask(0);
    struct sbatch_env env = {
        .script = job->script, .default_name = job->name,
        .script_argv = job->argv, .script_argc = job->argc,
        .environ = environ, .cwd = cwd, .host = host, .umask = (int)mask,
    };

    umask(mask);
    if (getcwd(cwd, sizeof(cwd)) == NULL) {
        fprintf(stderr, PROG ": error: getcwd failed: %s\n", strerror(errno));
        return NULL;
    }
    gethostname(host, sizeof(host) - 1);
    json_t *spec = sbatch_opts_to_json(o, &env);
    const char *resv = getenv("SBATCH_RESERVATION");   /* when no option names one */
    if (resv && *resv && !json_object_get(spec, "reservation"))
        json_object_set_new(spec, "reservation", json_string(resv));
    if (job->command)
        json_object_set_new(spec, "command", json_rawstr(job->command));
    return spec;
}

/* Slurm's sbatch waits out a full queue (MaxJobCount): it says so once,
 * then tries again after 1, 2, ... 15 s before it gives up. */
#define QUEUE_FULL_RETRIES 15

static bool queue_full(int status, const json_t *resp)
{
    return status > 0 && status != 200
        && jget_int(resp, "code", 0) == ESLURM_ERROR_ON_DESC_TO_RECORD_COPY;
}

/* 0 and the id, or -1 after printing Slurm's failure line. */
static int submit(json_t *spec, json_int_t *job_id)
{
    char err[256] = "";
    json_t *resp = NULL;
    int status = client_call(PROG, "POST", PATH_JOBS, spec, &resp, err, sizeof(err));
    for (unsigned tries = 0; tries < QUEUE_FULL_RETRIES && queue_full(status, resp); ) {
        if (tries == 0)
            fprintf(stderr, PROG ": error: Slurm job queue full, sleeping and retrying\n");
        sleep(++tries);
        json_decref(resp);
        resp = NULL;
        status = client_call(PROG, "POST", PATH_JOBS, spec, &resp, err, sizeof(err));
    }
    if (status == 200) {
        *job_id = json_integer_value(json_object_get(resp, "job_id"));
    } else {
        /* Slurm 22.05's controller sends this line back ahead of the failure */
        if (status > 0 && jget_int(resp, "code", 0) == ESLURM_INVALID_PARTITION_NAME)
            fprintf(stderr, PROG ": error: invalid partition specified: %s\n",
                    jget_str(spec, "partition", ""));
        fprintf(stderr, PROG ": error: Batch job submission failed: %s\n",
                status < 0 ? err : client_error_text(resp, status));
    }
    json_decref(resp);
    return status == 200 ? 0 : -1;
}

static int state_is_final(const char *state)
{
    static const char *const live[] = { "PENDING", "RUNNING", "COMPLETING", "CONFIGURING",
                                        "SUSPENDED", "REQUEUED", "RESIZING", NULL };

    for (int i = 0; live[i]; i++)
        if (strcmp(state, live[i]) == 0)
            return 0;
    return 1;
}

/* --wait: the controller answers GET .../wait when the job ends (or after
 * its timeout, with the job still live: then we ask again). Its exit code
 * (128+signal) is ours. */
static int job_wait(json_int_t job_id)
{
    char path[96], err[256];
    struct timespec pause = { 1, 0 };

    snprintf(path, sizeof(path), PATH_JOB_WAIT("%lld") "?until=end&timeout=50", (long long)job_id);
    for (;;) {
        json_t *resp = NULL, *job;
        int status = client_call(PROG, "GET", path, NULL, &resp, err, sizeof(err));
        const char *state;

        job = json_array_get(json_object_get(resp, "jobs"), 0);
        state = json_string_value(json_object_get(job, "state"));
        if (status == 200 && state && state_is_final(state)) {
            int sig = json_integer_value(json_object_get(job, "exit_signal"));
            int code = json_integer_value(json_object_get(job, "exit_code"));
            int rc = sig ? 128 + sig : code;

            if (rc == 0 && strcmp(state, "COMPLETED") != 0)
                rc = 1;
            json_decref(resp);
            return rc;
        }
        json_decref(resp);
        if (status >= 400) {
            fprintf(stderr, PROG ": error: Job %lld is no longer known\n", (long long)job_id);
            return 1;
        }
        if (status < 0)
            nanosleep(&pause, NULL);   /* controller away (restarting): try again */
    }
}

static void usage(void)
{
    printf("Usage: sbatch [OPTIONS...] executable [args...]\n"
           "       sbatch [OPTIONS...] --wrap=\"command string\"\n"
           "Options as Slurm's sbatch(1): -J -p -N -n -c --ntasks-per-node --mem\n"
           "--mem-per-cpu --mem-per-gpu --gres -G --gpus-per-node --gpus-per-task\n"
           "--cpus-per-gpu --ntasks-per-gpu --gpus-per-socket --gpu-bind -t -o -e -i -D\n"
           "--export -H -w -x --exclusive --requeue --no-requeue -A -q --comment -C\n"
           "--signal --open-mode --mail-type --mail-user --nice --acctg-freq -W --parsable -Q -v\n"
           "-b/--begin --deadline --wckey --reservation\n");
}

int cmd_sbatch(int argc, char **argv)
{
    struct sbatch_opts o;
    struct sbatch_job job = { 0 };
    char err[1024];
    json_t *spec = NULL;
    json_int_t job_id = 0;
    int rc = 1, load;

    sbatch_opts_init(&o);
    if ((load = opts_load(&o, &job, argc, argv, err, sizeof(err))) < 0) {
        fprintf(stderr, "%s\n", err);
        rc = load == SBATCH_OPT_FATAL ? 255 : o.error_rc ? o.error_rc : 1;
    } else if (o.help) {
        usage();
        rc = 0;
    } else if ((spec = spec_build(&o, &job)) != NULL && submit(spec, &job_id) == 0) {
        if (!o.quiet)
            printf(o.parsable ? "%lld\n" : "Submitted batch job %lld\n", (long long)job_id);
        fflush(stdout);
        rc = o.wait ? job_wait(job_id) : 0;
    }
    json_decref(spec);
    job_free(&job);
    sbatch_opts_free(&o);
    return rc;
}
