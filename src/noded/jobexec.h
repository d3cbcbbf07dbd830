/*
 * jobexec: the job's own process, between the supervisor's fork and the
 * script's exec: a new session, the user's identity (nothing of root kept),
 * umask, working directory, the I/O files opened as the user (so a user
 * cannot write where they could not), the environment, then the script.
 */
#ifndef HERD_NODED_JOBEXEC_H
#define HERD_NODED_JOBEXEC_H

struct job_spec;
struct jobcg;

/* Never returns: execs the script, or exits 1 when the job cannot start.
 * sync_fd is closed once the new session (and process group) exists and
 * the process is in cg (when not NULL); it then waits for a byte on go_fd
 * (the prolog has passed) and exits 1 when the supervisor closes it. */
void jobexec_run(const struct job_spec *js, const char *script, const char *conf_path,
                 int sync_fd, int go_fd, const struct jobcg *cg) __attribute__((noreturn));

/* A child's signals as a new program expects them: none blocked, all default. */
void jobexec_reset_signals(void);

/* Becomes the job's user: initgroups, setgid, setuid, in that order. A herdd
 * that is not root can only run its own user's jobs. 0 or -1 with errno. */
int jobexec_become_user(const struct job_spec *js);

#endif
