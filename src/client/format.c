#include "client/format.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/xmalloc.h"

static struct fmt_col *fmt_add_col(struct fmt *f)
{
    f->cols = xrealloc(f->cols, (f->ncols + 1) * sizeof *f->cols);
    struct fmt_col *c = &f->cols[f->ncols++];
    memset(c, 0, sizeof *c);
    c->text = xstrdup("");
    return c;
}

static void fmt_add_text(struct fmt_col *c, const char *s, size_t n)
{
    size_t len = c->textlen;
    c->text = xrealloc(c->text, len + n + 1);
    memcpy(c->text + len, s, n);
    c->text[len + n] = '\0';
    c->textlen = len + n;
}

static const struct fmt_code *fmt_find(const struct fmt_code *codes, char code)
{
    for (; codes->code; codes++)
        if (codes->code == code)
            return codes;
    return NULL;
}

/* Parses one "%[.][#|size]X" at *p (just past the '%'); returns the column
 * or NULL for an unknown code, which then stays as literal text. */
static const char *fmt_parse_field(struct fmt *f, const char *p, const struct fmt_code *codes,
                                   const char *prog, const char *what)
{
    const char *start = p - 1;
    bool right = false;
    int width = 0;
    if (*p == '.') {
        right = true;
        p++;
    }
    if (*p == '#') {
        width = FMT_AUTO_WIDTH;
        p++;
    } else {
        while (*p >= '0' && *p <= '9')
            width = width * 10 + (*p++ - '0');
    }
    const struct fmt_code *code = *p ? fmt_find(codes, *p) : NULL;
    if (!code) {
        if (*p)
            fprintf(stderr, "%s: error: Invalid %s format specification: %c\n", prog, what, *p);
        struct fmt_col *c = f->ncols ? &f->cols[f->ncols - 1] : fmt_add_col(f);
        size_t n = (size_t)(p - start) + (*p ? 1 : 0);
        fmt_add_text(c, start, n);
        return *p ? p + 1 : p;
    }
    struct fmt_col *c = fmt_add_col(f);
    c->code = code;
    c->width = width;
    c->right = right;
    return p + 1;
}

struct fmt *fmt_parse(const char *spec, const struct fmt_code *codes, const char *prog,
                      const char *what)
{
    struct fmt *f = xcalloc(1, sizeof *f);
    const char *p = spec;
    while (*p) {
        if (*p == '%' && p[1] == '%') {
            struct fmt_col *c = f->ncols ? &f->cols[f->ncols - 1] : fmt_add_col(f);
            fmt_add_text(c, "%", 1);
            p += 2;
        } else if (*p == '%') {
            p = fmt_parse_field(f, p + 1, codes, prog, what);
        } else {
            size_t n = strcspn(p, "%");
            struct fmt_col *c = f->ncols ? &f->cols[f->ncols - 1] : fmt_add_col(f);
            fmt_add_text(c, p, n);
            p += n;
        }
    }
    return f;
}

void fmt_destroy(struct fmt *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->ncols; i++)
        free(f->cols[i].text);
    free(f->cols);
    free(f);
}

bool fmt_has(const struct fmt *f, char code)
{
    for (size_t i = 0; i < f->ncols; i++)
        if (f->cols[i].code && f->cols[i].code->code == code)
            return true;
    return false;
}

void fmt_set_auto_width(struct fmt *f, char code, int width)
{
    for (size_t i = 0; i < f->ncols; i++)
        if (f->cols[i].code && f->cols[i].code->code == code &&
            f->cols[i].width == FMT_AUTO_WIDTH)
            f->cols[i].width = width;
}

static const struct fmt_name *fmt_find_name(const struct fmt_name *names, const char *name,
                                            size_t len)
{
    for (; names->name; names++)
        if (strlen(names->name) == len && !strncasecmp(names->name, name, len))
            return names;
    return NULL;
}

/* One "Name[:[.][size][suffix]]" of n bytes at p; false for an unknown name. */
static bool fmt_parse_long_field(struct fmt *f, const char *p, size_t n,
                                 const struct fmt_code *codes, const struct fmt_name *names,
                                 const char *prog, const char *what)
{
    const char *colon = memchr(p, ':', n);
    size_t len = colon ? (size_t)(colon - p) : n;
    const struct fmt_name *name = fmt_find_name(names, p, len);
    const struct fmt_code *code = name ? fmt_find(codes, name->code) : NULL;
    if (!code) {
        fprintf(stderr, "%s: error: Invalid %s format specification: %.*s\n", prog, what,
                (int)len, p);
        return false;
    }
    struct fmt_col *c = fmt_add_col(f);
    c->code = code;
    c->width = FMT_LONG_WIDTH;
    if (!colon)
        return true;
    const char *q = colon + 1, *end = p + n;
    if (q < end && *q == '.') {
        c->right = true;
        q++;
    }
    c->width = 0;
    while (q < end && *q >= '0' && *q <= '9')
        c->width = c->width * 10 + (*q++ - '0');
    fmt_add_text(c, q, (size_t)(end - q));
    return true;
}

struct fmt *fmt_parse_long(const char *spec, const struct fmt_code *codes,
                           const struct fmt_name *names, const char *prog, const char *what)
{
    struct fmt *f = xcalloc(1, sizeof *f);
    for (const char *p = spec; *p;) {
        size_t n = strcspn(p, ",");
        if (n && !fmt_parse_long_field(f, p, n, codes, names, prog, what)) {
            fmt_destroy(f);
            return NULL;
        }
        p += n + (p[n] == ',');
    }
    return f;
}
