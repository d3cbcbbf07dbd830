/*
 * local: what herdd tells root on its own node, for pam_herd_adopt (the
 * PAM module that lets a user ssh only into nodes where they run a job,
 * as Slurm's pam_slurm_adopt). It is asked on SPOOL/herdd.sock, a Unix
 * socket only root can open (0600 in a spool only root can list): the
 * module runs as root inside sshd, so the kernel vouches for it, with no
 * MUNGE and no port to find. The routes are HTTP_ROLE_ROOT, so the TCP
 * port answers them only to a root MUNGE credential too.
 *
 *   GET  /v1/local/jobs?uid=N     {"node": NAME, "jobs": [{"job_id", "start_time",
 *                                  "cgroup": true|false}, ...]}  the uid's running jobs
 *   POST /v1/local/adopt          {"job_id", "pid"}: pid joins the job's cgroups
 *                                  (200; 409 the job has no cgroup; 404 no such job)
 */
#ifndef HERD_NODED_LOCAL_H
#define HERD_NODED_LOCAL_H

#define LOCAL_SOCK_NAME "herdd.sock"

struct agent;
struct http_req;

/* Listens on SPOOL/herdd.sock; logged, not fatal, when it cannot (a node
 * without it only refuses every ssh login through the module). */
void local_listen(struct agent *a);

void local_jobs_req(struct http_req *r);
void local_adopt_req(struct http_req *r);

#endif
