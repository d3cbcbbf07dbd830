/*
 * seff JOBID: the efficiency report of a job (seff_report.c) from its
 * accounting record, which the controller keeps for running and finished
 * jobs alike; a running job's live GPU figures come from its job entry.
 */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"
#include "client/cmdutil.h"
#include "client/paths.h"
#include "cmd/cmds.h"
#include "cmd/seff.h"
#include "common/conf.h"
#include "common/xmalloc.h"

#define PROG "seff"

static json_t *get(const char *path)
{
    json_t *resp = NULL;
    char err[256];
    int st = client_call(PROG, "GET", path, NULL, &resp, err, sizeof err);
    if (st == 200)
        return resp;
    json_decref(resp);
    return NULL;
}

int cmd_seff(int argc, char **argv)
{
    if (argc != 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        fprintf(stderr, "Usage: seff [Options] <Jobid>\n       Options:\n"
                        "       -h    Help menu\n");
        return 1;
    }
    uint32_t id = cmd_parse_job_id(argv[1]);
    if (!id) {
        fprintf(stderr, "Usage: seff [Options] <Jobid>\n");
        return 1;
    }
    char path[128];
    snprintf(path, sizeof path, PATH_ACCOUNTING "?ids=%u", id);
    json_t *acct = get(path);
    const json_t *rec = json_object_get(json_array_get(json_object_get(acct, "jobs"), 0), "record");
    if (!rec) {
        fprintf(stderr, "Job not found.\n");
        json_decref(acct);
        return 2;
    }
    json_t *r = json_deep_copy(rec), *live = NULL;
    if (!strcmp(jget_str(r, "state", ""), "RUNNING")) {
        snprintf(path, sizeof path, PATH_JOB("%u"), id);
        live = get(path);
        const json_t *j = json_array_get(json_object_get(live, "jobs"), 0);
        json_t *u = json_object_get(j, "usage_live");
        if (u)
            json_object_set(r, "usage_live", u);
    }
    cmd_json_clean(r);
    gid_t gid = (gid_t)jget_int(r, "gid", 0);
    struct group *g = getgrgid(gid);
    char gname[32];
    snprintf(gname, sizeof gname, "%u", (unsigned)gid);
    int rc = seff_report(stdout, r, id, client_conf(PROG)->cluster_name, g ? g->gr_name : gname,
                         jget_int(acct, "now", 0));
    json_decref(r);
    json_decref(live);
    json_decref(acct);
    return rc;
}
