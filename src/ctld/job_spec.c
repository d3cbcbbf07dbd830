/*
 * job_spec: a job's spec, the request as submitted less script and
 * environment. It lives in the store, inside the job's record: kept in
 * memory it was 272 B of a pending job's 928 B, and nothing a pass, a
 * listing or squeue reads needs it (what they read is copied out into the
 * job when it is set). A spec just set waits in j->spec, as compact JSON
 * text, until job_save writes it; job_spec reads it from there or from the
 * store.
 */
#include <stdlib.h>
#include <string.h>

#include "common/json_fast.h"
#include "common/xmalloc.h"
#include "common/log.h"
#include "ctld/ctld.h"
#include "ctld/store.h"

static const char *opt_str(json_t *spec, const char *key)
{
    const char *s = json_string_value(json_object_get(spec, key));
    return s && *s ? intern(s) : NULL;
}

/* sbatch sends --nice as given (a string; "100" for a bare --nice). */
static int64_t nice_of(json_t *spec)
{
    json_t *v = json_object_get(spec, "nice");
    const char *s = json_string_value(v);
    return json_is_integer(v) ? json_integer_value(v) : s && *s ? strtoll(s, NULL, 10) : 0;
}

void job_spec_set(struct job *j, json_t *spec)
{
    json_t *kept = json_copy(spec);   /* shallow: only the two big keys leave */
    json_object_del(kept, "script");
    json_object_del(kept, "environment");
    char *text = json_fast_dumps(kept);
    json_decref(kept);
    free(j->spec);
    j->spec = text ? text : xstrdup("{}");
    intern_release(j->account);
    intern_release(j->qos);
    intern_release(j->req.constraint);
    j->account = opt_str(spec, "account");
    j->qos = opt_str(spec, "qos");
    j->req.constraint = opt_str(spec, "constraint");
    j->nice = nice_of(spec);
}

json_t *job_spec(const struct ctld *c, const struct job *j)
{
    char *own = j->spec ? NULL : store_job_spec(c->store, j->id);
    const char *text = j->spec ? j->spec : own;
    json_t *spec = text ? json_fast_loadb(text, strlen(text), NULL) : NULL;
    if (!spec)
        log_warnx("job %llu: its spec is not in the state database", (unsigned long long)j->id);
    free(own);
    return spec ? spec : json_object();
}

void job_spec_free(struct job *j)
{
    free(j->spec);
    intern_release(j->account);
    intern_release(j->qos);
    intern_release(j->req.constraint);
}
