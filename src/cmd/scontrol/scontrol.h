/*
 * scontrol: the pieces of the scontrol command shared by its files:
 * scontrol.c (dispatch, hold/release/requeue/update/ping/reconfigure),
 * scontrol_show.c (show job/node/partition/config/hostnames/hostlist in
 * Slurm's Key=Value layout) and scontrol_step.c (show step).
 */
#ifndef HERD_CMD_SCONTROL_H
#define HERD_CMD_SCONTROL_H

#include <stdbool.h>

#include <jansson.h>

#define SCONTROL_PROG "scontrol"

struct scontrol_opts {
    bool oneliner;         /* -o: one line per record */
    int details;           /* -d */
    bool quiet;            /* -Q */
};

/* `scontrol show ENTITY [ID]`; argv starts after "show". Exit code. */
int scontrol_show(const struct scontrol_opts *o, int argc, char **argv);
/* scontrol_tres.c: a job's CpusPerTres, MemPerTres, TresBind, TresPer*
 * lines (each after sep), and its GPUs over all its nodes. */
void scontrol_job_tres(const json_t *j, const char *sep);
int scontrol_job_gpus(const json_t *j);
/* CPUs/Task: once the job started, --cpus-per-gpu x --gpus-per-task, as
 * Slurm sets it at allocation; before, as asked. */
int scontrol_job_cpus_per_task(const json_t *j);

/* `scontrol show config` (show_config.c). Exit code. */
int scontrol_show_config(void);

/* `scontrol show step [ID[.STEP]]` (scontrol_step.c). Exit code. */
int scontrol_show_step(const struct scontrol_opts *o, const char *arg);

/* True when a matches a prefix of at least min characters of word (Slurm
 * takes unique abbreviations, case-insensitive). */
bool scontrol_word(const char *a, const char *word, size_t min);

#endif
