/*
 * sacct_print: the header, the rows of a job (the job, then its batch and
 * extern steps once it has started) and each value as Slurm's print_fields
 * writes it: padded to the field's width (right-justified unless the width
 * is negative), cut with a '+' marking the cut, a lone space for no value;
 * or, parsable, the bare values each followed by the delimiter (-p) or
 * joined by it (-P).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "client/cmdutil.h"
#include "cmd/sacct/sacct.h"
#include "common/xmalloc.h"

const struct sacct_field *sacct_field_find_in(const struct sacct_field *table, const char *s)
{
    size_t n = strlen(s);
    for (const struct sacct_field *f = table; f->name && n; f++)
        if (!strncasecmp(f->name, s, n))
            return f;
    return NULL;
}

/* "JobID%20,State": the columns; an unknown field is fatal, as in Slurm. */
int sacct_parse_format(struct sacct_out *out, const struct sacct_field *table, const char *prog,
                       const char *spec)
{
    struct strlist l = {0};
    strlist_split(&l, spec);
    int rc = 0;
    for (size_t i = 0; i < l.n && rc == 0; i++) {
        char *item = l.items[i], *pct = strchr(item, '%');
        int width = 0;
        if (pct) {
            width = atoi(pct + 1);
            *pct = '\0';
        }
        const struct sacct_field *f = sacct_field_find_in(table, item);
        if (!f) {
            fprintf(stderr, "Invalid field requested: \"%s\"\n", item);
            rc = -1;
            break;
        }
        out->cols = xrealloc(out->cols, (out->ncols + 1) * sizeof *out->cols);
        out->cols[out->ncols++] = (struct sacct_col){ f, width ? width : f->width };
    }
    strlist_clear(&l);
    if (rc == 0 && !out->ncols) {
        cmd_error(prog, "No fields to print");
        rc = -1;
    }
    return rc;
}

void sacct_helpformat(const struct sacct_field *table)
{
    size_t i = 0;
    for (const struct sacct_field *f = table; f->name; f++, i++)
        printf("%-20s%s", f->name, i % 4 == 3 || !f[1].name ? "\n" : "");
}

static void put_sep(FILE *out, const struct sacct_out *o, size_t i)
{
    if (o->parsable == 1 || (o->parsable == 2 && i + 1 < o->ncols))
        fputs(o->delim, out);
}

void sacct_print_header(FILE *out, const struct sacct_out *o)
{
    if (o->noheader)
        return;
    for (size_t i = 0; i < o->ncols; i++) {
        const struct sacct_col *c = &o->cols[i];
        int w = abs(c->width);
        if (o->parsable) {
            fputs(c->f->name, out);
            put_sep(out, o, i);
        } else {
            fprintf(out, "%*.*s ", c->width, w, c->f->name);
        }
    }
    fputc('\n', out);
    if (o->parsable)
        return;
    for (size_t i = 0; i < o->ncols; i++) {
        for (int k = 0; k < abs(o->cols[i].width); k++)
            fputc('-', out);
        fputc(' ', out);
    }
    fputc('\n', out);
}

static void put_value(FILE *out, const struct sacct_col *c, char *v)
{
    int w = abs(c->width);
    if (!v) {
        fprintf(out, "%*s ", c->width, " ");
        return;
    }
    if (!(c->f->flags & (SACCT_NOCUT | SACCT_NOPLUS)) && (int)strlen(v) > w && w > 0) {
        v[w - 1] = '+';
        v[w] = '\0';
    }
    if (c->f->flags & SACCT_NOCUT)
        fprintf(out, "%*s ", c->width, v);
    else
        fprintf(out, "%*.*s ", c->width, w, v);
}

