/*
 * step: this node's part of a job step (srun). srun sends the command, its
 * environment and working directory (POST /v1/steps); the layout (which
 * tasks run here, as whom, with which GPUs) comes from the controller, so a
 * user can start tasks only where a running job of theirs holds the node.
 * Each task runs as the job's user in the job's process group, its stdout
 * and stderr go back to srun on the same connection as they come, framed:
 *
 *   "O TASK FD LEN\n" then LEN bytes     output of task TASK on FD (1 or 2)
 *   "X TASK CODE SIGNAL\n"               task TASK ended
 *   "E MESSAGE\n"                        the step could not start here
 *   "S\n"                                the tasks started: stdin may come
 *   "H\n"                                every 2 s: nothing new
 *   "K LEN\n" then LEN bytes             --mpi=pmi2: every task here is in a
 *                                        PMI fence; its puts, a JSON object
 *   "A TASK CODE\n"                      task TASK called PMI_Abort
 *
 * The heartbeat is also how a vanished srun is noticed: once a write fails
 * the step's tasks are killed, within a few seconds.
 */
#ifndef HERD_NODED_STEP_H
#define HERD_NODED_STEP_H

#include <stdbool.h>
#include <sys/types.h>

#include "common/http.h"

struct agent;

/* POST /v1/steps {"job_id", "step_id", "argv": [...], "env": [...], "cwd",
 *                 "mpi": "none" or "pmi2", "stdin": "all", "none" or a rank} */
void step_launch(struct http_req *r);
/* POST /v1/steps/signal {"job_id", "step_id", "signal"} */
void step_signal(struct http_req *r);
/* POST /v1/steps/stdin {"job_id", "step_id", "data": base64, "eof": bool,
 *                       "pty": {"rows", "cols"} when srun's terminal resized}:
 * srun's stdin, for the tasks the launch's "stdin" named ("all", a task
 * rank, or "none"): step_stdin.c. */
void step_stdin(struct http_req *r);
/* POST /v1/steps/pmi {"job_id", "step_id", "kvs": {...}}: srun hands back
 * every node's puts of a fence (src/noded/pmi.h); the fence ends here. */
void step_pmi_fence(struct http_req *r);

/* A child ended (herdd's SIGCHLD reaps them all): true when it was a task. */
bool step_reaped(struct agent *a, pid_t pid, int status);
/* herdd stops: every task of every step is killed; then freed. */
void step_kill_all(struct agent *a);
void step_free_all(struct agent *a);
/* A step of job_id runs here (its tasks started, not all reported). */
bool step_runs_job(const struct agent *a, int64_t job_id);

#endif
