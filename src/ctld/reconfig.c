#include "ctld/reconfig.h"

#include <stdbool.h>
#include <string.h>

#include "common/conf.h"
#include "common/log.h"
#include "ctld/api.h"
#include "ctld/ctld.h"

/* What a re-read slurm.conf may change in place; the rest (nodes and
 * partitions added, removed or reshaped) needs a restart. */
static bool same_shape(const struct conf *a, const struct conf *b)
{
    if (a->nnodes != b->nnodes || a->nparts != b->nparts)
        return false;
    for (size_t i = 0; i < a->nnodes; i++)
        if (strcmp(a->nodes[i].name, b->nodes[i].name) || a->nodes[i].cpus != b->nodes[i].cpus ||
            a->nodes[i].mem_mb != b->nodes[i].mem_mb || a->nodes[i].gpus != b->nodes[i].gpus)
            return false;
    for (size_t i = 0; i < a->nparts; i++)
        if (strcmp(a->parts[i].name, b->parts[i].name) || a->parts[i].nnodes != b->parts[i].nnodes)
            return false;
    return true;
}

int ctld_reconfigure(struct ctld *c, char *err, size_t errlen)
{
    struct conf *nc = conf_load(c->conf->path, err, errlen);
    if (!nc)
        return -1;
    bool shape = same_shape(c->conf, nc);
    for (size_t i = 0; shape && i < nc->nparts; i++) {
        part_set(c, i, nc->parts[i].up, nc->parts[i].max_time_min,
                 nc->parts[i].default_time_min);
        char *q = c->conf->parts[i].qos;   /* the partition's QOS=: its limits apply */
        c->conf->parts[i].qos = nc->parts[i].qos;
        nc->parts[i].qos = q;
    }
    if (shape)
        parts_state_clear(c);   /* slurm.conf is the word again, as after Slurm's reconfigure */
    c->conf->kill_wait = nc->kill_wait;
    c->conf->slurmd_timeout = nc->slurmd_timeout;
    c->conf->min_job_age = nc->min_job_age;
    c->conf->max_job_count = nc->max_job_count;
    c->conf->return_to_service = nc->return_to_service;
    c->conf->acct_enforce = nc->acct_enforce;
    metrics_conf_take(c->conf, nc);
    struct conf_idle_gpu idle = c->conf->idle_gpu;   /* swapped: nc frees the old one */
    c->conf->idle_gpu = nc->idle_gpu;
    nc->idle_gpu = idle;
    char *mail = c->conf->mail_prog;
    c->conf->mail_prog = nc->mail_prog;
    nc->mail_prog = mail;
    conf_destroy(nc);
    config_hash_refresh(c);   /* configless agents fetch the edited files */
    if (!shape)
        log_warnx("reconfigure: nodes or partitions changed in %s; restart herdctld to use them",
                  c->conf->path);
    log_info("reconfigured from %s", c->conf->path);
    ctld_sched_request(c);
    return shape ? 0 : 1;
}
