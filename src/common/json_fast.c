/*
 * json_fast: a reader over a pointer for what Herd writes, jansson for the
 * rest (json_fast.h). Each value is built with jansson's own constructors,
 * the unchecked ones where the reader has checked already.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json_fast.h"

#define MAX_DEPTH 32

struct rd {
    const char *p, *e;
    char *buf;          /* a decoded string */
    size_t cap;
};

static void ws(struct rd *r)
{
    while (r->p < r->e && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
        r->p++;
}

static bool room(struct rd *r, size_t n)
{
    if (n <= r->cap)
        return true;
    char *b = realloc(r->buf, n * 2);
    if (!b)
        return false;
    r->buf = b;
    r->cap = n * 2;
    return true;
}

/* The length of the UTF-8 sequence at s, as jansson checks one (no
 * overlong forms, no surrogates, nothing above U+10FFFF); 0 if invalid. */
static size_t utf8_len(const unsigned char *s, const unsigned char *e)
{
    unsigned char c = s[0];
    size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3
             : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (!n || (size_t)(e - s) < n)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] > 0x9f) ||
        (c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] > 0x8f))
        return 0;
    return n;
}

static int hex4(const char *p)
{
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

/* At a backslash: the character it stands for, UTF-8, into r->buf at *n;
 * false for what jansson refuses or reads otherwise (\u0000). */
static bool unescape(struct rd *r, const char **q, size_t *n)
{
    const char *s = *q + 1;
    if (s >= r->e || !room(r, *n + 4))
        return false;
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    const char *k = *s ? strchr(from, *s) : NULL;
    if (k) {
        r->buf[(*n)++] = to[k - from];
        *q = s + 1;
        return true;
    }
    if (*s != 'u' || r->e - s < 5)
        return false;
    long cp = hex4(s + 1);
    s += 5;
    if (cp >= 0xd800 && cp <= 0xdbff) {   /* a pair's first half: the second must follow */
        int lo = r->e - s >= 6 && s[0] == '\\' && s[1] == 'u' ? hex4(s + 2) : -1;
        if (lo < 0xdc00 || lo > 0xdfff)
            return false;
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        s += 6;
    }
    if (cp <= 0 || (cp >= 0xdc00 && cp <= 0xdfff))
        return false;
    char *o = r->buf + *n;
    if (cp < 0x80) {
        o[0] = (char)cp;
        *n += 1;
    } else if (cp < 0x800) {
        o[0] = (char)(0xc0 | cp >> 6);
        o[1] = (char)(0x80 | (cp & 0x3f));
        *n += 2;
    } else if (cp < 0x10000) {
        o[0] = (char)(0xe0 | cp >> 12);
        o[1] = (char)(0x80 | (cp >> 6 & 0x3f));
        o[2] = (char)(0x80 | (cp & 0x3f));
        *n += 3;
    } else {
        o[0] = (char)(0xf0 | cp >> 18);
        o[1] = (char)(0x80 | (cp >> 12 & 0x3f));
        o[2] = (char)(0x80 | (cp >> 6 & 0x3f));
        o[3] = (char)(0x80 | (cp & 0x3f));
        *n += 4;
    }
    *q = s;
    return true;
}

/* At '"': the string's characters, in the text itself when it has no
 * escape, else decoded into r->buf; false for anything jansson refuses. */
static bool string(struct rd *r, const char **s, size_t *n)
{
    const char *q = ++r->p, *plain = q;
    size_t len = 0;
    bool copied = false;
    while (q < r->e && *q != '"') {
        unsigned char c = (unsigned char)*q;
        if (c < 0x20)
            return false;
        if (c == '\\') {
            if (!copied) {
                if (!room(r, (size_t)(q - plain) + 1))
                    return false;
                memcpy(r->buf, plain, (size_t)(q - plain));
                len = (size_t)(q - plain);
                copied = true;
            }
            if (!unescape(r, &q, &len))
                return false;
            continue;
        }
        size_t k = c < 0x80 ? 1 : utf8_len((const unsigned char *)q, (const unsigned char *)r->e);
        if (!k)
            return false;
        if (copied) {
            if (!room(r, len + k))
                return false;
            memcpy(r->buf + len, q, k);
            len += k;
        }
        q += k;
    }
    if (q == r->e)
        return false;
    *s = copied ? r->buf : plain;
    *n = copied ? len : (size_t)(q - plain);
    r->p = q + 1;
    return true;
}

/* An integer as jansson reads one: no leading zero; a fraction or an
 * exponent (a real) is left to jansson. */
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
    static const struct {
        const char *w;
        size_t n;
    } words[] = { { "true", 4 }, { "false", 5 }, { "null", 4 } };
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
        if (r->p >= r->e || *r->p != '"' || !string(r, &k, &kn))
            break;
        char *key = k == r->buf ? strndup(k, kn) : NULL;   /* the value may reuse r->buf */
        ws(r);
        if (r->p < r->e && *r->p == ':') {
            r->p++;
            ws(r);
            v = value(r, depth);
        } else {
            v = NULL;
        }
        int rc = v ? json_object_setn_new_nocheck(o, key ? key : k, kn, v) : -1;
        free(key);
        if (rc < 0)
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
        return string(r, &s, &n) ? json_stringn_nocheck(s, n) : NULL;
    case '-':
    case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9':
        return integer(r);
    default:
        return word(r);
    }
}

