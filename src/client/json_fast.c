/*
 * json_fast: a reader over a pointer for the common case, jansson for the
 * rest (json_fast.h). Each value is built with jansson's own constructors,
 * the unchecked ones where the reader has checked already.
 */
#include <stdbool.h>
#include <string.h>

#include "client/json_fast.h"

#define MAX_DEPTH 32

struct rd {
    const char *p, *e;
};

static void ws(struct rd *r)
{
    while (r->p < r->e && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
        r->p++;
}

/* At '"': the plain ASCII between the quotes; false for anything else. */
static bool plain_string(struct rd *r, const char **s, size_t *n)
{
    const char *q = ++r->p;
    while (q < r->e && *q != '"') {
        if ((unsigned char)*q < 0x20 || (unsigned char)*q > 0x7e || *q == '\\')
            return false;
        q++;
    }
    if (q == r->e)
        return false;
    *s = r->p;
    *n = (size_t)(q - r->p);
    r->p = q + 1;
    return true;
}

/* An integer as jansson reads one: no leading zero, no fraction. */
static json_t *integer(struct rd *r)
{
    bool neg = r->p < r->e && *r->p == '-';
    const char *d = r->p + neg, *q = d;
    long long v = 0;
    while (q < r->e && *q >= '0' && *q <= '9' && q - d < 18)
        v = v * 10 + (*q++ - '0');
    bool zero_led = q - d > 1 && *d == '0';
    if (q == d || zero_led || (q < r->e && (*q == '.' || *q == 'e' || *q == 'E' ||
                                             (*q >= '0' && *q <= '9'))))
        return NULL;
    r->p = q;
    return json_integer(neg ? -v : v);
}

static json_t *word(struct rd *r)
{
    static const struct { const char *w; size_t n; } words[] = {
        {"true", 4}, {"false", 5}, {"null", 4},
    };
    for (size_t i = 0; i < 3; i++) {
        if ((size_t)(r->e - r->p) >= words[i].n && !memcmp(r->p, words[i].w, words[i].n)) {
            r->p += words[i].n;
            return i == 0 ? json_true() : i == 1 ? json_false() : json_null();
        }
    }
    return NULL;
}

static json_t *value(struct rd *r, int depth);

/* After '{': members up to its '}'. */
static json_t *object(struct rd *r, int depth)
{
    json_t *o = json_object();
    ws(r);
    if (r->p < r->e && *r->p == '}') {
        r->p++;
        return o;
    }
    for (;;) {
        const char *k;
        size_t kn;
        json_t *v;
        if (r->p >= r->e || *r->p != '"' || !plain_string(r, &k, &kn))
            break;
        ws(r);
        if (r->p >= r->e || *r->p != ':')
            break;
        r->p++;
        ws(r);
        if (!(v = value(r, depth)) || json_object_setn_new_nocheck(o, k, kn, v) < 0)
            break;
        ws(r);
        if (r->p < r->e && *r->p == '}') {
            r->p++;
            return o;
        }
        if (r->p >= r->e || *r->p != ',')
            break;
        r->p++;
        ws(r);
    }
    json_decref(o);
    return NULL;
}

/* After '[': elements up to its ']'. */
static json_t *array(struct rd *r, int depth)
{
    json_t *a = json_array();
    ws(r);
    if (r->p < r->e && *r->p == ']') {
        r->p++;
        return a;
    }
    for (;;) {
        json_t *v = value(r, depth);
        if (!v || json_array_append_new(a, v) < 0)
            break;
        ws(r);
        if (r->p < r->e && *r->p == ']') {
            r->p++;
            return a;
        }
        if (r->p >= r->e || *r->p != ',')
            break;
        r->p++;
        ws(r);
    }
    json_decref(a);
    return NULL;
}

static json_t *value(struct rd *r, int depth)
{
    const char *s;
    size_t n;
    if (r->p >= r->e || depth >= MAX_DEPTH)
        return NULL;
    switch (*r->p) {
    case '{':
        r->p++;
        return object(r, depth + 1);
    case '[':
        r->p++;
        return array(r, depth + 1);
    case '"':
        return plain_string(r, &s, &n) ? json_stringn_nocheck(s, n) : NULL;
    case '-':
    case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9':
        return integer(r);
    default:
        return word(r);
    }
}

json_t *json_fast_loadb(const char *text, size_t len)
{
    struct rd r = { text, text + len };
    ws(&r);
    json_t *j = r.p < r.e && (*r.p == '{' || *r.p == '[') ? value(&r, 0) : NULL;
    if (j) {
        ws(&r);
        if (r.p == r.e)
            return j;
        json_decref(j);
    }
    return json_loadb(text, len, 0, NULL);
}
