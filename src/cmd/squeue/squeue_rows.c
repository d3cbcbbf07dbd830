/*
 * squeue_rows: the controller's table of jobs, split in place. See
 * squeue_rows.h.
 */
#include "cmd/squeue/squeue_rows.h"

#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"

#define SQ_NAME(id, name) name,
const char *const sq_key_names[SQ_NKEYS] = { SQ_KEYS(SQ_NAME) };
#undef SQ_NAME

static int key_of(const char *name)
{
    for (int k = 0; k < SQ_NKEYS; k++)
        if (strcmp(sq_key_names[k], name) == 0)
            return k;
    return -1;
}

/* The next line, NUL-terminated in place; NULL at the end. */
static char *next_line(char **p)
{
    if (!**p)
        return NULL;
    char *line = *p, *nl = strchr(line, '\n');
    if (nl) {
        *nl = '\0';
        *p = nl + 1;
    } else
        *p += strlen(line);
    return line;
}

/* The bytes that end a cell's plain run: its end, and an escape. */
static const bool cell_stop[256] = { ['\0'] = true, ['\t'] = true, ['\\'] = true };

/* The cell at *p up to a tab or the end, unescaped in place; NULL for \N.
 * Most cells have no escape: they are only scanned, with a table. */
static const char *cell(char **p)
{
    char *start = *p, *w, *r = start;
    if (r[0] == '\\' && r[1] == 'N' && (r[2] == '\t' || !r[2])) {
        *p = r[2] ? r + 3 : r + 2;
        return NULL;
    }
    while (!cell_stop[(unsigned char)*r])
        r++;
    for (w = r; *r && *r != '\t'; r++) {
        if (*r != '\\' || !r[1]) {
            *w++ = *r;
            continue;
        }
        r++;
        *w++ = *r == 't' ? '\t' : *r == 'n' ? '\n' : *r == 'r' ? '\r' : *r;
    }
    *p = *r ? r + 1 : r;
    *w = '\0';
    return start;
}

/* The columns of the answer's field names; the array keys get one at the
 * end when not asked for. *n: the answer's columns. */
static void header(struct sq_rows *r, char *line, size_t *n)
{
    memset(r->col, -1, sizeof r->col);
    for (char *save = NULL, *name = strtok_r(line, "\t", &save); name;
         name = strtok_r(NULL, "\t", &save), (*n)++) {
        int k = key_of(name);
        if (k >= 0 && r->col[k] < 0 && *n < 127)
            r->col[k] = (signed char)*n;
    }
    r->ncols = *n;
    static const enum sq_key settable[] = { SQ_ARRAY_TASK_ID, SQ_ARRAY_TASK_STR };
    for (size_t i = 0; i < sizeof settable / sizeof *settable; i++)
        if (r->col[settable[i]] < 0 && r->ncols < 127)
            r->col[settable[i]] = (signed char)r->ncols++;
}

static struct sq_row long_row(struct sq_rows *r, char *line, size_t given)
{
    const char **cells = xmalloc(r->ncols * sizeof *cells);
    sq_rows_own(r, cells);
    for (size_t c = 0; c < r->ncols; c++)
        cells[c] = c < given ? cell(&line) : NULL;
    return (struct sq_row){ NULL, cells, r->col };
}

int sq_rows_parse(struct sq_rows *r, char *text, size_t len)
{
    (void)len;
    *r = (struct sq_rows){ .text = text };
    char *p = text, *line = next_line(&p);
    if (!line || strncmp(line, "now\t", 4) != 0)
        return -1;
    r->now = strtoll(line + 4, NULL, 10);
    if (!(line = next_line(&p)))
        return -1;
    size_t given = 0, cap = 0, used = 0;
    header(r, line, &given);
    uint16_t *offs = NULL;
    while ((line = next_line(&p))) {
        if ((size_t)(p - line) >= SQ_NONE) {   /* too long for offsets: cells of its own */
            sq_rows_append(r, long_row(r, line, given));
            continue;
        }
        if (used == cap) {   /* offsets in blocks: no realloc moves rows' pointers */
            cap = 1024;
            offs = xmalloc(cap * r->ncols * sizeof *offs);
            sq_rows_own(r, offs);
            used = 0;
        }
        uint16_t *o = offs + used++ * r->ncols;
        char *at = line;
        for (size_t c = 0; c < r->ncols; c++) {
            const char *v = c < given ? cell(&at) : NULL;
            o[c] = v ? (uint16_t)(v - line) : SQ_NONE;
        }
        sq_rows_append(r, (struct sq_row){ line, o, r->col });
    }
    return 0;
}

struct sq_row sq_rows_copy(struct sq_rows *r, const struct sq_row *row)
{
    const char **cells = xmalloc(r->ncols * sizeof *cells);
    for (size_t c = 0; c < r->ncols; c++)
        cells[c] = sq_col_cell(row, (int)c);
    sq_rows_own(r, cells);
    return (struct sq_row){ NULL, cells, row->col };
}

void sq_rows_append(struct sq_rows *r, struct sq_row row)
{
    if ((r->n & (r->n - 1)) == 0 && r->n >= 64)   /* grows by doubling past 64 */
        r->rows = xrealloc(r->rows, 2 * r->n * sizeof *r->rows);
    else if (r->n == 0)
        r->rows = xmalloc(64 * sizeof *r->rows);
    r->rows[r->n++] = row;
}

void sq_rows_own(struct sq_rows *r, void *p)
{
    if ((r->nowned & (r->nowned + 1)) == 0)   /* 0, 1, 3, 7...: full at 2^k - 1 */
        r->owned = xrealloc(r->owned, 2 * (r->nowned + 1) * sizeof *r->owned);
    r->owned[r->nowned++] = p;
}

void sq_row_put(struct sq_row *row, enum sq_key k, const char *v)
{
    if (row->col[k] >= 0 && !row->line)   /* rows of their own only (sq_rows_copy) */
        ((const char **)row->cells)[row->col[k]] = v;
}

void sq_rows_free(struct sq_rows *r)
{
    for (size_t i = 0; i < r->nowned; i++)
        free(r->owned[i]);
    free(r->owned);
    free(r->rows);
    free(r->text);
    *r = (struct sq_rows){ 0 };
}

/* Digits of v when it is an integer as %lld prints it ("0", "-12", no
 * sign, space or leading zero more, at most 18 digits: no overflow); 0
 * when it is not. */
static size_t canonical_int(const char *v)
{
    const char *d = v + (*v == '-');
    size_t n = 0;
    if (*d == '0')
        return d == v && !d[1];
    while (d[n] >= '0' && d[n] <= '9')
        n++;
    return n && n <= 18 && !d[n] ? n : 0;
}

int64_t sq_int_slow(const char *v, int64_t def)
{
    char *end;
    if (!*v)
        return def;
    long long x = strtoll(v, &end, 10);
    return *end ? def : (int64_t)x;
}

const char *sq_int_text(const struct sq_row *row, enum sq_key k)
{
    const char *v = sq_cell(row, k);
    return v && canonical_int(v) ? v : NULL;
}

bool sq_bool(const struct sq_row *row, enum sq_key k, bool def)
{
    const char *v = sq_cell(row, k);
    return v ? strcmp(v, "true") == 0 : def;
}

bool sq_is_int(const struct sq_row *row, enum sq_key k)
{
    char *end;
    const char *v = sq_cell(row, k);
    if (!v || !*v)
        return false;
    if (canonical_int(v))
        return true;
    strtoll(v, &end, 10);
    return !*end;
}
