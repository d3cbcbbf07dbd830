/*
 * squeue_rows: the controller's table of jobs, split in place. See
 * squeue_rows.h.
 */
#include "cmd/squeue_rows.h"

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
    int cols[SQ_NKEYS * 2];
    size_t ncols = 0;
    for (char *save = NULL, *name = strtok_r(line, "\t", &save); name && ncols < SQ_NKEYS * 2;
         name = strtok_r(NULL, "\t", &save))
        cols[ncols++] = key_of(name);
    size_t cap = 1024;
    r->rows = xmalloc(cap * sizeof *r->rows);
    while ((line = next_line(&p))) {
        if (r->n == cap)
            r->rows = xrealloc(r->rows, (cap *= 2) * sizeof *r->rows);
        struct sq_row *row = &r->rows[r->n++];
        memset(row, 0, sizeof *row);
        for (size_t c = 0; c < ncols; c++) {
            const char *v = cell(&line);
            if (cols[c] >= 0)
                row->v[cols[c]] = v;
        }
    }
    return 0;
}

void sq_rows_set(struct sq_rows *r, size_t i, enum sq_key k, char *val)
{
    r->rows[i].v[k] = val;
    r->owned = xrealloc(r->owned, (r->nowned + 1) * sizeof *r->owned);
    r->owned[r->nowned++] = val;
}

void sq_rows_add(struct sq_rows *r, const struct sq_row *row, enum sq_key k, char *val)
{
    struct sq_row copy = *row;   /* row may be one of r->rows, which moves */
    r->rows = xrealloc(r->rows, (r->n + 1) * sizeof *r->rows);
    r->rows[r->n++] = copy;
    sq_rows_set(r, r->n - 1, k, val);
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
    const char *v = row->v[k];
    return v && canonical_int(v) ? v : NULL;
}

bool sq_bool(const struct sq_row *row, enum sq_key k, bool def)
{
    const char *v = row->v[k];
    return v ? strcmp(v, "true") == 0 : def;
}

bool sq_is_int(const struct sq_row *row, enum sq_key k)
{
    char *end;
    const char *v = row->v[k];
    if (!v || !*v)
        return false;
    if (canonical_int(v))
        return true;
    strtoll(v, &end, 10);
    return !*end;
}
