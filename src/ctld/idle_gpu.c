/* The idle-GPU policy (IdleGPUPolicy): a running job whose GPUs all stayed
 * under the threshold for flag_after is flagged and its user told (the
 * notify program, and MailProg to --mail-user or the user); action_after
 * later it is cancelled or requeued, with Reason IdleGPU and the story in
 * AdminComment. A job that uses its GPUs again loses the flag. */
#include "ctld/gpu_live.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "ctld/array.h"
#include "ctld/ctld.h"
#include "ctld/prio.h"

static bool exempt(const struct ctld *c, const struct job *j)
{
    const struct conf_idle_gpu *p = &c->conf->idle_gpu;
    return conf_idle_gpu_listed(p->exempt_qos, prio_job_qos(c, j)) ||
           conf_idle_gpu_listed(p->exempt_accounts, prio_job_account(c, j)) ||
           conf_idle_gpu_listed(p->exempt_users, j->user_name);
}

static char *mail_to(const struct ctld *c, const struct job *j)
{
    json_t *spec = job_spec(c, j);
    const char *m = json_string_value(json_object_get(spec, "mail_user"));
    char *to = xstrdup(m && *m ? m : j->user_name);
    json_decref(spec);
    return to;
}

/* Runs argv with env added to ours, detached (a grandchild, reaped by
 * init), its output discarded: the controller never waits on it. The
 * environment is built before fork, since the controller has threads and
 * the child may only make async-signal-safe calls. */
static void spawn(char *const argv[], char *const env[])
{
    extern char **environ;
    size_t n = 0, k = 0;
    while (environ[n])
        n++;
    while (env[k])
        k++;
    char **envp = xcalloc(n + k + 1, sizeof *envp);
    memcpy(envp, env, k * sizeof *envp);
    memcpy(envp + k, environ, n * sizeof *envp);
    pid_t pid = fork();
    if (pid < 0)
        log_warn("idle-GPU policy: cannot run %s", argv[0]);
    else if (pid == 0) {
        if (fork() != 0)
            _exit(0);
        setsid();
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGPIPE, SIG_DFL);   /* as a program expects it, not as the controller set it */
        int fd = open("/dev/null", O_RDWR);
        if (fd >= 0) {
            dup2(fd, 0);
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execve(argv[0], argv, envp);
        _exit(127);
    } else
        waitpid(pid, NULL, 0);
    free(envp);
}

/* event: flagged, cancelled, requeued, would_cancel, would_requeue. */
static void tell(const struct ctld *c, const struct job *j, const char *event, const char *text)
{
    const struct conf_idle_gpu *p = &c->conf->idle_gpu;
    char *env[] = {
        xasprintf("SLURM_JOB_ID=%llu", (unsigned long long)j->id),
        xasprintf("SLURM_JOB_USER=%s", j->user_name),
        xasprintf("SLURM_JOB_UID=%u", (unsigned)j->uid),
        xasprintf("SLURM_JOB_NAME=%s", j->name),
        xasprintf("SLURM_JOB_ACCOUNT=%s", prio_job_account(c, j)),
        xasprintf("HERD_IDLE_GPU_EVENT=%s", event),
        xasprintf("HERD_IDLE_GPU_MESSAGE=%s", text),
        NULL,
    };
    if (p->notify) {
        char *argv[] = { p->notify, NULL };
        spawn(argv, env);
    }
    if (c->conf->mail_prog) {
        char *subject = xasprintf("Herd Job_id=%llu Name=%s Idle GPUs: %s",
                                  (unsigned long long)j->id, j->name, text);
        char *to = mail_to(c, j);
        char *argv[] = { c->conf->mail_prog, "-s", subject, to, NULL };
        spawn(argv, env);
        free(subject);
        free(to);
    }
    for (size_t i = 0; env[i]; i++)
        free(env[i]);
}

static void flag(struct ctld *c, struct job *j, int64_t now, int64_t since)
{
    const struct conf_idle_gpu *p = &c->conf->idle_gpu;
    j->gpu->flagged_at = now;
    char text[256];
    int n = snprintf(text, sizeof text, "all its GPUs under %d%% since %lld s ago", p->threshold_pct,
                     (long long)(now - since));
    if (p->action != CONF_IDLE_NONE && n > 0 && (size_t)n < sizeof text)
        snprintf(text + n, sizeof text - (size_t)n, "; it will be %s in %lld s unless they are used",
                 p->action == CONF_IDLE_CANCEL ? "cancelled" : "requeued",
                 (long long)p->action_after_s);
    log_info("job %llu: idle GPUs: %s", (unsigned long long)j->id, text);
    tell(c, j, "flagged", text);
    job_save(c, j);
}

static void act(struct ctld *c, struct job *j, int64_t now)
{
    const struct conf_idle_gpu *p = &c->conf->idle_gpu;
    bool cancel = p->action == CONF_IDLE_CANCEL;
    j->gpu->acted_at = now;
    char text[256];
    snprintf(text, sizeof text, "%s by the idle-GPU policy: its GPUs stayed under %d%% for %lld s",
             p->dry_run ? (cancel ? "would be cancelled" : "would be requeued")
                        : (cancel ? "cancelled" : "requeued"),
             p->threshold_pct, (long long)(now - j->gpu->flagged_at + p->flag_after_s));
    log_info("job %llu: %s", (unsigned long long)j->id, text);
    tell(c, j, p->dry_run ? (cancel ? "would_cancel" : "would_requeue")
                          : (cancel ? "cancelled" : "requeued"), text);
    if (p->dry_run) {
        job_save(c, j);
        return;
    }
    free(j->gpu->note);
    j->gpu->note = xasprintf("Idle GPUs: %s", text);
    free(j->gpu->end_reason);
    j->gpu->end_reason = xstrdup("IdleGPU");
    if (cancel) {
        size_t hit = 0, acted = 0;
        array_cancel_record(c, j, 0, 0, SIG_FULL, &hit, &acted);
    } else if (!j->requeue_pending && !j->cancel_sent) {
        j->requeue_pending = true;
        launch_signal(c, j, SIGTERM, true, SIG_FULL);
    }
    job_save(c, j);
}

void idle_gpu_check(struct ctld *c, struct job *j, int64_t now)
{
    const struct conf_idle_gpu *p = &c->conf->idle_gpu;
    if (p->flag_after_s <= 0 || j->state != JOB_RUNNING || exempt(c, j))
        return;
    json_t *live = gpu_live_summary(j);
    json_t *gpu = json_object_get(live, "gpu");
    int64_t since = json_integer_value(json_object_get(gpu, "idle_since"));
    json_decref(live);
    if (!since) {
        if (j->gpu->flagged_at && !j->gpu->acted_at) {
            log_info("job %llu: its GPUs are in use again; idle flag cleared",
                     (unsigned long long)j->id);
            j->gpu->flagged_at = 0;
            job_save(c, j);
        }
        return;
    }
    if (!j->gpu->flagged_at && now - since >= p->flag_after_s)
        flag(c, j, now, since);
    else if (j->gpu->flagged_at && !j->gpu->acted_at && p->action != CONF_IDLE_NONE &&
             now - j->gpu->flagged_at >= p->action_after_s)
        act(c, j, now);
}
