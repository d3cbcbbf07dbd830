/*
 * slurm_file: the plain "Key=Value" settings of a Slurm-syntax file
 * (slurm.conf, cgroup.conf), for the keys common/conf does not keep, so
 * that `scontrol show config` can print what the file says. Node, partition
 * and other record lines are skipped; '#' starts a comment; the last value
 * of a key wins, as in Slurm; keys match without regard to case.
 */
#ifndef HERD_CMD_SCONTROL_SLURM_FILE_H
#define HERD_CMD_SCONTROL_SLURM_FILE_H

#include <stdbool.h>

struct slurm_file;

/* NULL when path is NULL or cannot be read. */
struct slurm_file *slurm_file_load(const char *path);
void slurm_file_destroy(struct slurm_file *f);          /* NULL is a no-op */

/* The value of key (quotes removed), or NULL; borrowed from f. */
const char *slurm_file_get(const struct slurm_file *f, const char *key);

/* "dir/name" for a file in the directory of path; caller frees. */
char *slurm_file_beside(const char *path, const char *name);

/* yes, true, 1 (any case), as Slurm reads a flag. */
bool slurm_file_yes(const char *v);

#endif
