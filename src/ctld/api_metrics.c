/*
 * api_metrics: the controller's plain-HTTP GETs, as Slurm 25.11's slurmctld
 * serves them on its port: "/" and "/metrics" (indexes), the metrics
 * endpoints (metrics.h renders them) and the probes /readyz, /livez,
 * /healthz. Their routes are HTTP_ROLE_ANON: Prometheus comes without a
 * MUNGE credential. Who may read the metrics is Slurm's rule: anyone, unless
 * MetricsAuthUsers is set (then those users, root and SlurmUser) or
 * PrivateData is set without MetricsParameters=ignore_private_data (then
 * root and SlurmUser); a caller the rule needs to know and who came without
 * a credential gets 401, one it refuses 403. Without MetricsType the
 * endpoints answer 200 with an empty body, as Slurm's do.
 */
#include <event2/buffer.h>
#include <event2/http.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/openmetrics.h"
#include "common/xmalloc.h"
#include "ctld/api.h"
#include "ctld/metrics.h"

static void reply_text(struct http_req *r, int status, const char *text)
{
    struct evbuffer *b = evbuffer_new();
    evbuffer_add(b, text, strlen(text));
    http_reply_buffer_type(r, status, b, OM_CONTENT_TYPE);
    evbuffer_free(b);
}

/* Slurm's words for a refused request (src/slurmctld/http.c). */
static void reply_failed(struct http_req *r, int status, const char *why)
{
    const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(r->ev);
    const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
    char text[512];
    snprintf(text, sizeof text, "slurmctld HTTP server request for 'GET %s':\nFailed: %s\n",
             path ? path : "/", why);
    reply_text(r, status, text);
}

static bool word_in(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, word, n) == 0)
            return true;
        p = end ? end + 1 : NULL;
    }
    return false;
}

static bool is_slurm_user(const struct conf *cf, uid_t uid)
{
    char buf[1024];
    struct passwd pw, *res = NULL;
    return cf->slurm_user && getpwnam_r(cf->slurm_user, &pw, buf, sizeof buf, &res) == 0 &&
           res && res->pw_uid == uid;
}

static bool listed(const struct conf *cf, uid_t uid)
{
    char buf[1024];
    struct passwd pw, *res = NULL;
    return getpwuid_r(uid, &pw, buf, sizeof buf, &res) == 0 && res &&
           word_in(cf->metrics_auth_users, res->pw_name);
}

/* True when r may read the metrics; otherwise r is answered. */
static bool metrics_allowed(struct http_req *r)
{
    const struct ctld *c = r->ctx;
    const struct conf *cf = c->conf;
    bool private = cf->private_data && !word_in(cf->metrics_params, "ignore_private_data");
    if (!cf->metrics_auth_users && !private)
        return true;
    if (r->anon) {
        reply_failed(r, 401, "Invalid authentication credential");
        return false;
    }
    if (r->who.uid == 0 || is_slurm_user(cf, r->who.uid) ||
        (cf->metrics_auth_users && listed(cf, r->who.uid)))
        return true;
    reply_failed(r, 403, "Operation not permitted");
    return false;
}

static void serve(struct http_req *r, void (*render)(const struct ctld *, struct evbuffer *))
{
    const struct ctld *c = r->ctx;
    if (!metrics_allowed(r))
        return;
    struct evbuffer *b = evbuffer_new();
    if (c->conf->metrics_type) {
        render(c, b);
        om_end(b);
    }
    http_reply_buffer_type(r, 200, b, OM_CONTENT_TYPE);
    evbuffer_free(b);
}

void api_metrics_jobs(struct http_req *r) { serve(r, metrics_jobs); }
void api_metrics_nodes(struct http_req *r) { serve(r, metrics_nodes); }
void api_metrics_partitions(struct http_req *r) { serve(r, metrics_partitions); }
void api_metrics_users_accts(struct http_req *r) { serve(r, metrics_users_accts); }
void api_metrics_sched(struct http_req *r) { serve(r, metrics_sched); }

void api_metrics_index(struct http_req *r)
{
    if (!metrics_allowed(r))
        return;
    reply_text(r, 200, "slurmctld index of metrics endpoints:\n"
                       "  '/metrics/jobs': get job metrics\n"
                       "  '/metrics/nodes': get node metrics\n"
                       "  '/metrics/partitions': get partition metrics\n"
                       "  '/metrics/jobs-users-accts': get user and account jobs metrics\n"
                       "  '/metrics/scheduler': get scheduler metrics\n");
}

/* Slurm's index, less its '/{data_parser}/conf' (scontrol show config is
 * Herd's way to read the configuration). */
void api_http_root(struct http_req *r)
{
    reply_text(r, 200, "slurmctld index of endpoints:\n"
                       "  '/readyz': check slurmctld is servicing RPCs\n"
                       "  '/livez': check slurmctld is running\n"
                       "  '/healthz': check slurmctld is running\n"
                       "  '/metrics': print available metric endpoints\n");
}

/* Answering at all is the proof: this runs on the loop every RPC runs on. */
void api_probe(struct http_req *r)
{
    struct evbuffer *b = evbuffer_new();
    http_reply_buffer_type(r, 204, b, NULL);
    evbuffer_free(b);
}

void metrics_conf_take(struct conf *dst, struct conf *src)
{
    char **pairs[][2] = {
        { &dst->metrics_type, &src->metrics_type },
        { &dst->metrics_auth_users, &src->metrics_auth_users },
        { &dst->metrics_params, &src->metrics_params },
        { &dst->private_data, &src->private_data },
    };
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
        char *t = *pairs[i][0];
        *pairs[i][0] = *pairs[i][1];
        *pairs[i][1] = t;
    }
}
