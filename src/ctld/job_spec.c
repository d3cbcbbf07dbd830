/*
 * job_spec: a job's spec as it keeps it. The request as submitted (less
 * script and environment, which live only in the store) is held as compact
 * JSON text, not as a jansson tree: a tree of thirty small values cost
 * about 2.5 KB a job, most of a pending job's memory. What a scheduling
 * pass reads from it is copied out into the job when the text is set.
 */
#include <stdlib.h>
#include <string.h>

#include "common/json_fast.h"
#include "common/xmalloc.h"
#include "ctld/ctld.h"

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
    intern_release(j->constraint);
    j->account = opt_str(spec, "account");
    j->qos = opt_str(spec, "qos");
    j->constraint = opt_str(spec, "constraint");
    j->req.constraint = j->constraint;
    j->nice = nice_of(spec);
}

json_t *job_spec(const struct job *j)
{
    json_t *spec = j->spec ? json_loads(j->spec, 0, NULL) : NULL;
    return spec ? spec : json_object();
}

void job_spec_free(struct job *j)
{
    free(j->spec);
    intern_release(j->account);
    intern_release(j->qos);
    intern_release(j->constraint);
}
