/*
 * rest: what every slurmrestd-style answer shares (the envelope of meta,
 * errors and warnings; its number and state shapes) and the two small
 * endpoints, ping and diag. See rest.h.
 */
#include <event2/buffer.h>
#include <event2/http.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/slurm_errno.h"
#include "ctld/api.h"
#include "ctld/ctld.h"
#include "ctld/rest.h"

/* The Slurm release whose slurmrestd spoke v0.0.40 (23.11): what a client
 * reading meta.slurm.version expects to find with this dialect. */
#define REST_SLURM_MAJOR "23"
#define REST_SLURM_MINOR "11"
#define REST_SLURM_MICRO "0"

json_t *rest_noval(int64_t n)
{
    return json_pack("{s:b, s:b, s:I}", "set", 1, "infinite", 0, "number", (json_int_t)n);
}

json_t *rest_noval_unset(void)
{
    return json_pack("{s:b, s:b, s:i}", "set", 0, "infinite", 0, "number", 0);
}

json_t *rest_noval_infinite(void)
{
    return json_pack("{s:b, s:b, s:i}", "set", 0, "infinite", 1, "number", 0);
}

json_t *rest_noval_time(int64_t t)
{
    return t > 0 ? rest_noval(t) : rest_noval_unset();
}

json_t *rest_noval_minutes(int64_t min)
{
    return min < 0 ? rest_noval_infinite() : rest_noval(min);
}

json_t *rest_csv(const char *s)
{
    json_t *a = json_array();
    while (s && *s) {
        size_t n = strcspn(s, ",");
        if (n)
            json_array_append_new(a, json_stringn(s, n));
        s += n + (s[n] == ',');
    }
    return a;
}

/* "IDLE+DRAIN*": IDLE, DRAIN and NOT_RESPONDING, as slurmrestd lists a
 * node's base state and its flags. */
json_t *rest_state_words(const char *state)
{
    json_t *a = json_array();
    char buf[64];
    snprintf(buf, sizeof buf, "%s", state ? state : "UNKNOWN");
    size_t len = strlen(buf);
    bool silent = len && buf[len - 1] == '*';
    if (silent)
        buf[len - 1] = '\0';
    for (char *save = NULL, *w = strtok_r(buf, "+", &save); w; w = strtok_r(NULL, "+", &save))
        json_array_append_new(a, json_string(w));
    if (silent)
        json_array_append_new(a, json_string("NOT_RESPONDING"));
    return a;
}

json_t *rest_exit_code(bool ended, int code, int sig)
{
    const char *status = !ended ? "PENDING" : sig ? "SIGNALED" : code ? "ERROR" : "SUCCESS";
    const char *name = sig > 0 && sig < NSIG ? sigabbrev_np(sig) : NULL;
    json_t *signal = json_pack("{s:o, s:s}", "id", sig ? rest_noval(sig) : rest_noval_unset(),
                               "name", name ? name : "");
    return json_pack("{s:[s], s:o, s:o}", "status", status, "return_code",
                     ended ? rest_noval(code) : rest_noval_unset(), "signal", signal);
}

/* Who asked, as slurmrestd's meta.client says. */
static json_t *meta_client(const struct http_req *r)
{
    char user[64], group[64];
    struct passwd *pw = r->anon ? NULL : getpwuid(r->who.uid);
    struct group *gr = r->anon ? NULL : getgrgid(r->who.gid);
    snprintf(user, sizeof user, "%s", pw ? pw->pw_name : "");
    if (!pw && !r->anon)
        snprintf(user, sizeof user, "%u", (unsigned)r->who.uid);
    snprintf(group, sizeof group, "%s", gr ? gr->gr_name : "");
    if (!gr && !r->anon)
        snprintf(group, sizeof group, "%u", (unsigned)r->who.gid);
    return json_pack("{s:s, s:s, s:s}", "source", r->via_tcp ? "tcp" : "unix", "user", user,
                     "group", group);
}

static json_t *meta(const struct http_req *r)
{
    const struct ctld *c = r->ctx;
    bool db = strncmp(evhttp_request_get_uri(r->ev), "/slurmdb/", 9) == 0;
    return json_pack("{s:{s:s, s:s, s:s, s:s}, s:o, s:[], s:{s:{s:s, s:s, s:s}, s:s, s:s}}",
                     "plugin", "type", db ? "openapi/slurmdbd" : "openapi/slurmctld", "name",
                     db ? "Slurm OpenAPI slurmdbd" : "Slurm OpenAPI slurmctld", "data_parser",
                     "data_parser/v0.0.40", "accounting_storage", "accounting_storage/herd",
                     "client", meta_client(r), "command", "slurm", "version", "major",
                     REST_SLURM_MAJOR, "micro", REST_SLURM_MICRO, "minor", REST_SLURM_MINOR,
                     "release", REST_SLURM_MAJOR "." REST_SLURM_MINOR "." REST_SLURM_MICRO,
                     "cluster", c->conf->cluster_name);
}

