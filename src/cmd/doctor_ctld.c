/* herd doctor: the controller as this host sees it. One authenticated ping
 * answers four questions: is it reachable, does it decode this host's MUNGE
 * credentials (the same key), do the clocks agree, and are this host's
 * configuration files the ones it has. A configless host's files are
 * fetched here, for the checks that need them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#include "client/clock.h"
#include "cmd/doctor.h"
#include "common/conf.h"
#include "common/conf_hash.h"
#include "common/confless.h"
#include "common/http.h"

#define PING_TIMEOUT_S 10
#define SKEW_WARN_S 2      /* sacct's times drift apart */
#define SKEW_FAIL_S 10     /* time limits and MUNGE's 300 s credentials go wrong */

struct answer {
    int status;
    json_t *body;
};

/* GET path on the controller; *mid: the local time halfway through. */
static struct answer ask(const struct doctor *d, const char *path, double *mid)
{
    struct answer a;
    double t0 = (double)client_now();
    a.status = http_call_wait(d->munge_socket, d->ctld_host, d->ctld_port, "GET", path, NULL,
                              PING_TIMEOUT_S, &a.body);
    *mid = (t0 + (double)client_now()) / 2;
    return a;
}

static void refused(struct doctor *d, const char *why)
{
    const char *at = d->ctld_host;
    if (strstr(why, "Invalid credential"))
        doctor_say(d, DOC_FAIL, "munge key", "MUNGE key differs from the controller's: %s:%d "
                   "cannot decode this host's credentials (%s). Copy /etc/munge/munge.key "
                   "from the controller and restart munge", at, d->ctld_port, why);
    else if (strstr(why, "Expired credential") || strstr(why, "Rewound credential"))
        doctor_say(d, DOC_FAIL, "clock", "the controller %s refuses this host's credentials "
                   "as out of date (%s): the clocks differ by minutes; run chrony or ntp on "
                   "both", at, why);
    else
        doctor_say(d, DOC_FAIL, "controller", "%s:%d refuses this host's credentials: %s", at,
                   d->ctld_port, why);
}

static void clock_skew(struct doctor *d, const json_t *body, double mid)
{
    json_t *now = json_object_get(body, "now");
    if (!json_is_integer(now))
        return;
    double skew = (double)json_integer_value(now) - mid;
    double mag = skew < 0 ? -skew : skew;
    if (mag < SKEW_WARN_S)
        doctor_say(d, DOC_OK, "clock", "within %d s of the controller's", SKEW_WARN_S);
    else
        doctor_say(d, mag < SKEW_FAIL_S ? DOC_WARN : DOC_FAIL, "clock", "%.0f s %s the "
                   "controller's: run chrony or ntp on both (time limits, sacct's times and "
                   "MUNGE credentials depend on it)", mag, skew < 0 ? "ahead of" : "behind");
}

/* A host with no slurm.conf of its own: its files as a configless agent
 * would fetch them. */
static void fetch_conf(struct doctor *d)
{
    char err[512], dir[] = "/tmp/herd-doctor-XXXXXX";
    if (!mkdtemp(dir)) {
        doctor_say(d, DOC_WARN, "slurm.conf", "cannot make a directory to fetch it into");
        return;
    }
    snprintf(d->fetched, sizeof d->fetched, "%s", dir);
    if (confless_fetch(d->ctld_host, d->ctld_port, d->munge_socket, dir, NULL, 0, err,
                       sizeof err) < 0) {
        doctor_say(d, DOC_FAIL, "slurm.conf", "none on this host (%s), and %s",
                   conf_default_path(), err);
        return;
    }
    char *path = NULL;
    if (asprintf(&path, "%s/slurm.conf", dir) < 0)
        return;
    d->conf = conf_load(path, err, sizeof err);
    if (d->conf)
        doctor_say(d, DOC_OK, "slurm.conf", "none on this host; the controller serves it "
                   "(configless)");
    else
        doctor_say(d, DOC_FAIL, "slurm.conf", "the controller's does not parse: %s", err);
    free(path);
}

static void same_files(struct doctor *d, const json_t *body)
{
    const char *theirs = json_string_value(json_object_get(body, "conf_hash"));
    if (!d->conf_path || !theirs)
        return;
    json_t *files = conf_hash_files(d->conf_path);
    char *ours = conf_hash_of(files);
    json_decref(files);
    if (!strcmp(ours, theirs))
        doctor_say(d, DOC_OK, "config", "%s (and gres.conf, cgroup.conf beside it) the same "
                   "as the controller's", d->conf_path);
    else
        doctor_say(d, DOC_FAIL, "config", "%s (or gres.conf, cgroup.conf beside it) differs "
                   "from the controller's files (hash %s here, %s there): copy them from the "
                   "controller, or run this host configless", d->conf_path, ours, theirs);
    free(ours);
}

void doctor_controller(struct doctor *d)
{
    if (!d->ctld_host[0])
        return;
    if (!d->munged_ok) {
        doctor_say(d, DOC_WARN, "controller", "%s:%d not asked: without munged this host "
                   "cannot prove who it is", d->ctld_host, d->ctld_port);
        return;
    }
    double mid = 0;
    struct answer a = ask(d, "/v1/ping?conf_hash=1", &mid);
    const char *why = json_string_value(json_object_get(a.body, "error"));
    if (a.status == 200) {
        d->ctld_answers = true;
        doctor_say(d, DOC_OK, "controller", "%s:%d answers (cluster %s) and decodes this "
                   "host's MUNGE credentials", d->ctld_host, d->ctld_port,
                   json_string_value(json_object_get(a.body, "cluster")) ?: "?");
        clock_skew(d, a.body, mid);
        if (!d->conf_path)
            fetch_conf(d);
        else
            same_files(d, a.body);
    } else if (a.status == 401 && why) {
        refused(d, why);
    } else {
        doctor_say(d, DOC_FAIL, "controller", "cannot reach %s:%d (%s): is herdctld running "
                   "there, and the port open to this host?", d->ctld_host, d->ctld_port,
                   why ? why : a.status ? "unexpected answer" : "no answer");
    }
    json_decref(a.body);
}

void doctor_forget_fetched(struct doctor *d)
{
    static const char *const names[] = { "slurm.conf", "gres.conf", "cgroup.conf" };
    if (!d->fetched[0])
        return;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[128];
        snprintf(path, sizeof path, "%s/%s", d->fetched, names[i]);
        unlink(path);
    }
    rmdir(d->fetched);
}
