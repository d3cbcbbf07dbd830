/*
 * format: Slurm's "-o" field engine, shared by squeue and sinfo. A format is
 * literal text and fields "%[.][size]X" ('.' right-justifies, size pads and,
 * for most fields, truncates), "%#X" (a width the command computes from the
 * data, as sinfo's %#P) and "%%" (a literal '%'). Each command supplies a
 * table of its codes: header, value function and whether values are cut.
 * The "-O" form names fields instead: "Name[:[.][size][suffix]],...", each
 * name mapped to one of the codes by a second table.
 */
#ifndef HERD_FORMAT_H
#define HERD_FORMAT_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Slurm prints most values cut to the field's width; times and node lists
 * are never cut, and node list headers neither. */
enum {
    FMT_NOCUT = 1 << 0,          /* values keep their full length */
    FMT_NOCUT_HEADER = 1 << 1,   /* the header keeps its full length */
    FMT_GROUP_BY = 1 << 2,       /* for the caller: sinfo puts nodes with
                                    different values of it on separate rows */
};

/* A growing text: a table's output, or one value being composed. */
struct fmt_buf {
    char *s;
    size_t n, cap;
};

void fmt_buf_grow(struct fmt_buf *b, size_t n);    /* room for n bytes more and a NUL */
/* Inline: a table of 10,000 rows makes ~20 of these calls per row. */
static inline void fmt_buf_add(struct fmt_buf *b, const char *s, size_t n)
{
    if (b->n + n >= b->cap)
        fmt_buf_grow(b, n);
    memcpy(b->s + b->n, s, n);
    b->n += n;
}
void fmt_buf_str(struct fmt_buf *b, const char *s);
void fmt_buf_int(struct fmt_buf *b, long long v);    /* in decimal, without printf */
void fmt_buf_pad(struct fmt_buf *b, size_t n);       /* n spaces */
const char *fmt_buf_text(struct fmt_buf *b);         /* NUL-terminated, owned by b */
void fmt_buf_free(struct fmt_buf *b);

struct fmt_code {
    char code;
    const char *header;
    unsigned flags;
    /* The value for one record; caller frees. rec and ctx are the ones
     * given to fmt_print_row; *cut starts as the code's default, for the
     * fields that cut some values and not others (squeue's %R). */
    char *(*value)(const void *rec, const void *ctx, bool *cut);
    /* Instead of value, when set: the same without an allocation per cell,
     * for tables of 10,000 rows (squeue). It returns a string that lives as
     * long as rec, or the text it composed in scratch (empty on entry). */
    const char *(*text)(const void *rec, const void *ctx, bool *cut, struct fmt_buf *scratch);
};

#define FMT_AUTO_WIDTH (-1)

struct fmt_col {
    const struct fmt_code *code;  /* NULL: text only */
    int width;                    /* 0: natural, FMT_AUTO_WIDTH: set later */
    bool right;
    char *text;                   /* literal text printed after the field */
    size_t textlen;
};

struct fmt {
    struct fmt_col *cols;
    size_t ncols;
};

/* Parses spec against codes (terminated by a zero code). An unknown code
 * prints "PROG: error: Invalid WHAT format specification: X" and is kept
 * as literal text, as Slurm does. Never NULL. */
struct fmt *fmt_parse(const char *spec, const struct fmt_code *codes, const char *prog,
                      const char *what);

/* A "-O" field name and the code it prints (names match in any case). */
struct fmt_name {
    const char *name;
    char code;
};

/* Slurm's width for a "-O" field given without one. */
#define FMT_LONG_WIDTH 20

/* Parses a "-O" spec. An unknown name prints "PROG: error: Invalid WHAT
 * format specification: NAME" and gives NULL: the command then exits 1. */
struct fmt *fmt_parse_long(const char *spec, const struct fmt_code *codes,
                           const struct fmt_name *names, const char *prog, const char *what);
void fmt_destroy(struct fmt *f);                   /* NULL is a no-op */

bool fmt_has(const struct fmt *f, char code);
/* Gives every FMT_AUTO_WIDTH column of code its width. */
void fmt_set_auto_width(struct fmt *f, char code, int width);

/* One line: the headers when rec is NULL, else the record's values. */
void fmt_print_row(FILE *out, const struct fmt *f, const void *rec, const void *ctx);

/* A table written row by row into one buffer, which goes out in large
 * writes: no stdio call and no allocation per cell (format_out.c). */
struct fmt_out {
    FILE *f;
    struct fmt_buf text;      /* rows not written yet */
    struct fmt_buf scratch;   /* the cell being composed */
};

void fmt_out_init(struct fmt_out *o, FILE *f);
/* The row of rec (the headers when rec is NULL), as fmt_print_row. */
void fmt_out_row(struct fmt_out *o, const struct fmt *f, const void *rec, const void *ctx);
/* Adds text as it is (a line the table does not format). */
void fmt_out_text(struct fmt_out *o, const char *s);
/* Writes what is left and frees o's buffers. */
void fmt_out_end(struct fmt_out *o);

#endif
