/* fname: Slurm's file name patterns (fname.h). */
#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fname.h"
#include "common/xmalloc.h"

#define NO_ARRAY_TASK "4294967294"
#define MAX_WIDTH 10

static char *num(int width, int64_t n)
{
    return xasprintf("%0*" PRId64, width, n);
}

static char *job_step(int width, const struct fname_vals *v)
{
    if (v->step_id == FNAME_BATCH_STEP)
        return num(width, v->job_id);
    return xasprintf("%0*" PRId64 ".%" PRId64, width, v->job_id, v->step_id);
}

/* The value of one code; NULL when it is none of Slurm's. */
static char *code_value(char c, int width, const struct fname_vals *v)
{
    switch (c) {
    case 'j': return num(width, v->job_id);
    case 'A': return num(width, v->array_job_id > 0 ? v->array_job_id : v->job_id);
    case 'a':
        return v->array_task_id >= 0 ? num(width, v->array_task_id) : xstrdup(NO_ARRAY_TASK);
    case 'J': return job_step(width, v);
    case 's':
        return v->step_id == FNAME_BATCH_STEP ? xstrdup("batch") : num(width, v->step_id);
    case 'n': return num(width, v->node_index);
    case 't': return num(width, v->task_id);
    case 'N': return xstrdup(v->node_name ? v->node_name : "");
    case 'u': return xstrdup(v->user_name ? v->user_name : "");
    case 'x': return xstrdup(v->job_name ? v->job_name : "");
    case '%': return xstrdup("%");
    default: return NULL;
    }
}

static char *literal(const char *pattern)
{
    char *out = xstrdup(pattern);
    size_t k = 0;
    for (const char *p = pattern; *p; p++)
        if (*p != '\\')
            out[k++] = *p;
    out[k] = '\0';
    return out;
}

static void add(char **buf, size_t *len, const char *s, size_t n)
{
    *buf = xrealloc(*buf, *len + n + 1);
    memcpy(*buf + *len, s, n);
    *len += n;
    (*buf)[*len] = '\0';
}

/* show: only what scontrol show job knows before the job runs. */
static char *expand(const char *pattern, const struct fname_vals *v, bool show)
{
    char *out = xstrdup("");
    size_t len = 0;
    for (const char *p = pattern; *p;) {
        const char *q = p + 1;
        int width = 0;
        if (*p == '%' && !show)
            while (isdigit((unsigned char)*q))
                width = width < 100 ? width * 10 + (*q++ - '0') : (q++, width);
        bool known = *p == '%' && *q && (!show || strchr("Aajux%", *q));
        char *val = known ? code_value(*q, width > MAX_WIDTH ? MAX_WIDTH : width, v) : NULL;
        if (val) {
            add(&out, &len, val, strlen(val));
            free(val);
            p = q + 1;
        } else {
            add(&out, &len, p, 1);
            p++;
        }
    }
    return out;
}

char *fname_expand(const char *pattern, const struct fname_vals *v)
{
    return strchr(pattern, '\\') ? literal(pattern) : expand(pattern, v, false);
}

char *fname_show(const char *pattern, const struct fname_vals *v)
{
    return expand(pattern, v, true);
}

const char *fname_default(const struct fname_vals *v)
{
    return v->array_job_id > 0 ? "slurm-%A_%a.out" : "slurm-%j.out";
}