json_t *json_fast_loadb(const char *text, size_t len, json_error_t *err)
{
    struct rd r = { text, text + len, NULL, 0 };
    ws(&r);
    json_t *j = r.p < r.e && (*r.p == '{' || *r.p == '[') ? value(&r, 0) : NULL;
    free(r.buf);
    if (j) {
        ws(&r);
        if (r.p == r.e)
            return j;
        json_decref(j);
    }
    return json_loadb(text, len, 0, err);
}

/* ---- the compact dump ----
 * Two passes: the first only counts, the second writes into the exact
 * size. A scratch buffer grown and copied from would leave a hole beside
 * each spec a job keeps: 70 bytes a pending job at 100,000 (bench). */

struct out {
    char *p;            /* NULL: counting */
    size_t len;
    bool real;          /* met a real: jansson writes the whole */
};

static void put(struct out *o, const char *s, size_t n)
{
    if (o->p)
        memcpy(o->p + o->len, s, n);
    o->len += n;
}
/* As jansson escapes: the quote, the backslash, and control characters
 * (\b \f \n \r \t by name, the rest as \u00XX); UTF-8 as it is. */
static void put_string(struct out *o, const char *s, size_t n)
{
    put(o, "\"", 1);
    size_t from = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        put(o, s + from, i - from);
        from = i + 1;
        static const char named[] = "\b\f\n\r\t";
        const char *k = c ? memchr(named, c, 5) : NULL;
        char esc[8];
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            put(o, esc, 2);
        } else if (k) {
            esc[0] = '\\';
            esc[1] = "bfnrt"[k - named];
            put(o, esc, 2);
        } else {
            snprintf(esc, sizeof esc, "\\u%04X", c);
            put(o, esc, 6);
        }
    }
    put(o, s + from, n - from);
    put(o, "\"", 1);
}

static void put_value(struct out *o, const json_t *j)
{
    char num[32];
    const char *key;
    json_t *v;
    size_t i, first = 1;
    switch (json_typeof(j)) {
    case JSON_OBJECT:
        put(o, "{", 1);
        json_object_foreach((json_t *)j, key, v) {
            if (!first)
                put(o, ",", 1);
            first = 0;
            put_string(o, key, strlen(key));
            put(o, ":", 1);
            put_value(o, v);
        }
        put(o, "}", 1);
        break;
    case JSON_ARRAY:
        put(o, "[", 1);
        json_array_foreach(j, i, v) {
            if (i)
                put(o, ",", 1);
            put_value(o, v);
        }
        put(o, "]", 1);
        break;
    case JSON_STRING:
        put_string(o, json_string_value(j), json_string_length(j));
        break;
    case JSON_INTEGER:
        put(o, num, (size_t)snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT,
                                      json_integer_value(j)));
        break;
    case JSON_TRUE:
        put(o, "true", 4);
        break;
    case JSON_FALSE:
        put(o, "false", 5);
        break;
    case JSON_NULL:
        put(o, "null", 4);
        break;
    default:
        o->real = true;
    }
}

char *json_fast_dumps(const json_t *j)
{
    if (!json_is_object(j) && !json_is_array(j))
        return NULL;   /* as json_dumps without JSON_ENCODE_ANY */
    struct out o = {0};
    put_value(&o, j);
    if (o.real)
        return json_dumps(j, JSON_COMPACT);
    if (!(o.p = malloc(o.len + 1)))
        abort();
    o.len = 0;
    put_value(&o, j);
    o.p[o.len] = '\0';
    return o.p;
}
