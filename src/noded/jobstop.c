/*
 * jobstop: POST /v1/suspend {"job_id", "suspend": bool, "grace": seconds}
 * from the controller: the job's supervisor here suspends or resumes it
 * (supstop.c), and so do the tasks of its steps that the supervisor does
 * not reach: those outside the job's cgroup (a node without one, or one
 * that is not the batch node), which are herdd's children.
 */
#include <signal.h>

#include "common/http.h"
#include "common/log.h"
#include "common/slurm_errno.h"
#include "noded/agent.h"
#include "noded/cgroup.h"
#include "noded/step_int.h"
#include "noded/supervisor.h"
#include "noded/sysops.h"

static void signal_step(const struct astep *st, int sig)
{
    if (st->pgid > 1)
        sys->kill(-st->pgid, sig);
    if (st->pty_pid > 1)   /* --pty: task 0 leads a session of its own */
        sys->kill(-st->pty_pid, sig);
}

/* covered: the supervisor's freeze of the job's cgroup holds them already */
static int steps_stop(struct agent *a, int64_t job_id, bool stop, bool covered)
{
    int n = 0;
    for (struct astep *st = a->steps; st; st = st->next) {
        if (st->job_id != job_id || !st->layout)
            continue;
        n++;
        if (covered && st->cg && !st->cg_own)
            continue;
        if (st->cg && jobcg_freeze(st->cg, stop) == 0 && stop)
            continue;
        signal_step(st, stop ? SIGSTOP : SIGCONT);
    }
    return n;
}

void agent_job_thaw_steps(struct agent *a, int64_t job_id)
{
    steps_stop(a, job_id, false, false);
}

void agent_job_suspend_req(struct http_req *r)
{
    struct agent *a = r->ctx;
    json_t *jid = json_object_get(r->body, "job_id");
    json_t *jstop = json_object_get(r->body, "suspend");
    json_t *jgrace = json_object_get(r->body, "grace");
    json_int_t grace = jgrace ? json_integer_value(jgrace) : 0;
    if (!json_is_integer(jid) || !json_is_boolean(jstop) || (jgrace && !json_is_integer(jgrace))
        || grace < 0 || grace > SUP_SIG_GRACE_MASK) {
        http_reply_error(r, 400, SLURM_ERROR,
                         "suspend request needs job_id, suspend (bool), grace (0-4095 s)");
        return;
    }
    bool stop = json_is_true(jstop);
    int64_t id = json_integer_value(jid);
    struct ajob *j = agent_job_find(a, id);
    if (j && j->ended)
        j = NULL;
    int v = stop ? SUP_SIG_SUSPEND | (int)grace : SUP_SIG_RESUME;
    if (j && j->starting)
        launch_defer_signal(j, v, false, false);
    else if (j)
        agent_job_signal(j, v, false, false);
    int nsteps = steps_stop(a, id, stop, j && j->sup_pid > 1);
    if (!j && nsteps == 0) {
        http_reply_error(r, 404, ESLURM_INVALID_JOB_ID, "Invalid job id specified");
        return;
    }
    log_info("job %lld: %s%s", (long long)id, stop ? "suspend" : "resume",
             stop && grace ? ", after SIGTSTP's grace" : "");
    http_reply(r, 200, NULL);
}
