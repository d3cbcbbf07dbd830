/*
 * Fuzzes srun's (and salloc's) command line: the input, split on blanks,
 * is argv after "srun". Words that would make srun print and exit (--help,
 * --usage and their abbreviations, --mpi=list) are left out: exit is not a finding.
 */
#include <getopt.h>

#include "client/srun_opts.h"
#include "fuzz.h"

/* --help and --usage, or an abbreviation getopt_long takes for them */
static bool exits(const char *w)
{
    size_t n = strcspn(w, "=");
    if (strstr(w, "list"))
        return true;
    return strncmp(w, "--", 2) == 0 && n > 2 &&
           (strncmp(w + 2, "help", n - 2) == 0 || strncmp(w + 2, "usage", n - 2) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool init;
    if (!init) {
        setenv("SLURM_MPI_TYPE", "none", 1);   /* else srun reads slurm.conf */
        unsetenv("SLURM_JOB_ID");
        init = true;
    }
    char *line = fuzz_str(data, size), *save = NULL;
    char *argv[64] = { "srun" };
    int argc = 1;
    for (char *w = strtok_r(line, " \t\n", &save); w && argc < 63;
         w = strtok_r(NULL, " \t\n", &save)) {
        if (exits(w)) {
            free(line);
            return 0;
        }
        argv[argc++] = w;
    }
    argv[argc] = NULL;
    /* glibc's getopt keeps a pointer into the last argv unless optind is 0
     * (srun parses once a process; this parses many) */
    char *none[] = { "srun", NULL };
    optind = 0;
    (void)getopt(1, none, "");
    struct srun_opts o = { 0 };
    (void)srun_parse("srun", argc, argv, &o);
    srun_opts_free(&o);
    free(line);
    return 0;
}
