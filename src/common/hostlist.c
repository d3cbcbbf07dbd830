#include "common/hostlist.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"

/* Expressions that would expand past this many names are refused rather
 * than eating the machine's memory ("node[0-999999999]"). */
#define HOSTLIST_MAX (1u << 20)
/* ... or past this many bytes of names: 2^20 names of 1.4 kB each (long
 * literals between brackets of two values each) took 1.5 GB and 21 s under
 * ASan, from one job submission's req_nodes. */
#define HOSTLIST_MAX_BYTES ((size_t)64 << 20)

/* Digits beyond this are not treated as a number (they would overflow). */
#define NUM_MAX_DIGITS 18

struct hostlist {
    char **names;
    size_t n;
    size_t cap;
    size_t bytes;          /* the names' bytes, while an expression expands */
};

/* One piece of a term: a literal (n == 1) or a bracket's expansion. */
struct seg {
    char **vals;
    size_t n, cap;
};

struct term {
    struct seg *segs;
    size_t nsegs;
};

static void names_append(struct hostlist *hl, char *name)
{
    if (hl->n == hl->cap) {
        hl->cap = hl->cap ? hl->cap * 2 : 16;
        hl->names = xrealloc(hl->names, hl->cap * sizeof *hl->names);
    }
    hl->names[hl->n++] = name;
}

static void names_clear(struct hostlist *hl)
{
    for (size_t i = 0; i < hl->n; i++)
        free(hl->names[i]);
    free(hl->names);
    hl->names = NULL;
    hl->n = hl->cap = 0;
}

static void seg_add(struct seg *s, char *val)
{
    if (s->n == s->cap) {   /* doubling: "n[0-999999]" is a million adds */
        s->cap = s->cap ? s->cap * 2 : 16;
        s->vals = xrealloc(s->vals, s->cap * sizeof *s->vals);
    }
    s->vals[s->n++] = val;
}

static void term_clear(struct term *t)
{
    for (size_t i = 0; i < t->nsegs; i++) {
        for (size_t j = 0; j < t->segs[i].n; j++)
            free(t->segs[i].vals[j]);
        free(t->segs[i].vals);
    }
    free(t->segs);
    t->segs = NULL;
    t->nsegs = 0;
}

static struct seg *term_new_seg(struct term *t)
{
    t->segs = xrealloc(t->segs, (t->nsegs + 1) * sizeof *t->segs);
    struct seg *s = &t->segs[t->nsegs++];
    s->vals = NULL;
    s->n = s->cap = 0;
    return s;
}

static bool all_digits(const char *s, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return false;
    return true;
}

/* "01-16": numeric, width of the low end kept. */
static int expand_num_range(struct seg *s, const char *lo, size_t nlo,
                            const char *hi, size_t nhi)
{
    if (nlo > NUM_MAX_DIGITS || nhi > NUM_MAX_DIGITS)
        return -1;
    unsigned long long a = strtoull(lo, NULL, 10);
    unsigned long long b = strtoull(hi, NULL, 10);
    if (a > b || b - a >= HOSTLIST_MAX || s->n + (b - a) >= HOSTLIST_MAX)
        return -1;
    for (unsigned long long v = a; v <= b; v++)
        seg_add(s, xasprintf("%0*llu", (int)nlo, v));
    return 0;
}

/* One comma-separated item of a bracket: "7", "01-16" or "a-c". */
static int expand_item(struct seg *s, const char *it, size_t len)
{
    const char *dash = memchr(it, '-', len);
    if (!dash) {
        if (len == 0 || s->n + 1 >= HOSTLIST_MAX)
            return -1;
        for (size_t i = 0; i < len; i++)
            if (!isalnum((unsigned char)it[i]) && it[i] != '_' && it[i] != '.')
                return -1;
        seg_add(s, xstrndup(it, len));
        return 0;
    }
    size_t nlo = (size_t)(dash - it), nhi = len - nlo - 1;
    const char *hi = dash + 1;
    if (all_digits(it, nlo) && all_digits(hi, nhi))
        return expand_num_range(s, it, nlo, hi, nhi);
    if (nlo == 1 && nhi == 1 && isalpha((unsigned char)it[0]) &&
        isalpha((unsigned char)hi[0]) && !!isupper((unsigned char)it[0]) ==
        !!isupper((unsigned char)hi[0]) && it[0] <= hi[0]) {
        for (char c = it[0]; c <= hi[0]; c++)
            seg_add(s, xasprintf("%c", c));
        return 0;
    }
    return -1;
}

/* p points just past '['; on success *end points past the matching ']'. */
static int parse_bracket(struct term *t, const char *p, const char **end)
{
    const char *close = p + strcspn(p, "[]");
    if (*close != ']' || close == p)
        return -1;
    struct seg *s = term_new_seg(t);
    while (p < close) {
        const char *comma = memchr(p, ',', (size_t)(close - p));
        const char *iend = comma ? comma : close;
        if (expand_item(s, p, (size_t)(iend - p)) < 0)
            return -1;
        p = comma ? comma + 1 : close;
        if (comma && p == close)
            return -1;          /* "[1,]" */
    }
    *end = close + 1;
    return 0;
}

