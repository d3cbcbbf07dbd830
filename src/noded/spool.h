/*
 * spool: a node's on-disk job records, SlurmdSpoolDir/jobNNNNN/, which let
 * jobs outlive a restart of herdd: job.json (the launch request),
 * slurm_script, supervisor.pid and job.pgid (written by the supervisor), and
 * result (the job's end, written atomically by the supervisor, or by herdd
 * when the supervisor died without one). herdd removes the directory once the
 * controller has acknowledged the end.
 *
 * Only root reads any of it (job.json holds the user's environment): the
 * files are 0600, the directories 0711, traversed but never listed by the
 * job's user, whose job executes its own slurm_script (0700, theirs).
 */
#ifndef HERD_NODED_SPOOL_H
#define HERD_NODED_SPOOL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define SPOOL_JOB_JSON  "job.json"
#define SPOOL_SCRIPT    "slurm_script"
#define SPOOL_SUP_PID   "supervisor.pid"
#define SPOOL_PGID      "job.pgid"
#define SPOOL_RESULT    "result"
#define SPOOL_DIR_MODE  0711

struct job_usage {
    bool known;            /* false: none recorded (a lost supervisor) */
    int64_t elapsed_s;
    int64_t total_cpu_ms;  /* user + system of all the job's processes */
    int64_t user_cpu_ms;   /* -1 where only the total is known (cgroup) */
    int64_t system_cpu_ms;
    int64_t max_rss_kb;
    int64_t gpus;
    int64_t gpu_seconds;   /* allocated GPUs x elapsed */
    char source[16];       /* "cgroup" or "rusage" */
};

struct job_result {
    char state[16];        /* COMPLETED, FAILED, TIMEOUT, CANCELLED, OUT_OF_MEMORY */
    int exit_code;
    int exit_signal;
    int64_t end_time;
    bool prolog_failed;    /* the job never ran: the controller drains the node */
    struct job_usage usage;
};

/* SPOOL/job00012; caller frees. */
char *spool_job_dir(const char *spool, int64_t job_id);
/* The job id of a spool entry name "job00012", or -1. */
int64_t spool_parse_name(const char *name);

/* mkdir -p; 0 or -1 with errno. */
int spool_mkdirs(const char *path, mode_t mode);
/* rm -rf of a directory of ours; 0 or -1 with errno. */
int spool_rmtree(const char *path);

/* Writes dir/name in place (truncated, so that a recycled slot's file keeps
 * its inode), without fsync: what a restarted herdd reads is in the page
 * cache, and a crash of the machine ends every job of the node anyway
 * (job.json, the script, the pids). A reader may find a file empty or cut
 * short while it is written: pid files and the result are then unreadable
 * (-1), as if not yet written, and read again later. 0 or -1. */
int spool_write(const char *dir, const char *name, const char *data, mode_t mode);
/* The same, with fsync before the rename, so that after a crash the name
 * never points at an empty file: for the result, the one record of a job's
 * end that exists nowhere else until the controller has acknowledged it.
 * It is the supervisor's write, off herdd's launch path. */
int spool_write_durable(const char *dir, const char *name, const char *data, mode_t mode);
/* A number written by spool_write_pid; -1 when missing or malformed. */
pid_t spool_read_pid(const char *dir, const char *name);
int spool_write_pid(const char *dir, const char *name, pid_t pid);

int spool_result_write(const char *dir, const struct job_result *res);

/* spool_pool.c: directories of finished jobs for the next ones to reuse,
 * SPOOL/.free/0 .. nfree-1 (at most 256). reset: at start, none (what an
 * earlier herdd left is removed). take: a slot's path, to fill and rename
 * to the job's directory (removed on failure), or NULL when none is
 * free. put: the finished job's dir
 * becomes a slot (its result and pids emptied), or is removed when the pool
 * is full or it holds other files; 0 or -1. */
void spool_pool_reset(const char *spool, int *nfree);
char *spool_pool_take(const char *spool, int *nfree);
int spool_pool_put(const char *spool, int *nfree, const char *dir);
/* 0, or -1 when there is no (valid) result yet. */
int spool_result_read(const char *dir, struct job_result *res);
/* The job_end message's "usage" object (with the exit code and signal);
 * NULL when none is known. */
json_t *spool_usage_json(const struct job_result *res);

/* A datagram socket SPOOL/notify.sock on which herdd hears at once that a
 * supervisor wrote a result (else its 1 s tick finds it). The fd, or -1. */
int spool_notify_open(const char *spool);
/* Sent by a supervisor after the result of job_dir (SPOOL/jobNNNNN) is
 * written; nothing happens if herdd is not there to hear it. */
void spool_notify(const char *job_dir);

#endif
