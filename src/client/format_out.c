/*
 * format_out: rows of a format written into one buffer. With 10,000 jobs
 * a printf and an allocation per cell were most of squeue's time; here a
 * cell is a copy and some padding, and the table goes out in writes of
 * FMT_OUT_CHUNK bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "client/cmdutil.h"
#include "client/format.h"
#include "common/decimal.h"
#include "common/xmalloc.h"

#define FMT_OUT_CHUNK (64u << 10)

void fmt_buf_grow(struct fmt_buf *b, size_t n)
{
    if (b->n + n < b->cap)   /* one byte more for fmt_buf_text's NUL */
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap <= b->n + n)
        cap *= 2;
    b->s = xrealloc(b->s, cap);
    b->cap = cap;
}

void fmt_buf_str(struct fmt_buf *b, const char *s)
{
    fmt_buf_add(b, s, strlen(s));
}

void fmt_buf_int(struct fmt_buf *b, long long v)
{
    char t[DECIMAL_MAX];
    size_t n;
    const char *d = decimal(v, t, &n);
    fmt_buf_add(b, d, n);
}

void fmt_buf_pad(struct fmt_buf *b, size_t n)
{
    fmt_buf_grow(b, n);
    memset(b->s + b->n, ' ', n);
    b->n += n;
}

const char *fmt_buf_text(struct fmt_buf *b)
{
    fmt_buf_grow(b, 0);
    b->s[b->n] = '\0';
    return b->s;
}

void fmt_buf_free(struct fmt_buf *b)
{
    free(b->s);
    *b = (struct fmt_buf){ 0 };
}

/* Slurm's _print_str: s padded to width (right-justified if right), cut
 * to width if cut; width 0 adds s as it is. A user's bytes show as
 * cmd_cell_clean says (most cells need no copy for it). */
static void fmt_put(struct fmt_buf *b, const char *s, int width, bool right, bool cut)
{
    char *own = NULL;
    if (!cmd_cell_plain(s)) {
        own = xstrdup(s);
        cmd_cell_clean(own);
        s = own;
    }
    size_t len = strlen(s), w = width > 0 ? (size_t)width : 0;
    if (cut && w && len > w)
        len = w;
    if (right && len < w)
        fmt_buf_pad(b, w - len);
    fmt_buf_add(b, s, len);
    if (!right && len < w)
        fmt_buf_pad(b, w - len);
    free(own);
}

static void fmt_out_flush(struct fmt_out *o)
{
    if (o->text.n)
        fwrite(o->text.s, 1, o->text.n, o->f);
    o->text.n = 0;
}

void fmt_out_init(struct fmt_out *o, FILE *f)
{
    *o = (struct fmt_out){ .f = f };
}

/* A record's value of code: text of rec, of o->scratch or of *own (freed by the caller). */
static const char *fmt_value(struct fmt_out *o, const struct fmt_code *code, const void *rec,
                             const void *ctx, bool *cut, char **own)
{
    *own = NULL;
    if (code->text) {
        o->scratch.n = 0;
        return code->text(rec, ctx, cut, &o->scratch);
    }
    return *own = code->value(rec, ctx, cut);
}

void fmt_out_row(struct fmt_out *o, const struct fmt *f, const void *rec, const void *ctx)
{
    for (size_t i = 0; i < f->ncols; i++) {
        const struct fmt_col *c = &f->cols[i];
        int width = c->width == FMT_AUTO_WIDTH ? 0 : c->width;
        if (c->code && !rec) {
            fmt_put(&o->text, c->code->header, width, c->right,
                    !(c->code->flags & FMT_NOCUT_HEADER));
        } else if (c->code) {
            bool cut = !(c->code->flags & FMT_NOCUT);
            char *own;
            const char *v = fmt_value(o, c->code, rec, ctx, &cut, &own);
            fmt_put(&o->text, v ? v : "(null)", width, c->right, cut);
            free(own);
        }
        fmt_buf_add(&o->text, c->text, c->textlen);
    }
    fmt_buf_add(&o->text, "\n", 1);
    if (o->text.n >= FMT_OUT_CHUNK)
        fmt_out_flush(o);
}

void fmt_out_text(struct fmt_out *o, const char *s)
{
    fmt_buf_str(&o->text, s);
}

void fmt_out_end(struct fmt_out *o)
{
    fmt_out_flush(o);
    fmt_buf_free(&o->text);
    fmt_buf_free(&o->scratch);
}

void fmt_print_row(FILE *out, const struct fmt *f, const void *rec, const void *ctx)
{
    struct fmt_out o;
    fmt_out_init(&o, out);
    fmt_out_row(&o, f, rec, ctx);
    fmt_out_end(&o);
}
