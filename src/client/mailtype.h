/*
 * mailtype: sbatch's --mail-type list ("END,FAIL"), as Slurm 22.05 takes it.
 */
#ifndef HERD_CLIENT_MAILTYPE_H
#define HERD_CLIENT_MAILTYPE_H

#include <stdbool.h>

/* Whether Slurm accepts the comma-separated list: it does when one word at
 * least names a mail type (case aside); it ignores the others. */
bool mailtype_valid(const char *list);

#endif
