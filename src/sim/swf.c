/* The SWF reader and its cleaning rules. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/xmalloc.h"
#include "sim/swf.h"

#define SWF_FIELDS 18

static void swf_push(struct swf_trace *t, const struct swf_job *j)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 1024;
        t->jobs = xrealloc(t->jobs, t->cap * sizeof(*t->jobs));
    }
    t->jobs[t->n++] = *j;
}

static void swf_header(struct swf_trace *t, const char *line)
{
    const char *p = strstr(line, "MaxProcs:");

    if (p)
        t->max_procs = strtoll(p + strlen("MaxProcs:"), NULL, 10);
}

/* NULL, or the reason the line is bad. */
static const char *swf_line(struct swf_trace *t, char *line)
{
    double f[SWF_FIELDS];
    int n = 0;
    char *p = line, *end;

    while (*p == ' ' || *p == '\t')
        p++;
    if (*p == ';') {
        swf_header(t, p);
        return NULL;
    }
    if (*p == '\n' || *p == '\r' || *p == '\0')
        return NULL;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\n' || *p == '\r' || *p == '\0')
            break;
        if (n == SWF_FIELDS)
            return "more than 18 fields";
        errno = 0;
        f[n] = strtod(p, &end);
        if (end == p || errno || (*end && !strchr(" \t\r\n", *end)))
            return "a field is not a number";
        n++;
        p = end;
    }
    if (n < SWF_FIELDS)
        return "fewer than 18 fields";
    /* a double the integer it goes to cannot hold is undefined to convert
     * ("1e25", "inf", "nan", a negative job number): refused */
    static const int used[] = { 0, 1, 2, 3, 4, 7, 8, 11 };
    for (size_t i = 0; i < sizeof(used) / sizeof(*used); i++)
        if (!(f[used[i]] > (used[i] == 0 ? -1.0 : -9.2e18) && f[used[i]] < 9.2e18))
            return "a field is out of range";
    struct swf_job j = { .id = (uint64_t)f[0], .submit = (int64_t)f[1], .wait = (int64_t)f[2],
                         .run = (int64_t)f[3], .alloc_procs = (int64_t)f[4],
                         .req_procs = (int64_t)f[7], .req_time = (int64_t)f[8],
                         .user = (int64_t)f[11] };
    swf_push(t, &j);
    return NULL;
}

int swf_read(const char *path, struct swf_trace *t, char **err)
{
    gzFile gz = gzopen(path, "rb");
    char buf[8192];
    size_t lineno = 0;

    memset(t, 0, sizeof(*t));
    *err = NULL;
    if (!gz) {
        *err = xasprintf("%s: %s", path, strerror(errno ? errno : ENOMEM));
        return -1;
    }
    while (gzgets(gz, buf, sizeof(buf))) {
        size_t len = strlen(buf);
        const char *why;
        lineno++;
        if (len == sizeof(buf) - 1 && buf[len - 1] != '\n')
            why = "line too long";
        else
            why = swf_line(t, buf);
        if (why) {
            *err = xasprintf("%s:%zu: %s", path, lineno, why);
            break;
        }
    }
    if (!*err && !gzeof(gz)) {
        int zerr;
        *err = xasprintf("%s:%zu: %s", path, lineno + 1, gzerror(gz, &zerr));
    }
    gzclose(gz);
    if (*err) {
        swf_free(t);
        return -1;
    }
    return 0;
}

void swf_free(struct swf_trace *t)
{
    if (!t)
        return;
    xfree(t->jobs);
    t->n = t->cap = 0;
}

/* The Standard Workload Format's fields as docs/scheduling.md ("Trace
 * semantics") reads them: a job's size is what it was allocated (field 5,
 * "in most cases also the number of processors the job uses"), the request
 * (field 8) only where field 5 is missing (-1); a run of -1 never ran (it
 * was cancelled in the queue) and is dropped, a run of 0 (under half a
 * second) is kept; a missing requested time (field 9) plans the job on its
 * run time; a run past its requested time runs on unless truncate, which
 * cuts it there and drops jobs with no requested time (pyss's cleaning). */
static bool swf_keep(const struct swf_job *s, int64_t P, bool truncate, struct sim_job *j)
{
    int64_t procs = s->alloc_procs > 0 ? s->alloc_procs : s->req_procs;

    if (truncate) {
        if (s->alloc_procs > P || s->req_procs > P || procs <= 0 || s->run <= 0 ||
            s->req_time <= 0 || s->submit < 0)
            return false;
    } else if (procs <= 0 || procs > P || s->run < 0 || s->submit < 0) {
        return false;
    }
    j->id = s->id;
    j->submit = s->submit;
    j->procs = procs;
    j->user = s->user;
    j->est = s->req_time > 0 ? s->req_time : (s->run > 1 ? s->run : 1);
    j->run = truncate && s->run > s->req_time ? s->req_time : s->run;
    j->start = j->end = -1;
    return true;
}

static int job_cmp(const void *a, const void *b)
{
    const struct sim_job *x = a, *y = b;

    if (x->submit != y->submit)
        return x->submit < y->submit ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;   /* file order, kept in start */
}

void swf_clean(const struct swf_trace *t, int64_t procs, bool truncate,
               struct sim_job **out, size_t *n)
{
    struct sim_job *jobs = xcalloc(t->n ? t->n : 1, sizeof(*jobs));
    size_t k = 0;

    for (size_t i = 0; i < t->n; i++)
        if (swf_keep(&t->jobs[i], procs, truncate, &jobs[k])) {
            jobs[k].start = (int64_t)k;
            k++;
        }
    qsort(jobs, k, sizeof(*jobs), job_cmp);
    for (size_t i = 0; i < k; i++)
        jobs[i].start = -1;
    *out = jobs;
    *n = k;
}
