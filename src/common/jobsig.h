/*
 * jobsig: signal names as Slurm takes them ("USR1", "SIGUSR1", "10") and
 * sbatch --signal=[{R|B}:]SIG[@seconds]: which signal, how long before the
 * time limit (60 s by default), and whether to the batch shell only (B:).
 */
#ifndef HERD_COMMON_JOBSIG_H
#define HERD_COMMON_JOBSIG_H

#include <stdbool.h>

struct jobsig_warn {
    int sig;                   /* 0: none */
    int before_s;
    bool batch_only;
};

/* The number of a signal name or number; -1 when it is neither. */
int jobsig_number(const char *name);

/* 0, or -1 when spec is malformed (w then says none). "" is no signal. */
int jobsig_parse(const char *spec, struct jobsig_warn *w);

#endif
