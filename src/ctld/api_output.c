/*
 * api_output: GET /v1/jobs/{id}/output, the tail of a batch job's output
 * file for the dashboard's job page. Everyone may see every job (as Slurm's
 * default PrivateData), but its output only its owner and the admins (root,
 * SlurmUser, AdminLevel Operator or Administrator). The controller never
 * opens the file: the path is the user's to choose, and read as root it
 * could be a link to anything. The node agent that ran the job reads it as
 * the job's uid and gid (src/noded/outtail.c) and the answer is passed on.
 */
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/fname.h"
#include "common/http.h"
#include "common/slurm_errno.h"
#include "common/xmalloc.h"
#include "ctld/api.h"
#include "ctld/ctld.h"

#define OUTPUT_TAIL_BYTES (64 * 1024)
#define OUTPUT_TIMEOUT_S 10

/* The batch step's stdout as the node agent opened it (src/noded/jobenv.c):
 * the pattern expanded on the batch node, relative to the work dir. */
static char *output_path(const struct ctld *c, const struct job *j, const json_t *spec)
{
    const char *pat = json_string_value(json_object_get(spec, "stdout"));
    const char *wd = json_string_value(json_object_get(spec, "work_dir"));
    struct fname_vals v = {
        .job_id = (int64_t)j->id, .array_job_id = (int64_t)j->array_job_id,
        .array_task_id = j->array_task_id, .step_id = FNAME_BATCH_STEP,
        .node_name = c->conf->nodes[j->allocs[0].node].name, .user_name = j->user_name,
        .job_name = j->name,
    };
    char *name = fname_expand(pat && pat[0] ? pat : fname_default(&v), &v);
    char *path = NULL;
    if (name[0] == '/')
        path = xstrdup(name);
    else if (wd && wd[0] == '/')
        path = xasprintf("%s%s%s", wd, wd[strlen(wd) - 1] == '/' ? "" : "/", name);
    free(name);
    return path;
}

static void output_done(int status, json_t *body, void *arg)
{
    struct http_req *r = arg;
    if (status == 200) {
        http_reply(r, 200, json_incref(body));
        return;
    }
    const char *why = json_string_value(json_object_get(body, "error"));
    if (status == 0)
        http_reply_error(r, 502, SLURM_ERROR, "the job's node did not answer");
    else
        http_reply_error(r, status == 404 ? 404 : 403, SLURM_ERROR, "%s",
                         why ? why : "the job's node could not read it");
}

void api_job_output(struct http_req *r)
{
    struct ctld *c = r->ctx;
    struct job *j = api_path_job(r);
    if (!j)
        return;
    if (j->uid != r->who.uid && !api_is_operator(c, r->who.uid)) {
        http_reply_error(r, 403, ESLURM_ACCESS_DENIED, API_MSG_DENIED);
        return;
    }
    if (!j->nallocs || !j->start_time) {
        http_reply_error(r, 404, SLURM_ERROR, "the job has not started");
        return;
    }
    json_t *spec = job_spec(c, j);
    if (json_is_true(json_object_get(spec, "allocation"))) {
        json_decref(spec);
        http_reply_error(r, 404, SLURM_ERROR, "the job has no batch output (srun or salloc)");
        return;
    }
    char *path = output_path(c, j, spec);
    json_decref(spec);
    if (!path) {
        http_reply_error(r, 404, SLURM_ERROR, "the job's output path is not known");
        return;
    }
    const struct conf_node *cn = c->nodes[j->allocs[0].node].conf;
    json_t *body = json_pack("{s:s, s:I, s:I, s:i}", "path", path, "uid", (json_int_t)j->uid,
                             "gid", (json_int_t)j->gid, "bytes", OUTPUT_TAIL_BYTES);
    free(path);
    http_call(c->base, c->conf->munge_socket, cn->addr, cn->port, "POST", "/v1/output", body,
              OUTPUT_TIMEOUT_S, output_done, r);
}
