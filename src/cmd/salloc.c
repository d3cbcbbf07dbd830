/*
 * salloc: an allocation for a command run here (default: the user's shell),
 * with the allocation's SLURM_* variables, so that srun inside it launches
 * on the allocated nodes; the allocation ends when the command does.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client/alloc.h"
#include "cmd/cmds.h"
#include "client/srun_opts.h"

#define PROG "salloc"

/* The command's exit code, as a shell gives it (128 + a signal). */
static int run_command(char **argv)
{
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "salloc: error: fork: %s\n", strerror(errno));
        return 1;
    }
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        execvp(argv[0], argv);
        if (errno == ENOENT) {   /* Slurm's words, and its exit status */
            fprintf(stderr, "salloc: error: _fork_command: Unable to find command \"%s\"\n",
                    argv[0]);
            _exit(1);
        }
        fprintf(stderr, "salloc: error: %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    /* Ctrl-C is for the command (an interactive shell), not for salloc */
    signal(SIGINT, SIG_IGN);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int cmd_salloc(int argc, char **argv)
{
    struct srun_opts o = { 0 };
    int rc = 1, parsed = srun_parse(PROG, argc, argv, &o);
    if (parsed == SRUN_PARSE_FATAL)
        rc = 255;
    else if (parsed == 0) {
        char *shell[] = { getenv("SHELL") ? getenv("SHELL") : "/bin/sh", NULL };
        char **cmd = o.argv[0] ? o.argv : shell;
        const char *base = strrchr(cmd[0], '/');
        alloc_quiet(o.quiet);
        int64_t id = alloc_create(PROG, o.alloc_argc, o.alloc_argv, base ? base + 1 : cmd[0]);
        json_t *job = NULL;
        if (id && alloc_wait(PROG, id, &job) == 0) {
            alloc_setenv(PROG, job);
            json_decref(job);
            rc = run_command(cmd);
            alloc_release(PROG, id, rc);
        }
    }
    srun_opts_free(&o);
    return o.error_rc ? o.error_rc : rc;
}