/* Splits one term ("gpu-[a-c][1-2]") into literal and bracket segments. */
static int parse_term(struct term *t, const char *p, size_t len)
{
    const char *stop = p + len;
    while (p < stop) {
        if (*p == ']')
            return -1;
        if (*p == '[') {
            if (parse_bracket(t, p + 1, &p) < 0 || p > stop)
                return -1;
            continue;
        }
        size_t n = strcspn(p, "[]");
        if (p + n > stop)
            n = (size_t)(stop - p);
        seg_add(term_new_seg(t), xstrndup(p, n));
        p += n;
    }
    return 0;
}

/* Appends the cartesian product of the segments, first segment outermost. */
static int term_expand(const struct term *t, struct hostlist *out)
{
    size_t total = 1, len = 1, longest = 1;
    for (size_t i = 0; i < t->nsegs; i++) {
        total *= t->segs[i].n;
        if (total + out->n >= HOSTLIST_MAX)
            return -1;
        size_t most = 0;
        for (size_t k = 0; k < t->segs[i].n; k++) {
            size_t l = strlen(t->segs[i].vals[k]);
            most = l > most ? l : most;
        }
        longest += most;
    }
    if (total && longest > (HOSTLIST_MAX_BYTES - out->bytes) / total)
        return -1;
    out->bytes += total * longest;
    size_t *idx = xcalloc(t->nsegs ? t->nsegs : 1, sizeof *idx);
    for (size_t k = 0; k < total; k++) {
        len = 1;
        for (size_t i = 0; i < t->nsegs; i++)
            len += strlen(t->segs[i].vals[idx[i]]);
        char *name = xmalloc(len), *w = name;
        for (size_t i = 0; i < t->nsegs; i++)
            w = stpcpy(w, t->segs[i].vals[idx[i]]);
        *w = '\0';
        names_append(out, name);
        for (size_t i = t->nsegs; i-- > 0;) {
            if (++idx[i] < t->segs[i].n)
                break;
            idx[i] = 0;
        }
    }
    free(idx);
    return 0;
}

/* Finds the end of a top-level term: commas inside brackets are the
 * bracket's. */
static size_t term_len(const char *p)
{
    size_t i = 0;
    int depth = 0;
    for (; p[i]; i++) {
        if (p[i] == '[')
            depth++;
        else if (p[i] == ']')
            depth--;
        else if (depth == 0 && (p[i] == ',' || isspace((unsigned char)p[i])))
            break;
    }
    return i;
}

static int parse_expr(const char *expr, struct hostlist *out)
{
    const char *p = expr;
    while (*p) {
        if (*p == ',' || isspace((unsigned char)*p)) {
            p++;
            continue;
        }
        size_t len = term_len(p);
        struct term t = { 0 };
        int rc = parse_term(&t, p, len);
        if (rc == 0)
            rc = term_expand(&t, out);
        term_clear(&t);
        if (rc < 0)
            return -1;
        p += len;
    }
    return 0;
}

struct hostlist *hostlist_create(const char *expr)
{
    struct hostlist *hl = xcalloc(1, sizeof *hl);
    if (hostlist_push(hl, expr) < 0) {
        hostlist_destroy(hl);
        errno = EINVAL;
        return NULL;
    }
    return hl;
}

void hostlist_destroy(struct hostlist *hl)
{
    if (!hl)
        return;
    names_clear(hl);
    free(hl);
}

int hostlist_push(struct hostlist *hl, const char *expr)
{
    struct hostlist tmp = { 0 };
    if (!hl || !expr || parse_expr(expr, &tmp) < 0) {
        names_clear(&tmp);
        errno = EINVAL;
        return -1;
    }
    for (size_t i = 0; i < tmp.n; i++)
        names_append(hl, tmp.names[i]);
    free(tmp.names);
    return 0;
}

size_t hostlist_count(const struct hostlist *hl)
{
    return hl ? hl->n : 0;
}

const char *hostlist_nth(const struct hostlist *hl, size_t i)
{
    return hl && i < hl->n ? hl->names[i] : NULL;
}

int hostlist_find(const struct hostlist *hl, const char *name)
{
    for (size_t i = 0; hl && name && i < hl->n; i++)
        if (strcmp(hl->names[i], name) == 0)
            return (int)i;
    return -1;
}

/* A name split as Slurm does: prefix, then the trailing run of digits. */
struct split {
    size_t plen;            /* prefix length */
    const char *digits;     /* NULL when the name has no numeric suffix */
    size_t ndigits;
    unsigned long long num;
};