void rest_reply(struct http_req *r, json_t *body, json_t *warnings)
{
    json_object_set_new(body, "meta", meta(r));
    json_object_set_new(body, "errors", json_array());
    json_object_set_new(body, "warnings", warnings ? warnings : json_array());
    http_reply(r, 200, body);
}

void rest_reply_list(struct http_req *r, const char *key, struct evbuffer *items, json_t *rest)
{
    json_object_set_new(rest, "meta", meta(r));
    json_object_set_new(rest, "errors", json_array());
    json_object_set_new(rest, "warnings", json_array());
    char *tail = json_dumps(rest, JSON_COMPACT);   /* "{...}": its fields follow the list */
    json_decref(rest);
    struct evbuffer *buf = evbuffer_new();
    evbuffer_add_printf(buf, "{\"%s\":[", key);
    evbuffer_add_buffer(buf, items);
    evbuffer_add_printf(buf, "],%s\n", tail + 1);
    free(tail);
    http_reply_buffer(r, 200, buf);
    evbuffer_free(buf);
}

void rest_list_add(struct evbuffer *items, json_t *item)
{
    char *text = json_dumps(item, JSON_COMPACT);
    json_decref(item);
    if (evbuffer_get_length(items))
        evbuffer_add(items, ",", 1);
    evbuffer_add(items, text, strlen(text));
    free(text);
}

/* As slurmrestd: its own query and parsing errors (the ESLURM_REST_* and
 * ESLURM_DATA_* codes, 9000 up) are the client's, 400; what slurmctld
 * refused is answered 500 with the code in the body. */
static int status_of(int code)
{
    if (code >= 9000 && code < 9300)
        return 400;
    return 500;
}

void rest_error(struct http_req *r, int code, const char *error, const char *source,
                const char *fmt, ...)
{
    char desc[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(desc, sizeof desc, fmt, ap);
    va_end(ap);
    json_t *e = json_pack("{s:s, s:i, s:s, s:s}", "description", desc, "error_number", code,
                          "error", error, "source", source);
    json_t *body = json_object();
    json_object_set_new(body, "meta", meta(r));
    json_object_set_new(body, "errors", json_pack("[o]", e));
    json_object_set_new(body, "warnings", json_array());
    http_reply(r, status_of(code), body);
}

json_t *rest_warning(const char *source, const char *fmt, ...)
{
    char desc[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(desc, sizeof desc, fmt, ap);
    va_end(ap);
    return json_pack("{s:s, s:s}", "description", desc, "source", source);
}

/* GET /slurm/v0.0.40/ping: one controller, answering (it is this one). */
void rest_ping(struct http_req *r)
{
    const struct ctld *c = r->ctx;
    json_t *p = json_pack("{s:s, s:s, s:I, s:s}", "hostname", c->conf->ctld_host, "pinged", "UP",
                          "latency", (json_int_t)0, "mode", "primary");
    rest_reply(r, json_pack("{s:[o]}", "pings", p), NULL);
}

/* The /v1/diag counters under slurmrestd's names. */
static void diag_copy(json_t *to, const char *to_key, json_t *from, const char *from_key)
{
    json_t *v = json_object_get(from, from_key);
    json_object_set_new(to, to_key, v ? json_incref(v) : json_integer(0));
}

void rest_diag(struct http_req *r)
{
    const struct ctld *c = r->ctx;
    json_t *d = api_diag_json(c);
    static const char *const same[] = {
        "jobs_submitted",       "jobs_started",        "jobs_completed",
        "jobs_canceled",        "jobs_failed",         "jobs_pending",
        "jobs_running",         "schedule_cycle_last", "schedule_cycle_max",
        "schedule_cycle_total", "schedule_cycle_mean", "schedule_queue_length",
    };
    json_t *s = json_object();
    for (size_t i = 0; i < sizeof same / sizeof *same; i++)
        diag_copy(s, same[i], d, same[i]);
    diag_copy(s, "schedule_cycle_mean_depth", d, "schedule_cycle_depth_mean");
    json_object_set_new(s, "req_time",
                        rest_noval(json_integer_value(json_object_get(d, "req_time"))));
    json_object_set_new(s, "req_time_start",
                        rest_noval(json_integer_value(json_object_get(d, "req_time_start"))));
    json_object_set_new(s, "server_thread_count", json_integer(1));   /* one event loop */
    json_object_set_new(s, "agent_queue_size", json_integer(0));
    json_decref(d);
    rest_reply(r, json_pack("{s:o}", "statistics", s), NULL);
}
