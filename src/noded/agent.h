/*
 * agent: herdd's state and its dealings with the controller. It owns the
 * table of this node's jobs (rebuilt from the spool at start, so a restarted
 * herdd picks up the jobs its supervisors still run), registers at start and
 * then as the heartbeat, and reports every job's end (POST /v1/node/job_end)
 * once a second until the controller acknowledges it, then removes the
 * job's spool directory.
 */
#ifndef HERD_NODED_AGENT_H
#define HERD_NODED_AGENT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/http.h"
#include "noded/confd.h"
#include "noded/gpumon.h"
#include "noded/spool.h"

struct conf;
struct conf_node;
struct event;
struct event_base;
struct astep;

struct ajob {
    struct agent *agent;
    int64_t id;
    pid_t sup_pid;         /* its supervisor */
    pid_t pgid;            /* the job's process group (= session) */
    bool ended;            /* res holds its end */
    bool reporting;        /* a job_end is in flight; the job stays alive until it answers */
    int *cpu_ids;          /* the node CPU indices it was given (job.json "herd_cpus") */
    size_t ncpu_ids;
    struct job_result res;
    struct launching *starting;  /* set until its supervisor is up: launch_ready.c */
    struct jobmon mon;     /* its use sampled so far: gpumon.c */
    struct ajob *next;
};

struct agent {
    struct event_base *base;
    const struct conf *conf;
    const struct conf_node *node;
    char *conf_path;       /* absolute, for SLURM_CONF and the supervisors */
    char *spool;
    char *log_file;        /* what the supervisors log to; NULL: stderr */
    int verbose;
    int port;              /* the bound port */
    struct http_server *srv;
    struct event *tick;
    struct event *beat;
    struct event *notify;  /* a supervisor says a result is written */
    int notify_fd;
    struct ajob *jobs;
    struct astep *steps;   /* srun's steps with tasks here: step.c */
    int pool_free;         /* finished jobs' directories to reuse: spool_pool.c */
    char **gpu_devs;       /* "c MAJ:MIN" of each GPU of the node, by index */
    struct gpumon *mon;    /* NVML and the sampling: gpumon.c */
    struct confd confd;    /* configless: where the files came from (confd.c) */
    bool registering;
    bool register_refused; /* 503: again within the next ticks, not a beat later */
    bool stopping;
    int64_t stop_by;       /* when a stopping agent gives up reporting */
};

/* Spool ready and listening; NULL with a message in err. conf and node
 * must outlive the agent. */
struct agent *agent_create(struct event_base *base, const struct conf *conf,
                           const struct conf_node *node, const char *conf_path,
                           const char *log_file, int verbose, char *err, size_t errlen);
void agent_destroy(struct agent *a);             /* NULL is a no-op */

/* Rebuilds the job table from the spool, starts the timers and sends the
 * first registration. 0 or -1. */
int agent_start(struct agent *a);

/* SIGTERM: kills every job, reports their ends for about 2 s, then breaks
 * the event loop. */
void agent_stop(struct agent *a);

/* herdd's pid file (PidFile of slurm.conf, %n as node), written; its path
 * (caller frees), or NULL when there is none or it could not be written. */
char *agent_pidfile_write(const struct conf *c, const char *node);

struct ajob *agent_job_find(struct agent *a, int64_t id);
struct ajob *agent_job_add(struct agent *a, int64_t id);
/* Takes j out of the table and frees it. */
void agent_job_forget(struct agent *a, struct ajob *j);
/* To the job's supervisor: a cancel (its first signal; the supervisor does
 * KillWait, SIGKILL, CANCELLED) or a plain signal, to the batch shell only
 * with batch; the job's process group where there is no supervisor. sig
 * may be a suspend or resume (SUP_SIG_SUSPEND, SUP_SIG_RESUME): the
 * process group then gets SIGSTOP or SIGCONT. */
void agent_job_signal(struct ajob *j, int sig, bool cancel, bool batch);

/* jobstop.c: POST /v1/suspend, a job (and its steps here) suspended or resumed. */
void agent_job_suspend_req(struct http_req *r);
/* outtail.c: POST /v1/output, a job's output tail read as the job's user */
void outtail_req(struct http_req *r);
/* A job's steps here run again (thawed, SIGCONT), so that a kill reaches
 * them: a frozen process dies only once thawed. */
void agent_job_thaw_steps(struct agent *a, int64_t job_id);

/* api.c: the routes herdd serves. */
extern const struct http_route agent_routes[];
extern const size_t agent_nroutes;

/* launch.c: POST /v1/launch. Answers r, at once when it is refused, else
 * when the supervisor is up (launch_wait). */
void launch_job(struct agent *a, struct http_req *r);
/* The CPU indices a job found in the spool was given. */
void launch_read_cpus(struct ajob *j, const char *dir);

/* launch_ready.c: a launched job until its supervisor answers on the ready
 * pipe fd (10 s at most). launch_wait takes fd, dir (the spool directory,
 * removed should the start fail) and r, and answers r then; a repeated
 * launch joins with launch_wait_join. Signals and a new time limit for the
 * job meanwhile are passed on once it is up. launch_wait_free: herdd is
 * going away; frees it without answering (the server is gone). */
void launch_wait(struct ajob *j, int fd, char *dir, struct http_req *r);
void launch_wait_join(struct ajob *j, struct http_req *r);
void launch_defer_signal(struct ajob *j, int sig, bool cancel, bool batch);
void launch_defer_limit(struct ajob *j, int minutes);
void launch_wait_free(struct ajob *j);

#endif
