/*
 * step_int: the parts of a step that step.c (launching, output) and
 * step_stdin.c (srun's stdin to the tasks) share.
 */
#ifndef HERD_NODED_STEP_INT_H
#define HERD_NODED_STEP_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct agent;
struct event;
struct evbuffer;
struct http_req;
struct pmi;

/* A task's stdin: the write end of its pipe and what srun sent that it has
 * not read yet. fd -1: its stdin is /dev/null, or it is closed. */
struct task_in {
    int fd, child_fd;          /* child_fd: the read end, until forked */
    struct evbuffer *buf;
    struct event *ev;          /* writable again */
    bool eof;                  /* srun's stdin ended: close once buf is written */
};

struct task {
    struct astep *st;
    int procid, localid;
    pid_t pid;
    bool pty;                  /* srun --pty: task 0 runs on a terminal */
    int pmi_fd;                /* the task's end of its PMI socket, until forked; -1 */
    struct event *out[2];      /* stdout, stderr pipes; NULL once at EOF */
    struct task_in in;         /* its stdin from srun: step_stdin.c */
    bool exited, reported;
    int status;
};

struct astep {
    struct agent *a;
    struct http_req *r;
    int64_t job_id;
    int step_id;
    uid_t uid;
    pid_t pgid;                /* the tasks' process group */
    pid_t pty_pid;             /* --pty's task 0, in a session of its own */
    json_t *layout;            /* the controller's answer */
    struct task *tasks;
    int ntasks, left;          /* tasks here; not reported yet */
    struct event *beat;
    struct pmi *pmi;           /* --mpi=pmi2 */
    struct jobcg *cg;          /* the job's cgroup here, which the tasks join; NULL: none */
    bool cg_own;               /* the job has none here: cg is the step's, made and removed by it */
    struct http_req *in_req;   /* a stdin request held until the tasks read enough */
    bool gone;                 /* srun went away: the tasks were killed */
    struct astep *next;
};

/* step_stdin.c */
/* Before the fork: a pipe when the step's "stdin" names this task (all,
 * or its rank); the child's end is t->in.child_fd, else -1. A task on a
 * terminal reads what is written to its pty_master instead. */
int stdin_task_prepare(struct task *t, json_t *req, int pty_master);
void stdin_task_forked(struct task *t);   /* the parent closes the child's end */
void stdin_task_close(struct task *t);    /* the task ended, or the step is freed */
/* The step is being freed: a held stdin request is answered. */
void stdin_step_free(struct astep *st);

/* The started step the request's "job_id" and "step_id" name, when the
 * caller is its user or root; NULL once answered 404 or 403. */
struct astep *step_of_request(struct http_req *r);

#endif
