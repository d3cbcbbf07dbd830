/*
 * Fuzzes sbatch's options as a batch script's #SBATCH directives carry them
 * (the same table as the command line: quoting, comments, every option's
 * value parser), the script checks, the resolution of sources, and the job
 * spec sent to the controller. After the script, the input's first line
 * that starts "--" is also parsed as a command line, split on blanks.
 */
#include "client/sbatch_opts.h"
#include "fuzz.h"

static char *fuzz_environ[] = { "PATH=/usr/bin:/bin", "HOME=/home/alice", "SLURM_X=1",
                                "A=b=c", NULL };

static void cli(struct sbatch_opts *o, const char *script)
{
    const char *l = strstr(script, "\n--");
    if (!l)
        return;
    char *line = xstrndup(l + 1, strcspn(l + 1, "\n")), *save = NULL, err[1024];
    char *argv[64] = { "sbatch" };
    int argc = 1, idx;
    for (char *w = strtok_r(line, " \t", &save); w && argc < 63; w = strtok_r(NULL, " \t", &save))
        argv[argc++] = w;
    argv[argc] = NULL;
    (void)sbatch_opts_parse_argv(o, argc, argv, &idx, err, sizeof err);
    free(line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *script = fuzz_str(data, size), err[1024];
    struct sbatch_opts o;
    sbatch_opts_init(&o);
    (void)sbatch_script_check((const char *)data, size, err, sizeof err);
    if (sbatch_opts_parse_script(&o, script, err, sizeof err) == 0) {
        cli(&o, script);
        if (sbatch_opts_finish(&o, err, sizeof err) == 0) {
            char *args[] = { "one", "two", NULL };
            const struct sbatch_env env = {
                .script = script, .default_name = "job.sh", .script_argv = args,
                .script_argc = 2, .environ = fuzz_environ, .cwd = "/home/alice",
                .host = "login1", .umask = 022,
            };
            json_decref(sbatch_opts_to_json(&o, &env));
        }
    }
    sbatch_opts_free(&o);
    free(script);
    return 0;
}