static struct split name_split(const char *name)
{
    struct split s = { strlen(name), NULL, 0, 0 };
    size_t end = s.plen, i = end;
    while (i > 0 && isdigit((unsigned char)name[i - 1]))
        i--;
    if (i < end && end - i <= NUM_MAX_DIGITS) {
        s.plen = i;
        s.digits = name + i;
        s.ndigits = end - i;
        s.num = strtoull(s.digits, NULL, 10);
    }
    return s;
}

/* Slurm orders host ranges by prefix, then plain names first, then number,
 * then width. */
static int name_cmp(const void *a, const void *b)
{
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    struct split sx = name_split(x), sy = name_split(y);
    size_t n = sx.plen < sy.plen ? sx.plen : sy.plen;
    int r = memcmp(x, y, n);
    if (r != 0)
        return r;
    if (sx.plen != sy.plen)
        return sx.plen < sy.plen ? -1 : 1;
    if (!sx.digits || !sy.digits)
        return (sx.digits != NULL) - (sy.digits != NULL);
    if (sx.num != sy.num)
        return sx.num < sy.num ? -1 : 1;
    return (sx.ndigits > sy.ndigits) - (sx.ndigits < sy.ndigits);
}

void hostlist_uniq(struct hostlist *hl)
{
    if (!hl || hl->n < 2)
        return;
    qsort(hl->names, hl->n, sizeof *hl->names, name_cmp);
    size_t w = 1;
    for (size_t i = 1; i < hl->n; i++) {
        if (strcmp(hl->names[i], hl->names[w - 1]) == 0)
            free(hl->names[i]);
        else
            hl->names[w++] = hl->names[i];
    }
    hl->n = w;
}

/* Whether digits print as themselves at zero-padded width w (w 0: none). */
static bool fits_width(const struct split *s, int w)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%0*llu", w, s->num);
    return strlen(buf) == s->ndigits && memcmp(buf, s->digits, s->ndigits) == 0;
}

static bool is_padded(const struct split *s)
{
    return s->ndigits > 1 && s->digits[0] == '0';
}

/* A run of names sharing one bracket: same prefix, compatible widths. */
struct group {
    const char *prefix;
    size_t plen;
    int width;              /* zero padding of the bracket, 0: none */
    size_t minlen;          /* shortest member, for widening to padded */
};

static bool group_accepts(struct group *g, const char *name, const struct split *s)
{
    if (!s->digits || s->plen != g->plen || memcmp(name, g->prefix, g->plen) != 0)
        return false;
    if (fits_width(s, g->width))
        return true;
    if (g->width == 0 && is_padded(s) && g->minlen >= s->ndigits) {
        g->width = (int)s->ndigits;
        return true;
    }
    return false;
}

static void buf_add(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void buf_add(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(*buf + *len, *cap - *len, fmt, ap);
        va_end(ap);
        if ((size_t)n < *cap - *len) {
            *len += (size_t)n;
            return;
        }
        *cap = (*cap + (size_t)n + 1) * 2;
        *buf = xrealloc(*buf, *cap);
    }
}

/* Writes names[i..j) (one group) as prefix[a-b,c]; ascending runs fold. */
static void group_write(const struct hostlist *hl, size_t i, size_t j, int width,
                        char **buf, size_t *len, size_t *cap)
{
    struct split s = name_split(hl->names[i]);
    buf_add(buf, len, cap, "%.*s[", (int)s.plen, hl->names[i]);
    size_t k = i;
    bool first = true;
    while (k < j) {
        unsigned long long lo = name_split(hl->names[k]).num, hi = lo;
        while (k + 1 < j && name_split(hl->names[k + 1]).num == hi + 1) {
            hi++;
            k++;
        }
        buf_add(buf, len, cap, "%s%0*llu", first ? "" : ",", width, lo);
        first = false;
        if (hi != lo)
            buf_add(buf, len, cap, "-%0*llu", width, hi);
        k++;
    }
    buf_add(buf, len, cap, "]");
}

char *hostlist_ranged_string(const struct hostlist *hl)
{
    size_t len = 0, cap = 64;
    char *buf = xmalloc(cap);
    buf[0] = '\0';
    for (size_t i = 0; hl && i < hl->n;) {
        const char *name = hl->names[i];
        struct split s = name_split(name);
        struct group g = { name, s.plen, is_padded(&s) ? (int)s.ndigits : 0, s.ndigits };
        size_t j = i + 1;
        if (s.digits) {
            for (; j < hl->n; j++) {
                struct split t = name_split(hl->names[j]);
                if (!group_accepts(&g, hl->names[j], &t))
                    break;
                if (t.ndigits < g.minlen)
                    g.minlen = t.ndigits;
            }
        }
        if (len)
            buf_add(&buf, &len, &cap, ",");
        if (j - i == 1)
            buf_add(&buf, &len, &cap, "%s", name);
        else
            group_write(hl, i, j, g.width, &buf, &len, &cap);
        i = j;
    }
    return buf;
}