void sacct_print_row(FILE *out, const struct sacct_out *o, const struct sacct_ctx *x,
                     const struct sacct_row *r)
{
    for (size_t i = 0; i < o->ncols; i++) {
        char *v = o->cols[i].f->value(r, x);
        if (v)
            cmd_cell_clean(v);
        if (o->parsable) {
            fputs(v ? v : "", out);
            put_sep(out, o, i);
        } else {
            put_value(out, &o->cols[i], v);
        }
        free(v);
    }
    fputc('\n', out);
}

/* Whether -j asked for this row: a bare id wants the job and its steps,
 * "ID.batch" that step alone. No -j wants everything. */
bool sacct_wanted(const struct sacct_want *want, size_t nwant, const struct sacct_row *r)
{
    static const char *names[] = { [SACCT_JOB] = NULL, [SACCT_BATCH] = "batch",
                                   [SACCT_EXTERN] = "extern", [SACCT_STEP] = NULL };
    char step[16];
    snprintf(step, sizeof step, "%d", r->step);
    const char *name = r->kind == SACCT_STEP ? step : names[r->kind];
    if (!nwant)
        return true;
    for (size_t i = 0; i < nwant; i++) {
        bool job = want[i].task < 0 ? want[i].id == r->id || want[i].id == r->array_id
                                    : want[i].id == r->array_id && want[i].task == r->task;
        if (!job)
            continue;
        if (!want[i].step || (name && !strcmp(want[i].step, name)))
            return true;
    }
    return false;
}

/* srun's steps, 123.0 and on, after the batch and extern rows. */
static void print_steps(FILE *out, const struct sacct_out *o, const struct sacct_ctx *x,
                        const struct sacct_row *job, const struct sacct_want *want, size_t nwant)
{
    size_t i;
    json_t *rec;
    json_array_foreach(json_object_get(job->rec, "steps"), i, rec) {
        struct sacct_row r = { rec, job->id, SACCT_STEP, (int)jget_int(rec, "id", 0),
                               job->array_id, job->task };
        if (sacct_wanted(want, nwant, &r))
            sacct_print_row(out, o, x, &r);
    }
}

struct sacct_row sacct_job_row(const json_t *job)
{
    struct sacct_row r = { json_object_get(job, "record"), (uint64_t)jget_int(job, "job_id", 0),
                           SACCT_JOB, 0, 0, -1 };
    if (!json_is_object(r.rec)) {
        r.rec = NULL;
        return r;
    }
    const json_t *task = json_object_get(r.rec, "array_task_id");
    r.array_id = (uint64_t)jget_int(r.rec, "array_job_id", 0);
    r.task = json_is_integer(task) ? json_integer_value(task) : -1;
    return r;
}

bool sacct_has_step(const json_t *rec, enum sacct_row_kind kind)
{
    return kind != SACCT_EXTERN || jget_bool(rec, "extern_step", false);
}

bool sacct_is_pending_array(const json_t *rec)
{
    const char *tasks = jget_str(rec, "array_task_str", "");
    return *tasks && !strcmp(jget_str(rec, "state", ""), "PENDING");
}

void sacct_print_job(FILE *out, const struct sacct_out *o, const struct sacct_ctx *x,
                     const json_t *job, const struct sacct_want *want, size_t nwant)
{
    struct sacct_row r = sacct_job_row(job);
    if (!r.rec)
        return;
    if (sacct_wanted(want, nwant, &r))
        sacct_print_row(out, o, x, &r);
    bool started = jget_int(r.rec, "start_time", 0) > 0 && sacct_alloc_nodes(r.rec) > 0;
    if (o->allocations || !started)
        return;
    /* an allocation of srun or salloc has no batch step, as in Slurm */
    bool batch = !jget_bool(json_object_get(r.rec, "spec"), "allocation", false);
    for (r.kind = batch ? SACCT_BATCH : SACCT_EXTERN; r.kind <= SACCT_EXTERN; r.kind++)
        if (sacct_has_step(r.rec, r.kind) && sacct_wanted(want, nwant, &r))
            sacct_print_row(out, o, x, &r);
    print_steps(out, o, x, &r, want, nwant);
}
