/*
 * taskset: a set of job array task ids, as sbatch --array gives them
 * ("0-15", "1,3,5-7", "0-99:2", "0-999%8") and as squeue folds them back.
 * A bitmap up to the largest id: a 100,000-task array is 12.5 kB, whatever
 * its holes, and taking the lowest id or one id out is cheap.
 */
#ifndef HERD_COMMON_TASKSET_H
#define HERD_COMMON_TASKSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The largest task id a spec may name before MaxArraySize is checked:
 * Slurm's own ceiling for MaxArraySize is 4000001. */
#define TASKSET_ID_MAX 4000000u

struct taskset;

/* Parses "LIST[%THROTTLE]"; *throttle = 0 when none (no limit). NULL with
 * err on a bad spec. */
struct taskset *taskset_parse(const char *spec, int *throttle, char *err, size_t errlen);
struct taskset *taskset_copy(const struct taskset *t);
void taskset_free(struct taskset *t);   /* NULL is a no-op */

bool taskset_has(const struct taskset *t, uint32_t id);
void taskset_del(struct taskset *t, uint32_t id);
uint32_t taskset_count(const struct taskset *t);
int64_t taskset_first(const struct taskset *t);   /* -1 when empty */
int64_t taskset_last(const struct taskset *t);    /* -1 when empty */
int64_t taskset_next(const struct taskset *t, uint32_t from);   /* lowest id >= from; -1 */
/* How many ids are in both; whether every id of part is in t. */
uint32_t taskset_common(const struct taskset *a, const struct taskset *b);
bool taskset_covers(const struct taskset *t, const struct taskset *part);
/* The step between ids when they are evenly spaced, else 1. */
uint32_t taskset_step(const struct taskset *t);

/* Slurm's folded form: "4-15", "1,3,5-7", "0-98:2"; "" when empty. Caller
 * frees. */
char *taskset_fmt(const struct taskset *t);

/* A kept "LIST[%THROTTLE]" as Slurm 22.05 prints waiting tasks
 * (taskset_show.c): "3,5,7,9", "0-98:2", "5,7-10%2", a long list cut with
 * "...". A spec that does not parse comes back as it is. Caller frees. */
char *taskset_show(const char *tasks);

#endif
