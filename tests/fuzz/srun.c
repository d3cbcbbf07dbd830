/*
 * Fuzzes srun's (and salloc's) command line: the input, split on blanks,
 * is argv after "srun". Words that would make srun print and exit (--help
 * and its abbreviations, --mpi=list) are left out: exit is not a finding.
 */
#include <getopt.h>

#include "client/srun_opts.h"
#include "fuzz.h"

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
        if (strncmp(w, "--h", 3) == 0 || strstr(w, "list")) {
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
