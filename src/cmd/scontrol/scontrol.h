/*
 * scontrol: the pieces of the scontrol command shared by its files:
 * scontrol.c (dispatch, hold/release/requeue/update/ping/reconfigure),
 * scontrol_show.c (show job/node/partition/config/hostnames/hostlist in
 * Slurm's Key=Value layout), scontrol_step.c (show step) and
 * scontrol_resv.c (create, update, delete and show reservation).
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

/* scontrol_resv.c: advance reservations. argv: the Key=Value pairs; tag:
 * the word delete was given (Slurm's error names it). Exit codes. */
int scontrol_resv_create(int argc, char **argv);
int scontrol_resv_update(int argc, char **argv);
int scontrol_resv_delete(const char *tag, const char *name);
int scontrol_show_resv(const struct scontrol_opts *o, const char *name);

/* scontrol_token.c: `scontrol token`; the token for user (NULL: the
 * caller) lasting lifespan s (0: the controller's default), or NULL with
 * the error printed. */
int scontrol_token(int argc, char **argv);
char *scontrol_token_get(const char *prog, const char *user, long long lifespan);

/* True when a matches a prefix of at least min characters of word (Slurm
 * takes unique abbreviations, case-insensitive). */
bool scontrol_word(const char *a, const char *word, size_t min);

#endif
