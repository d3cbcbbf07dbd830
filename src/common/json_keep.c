/*
 * json_keep: members of a JSON object's text kept by name (json_keep.h).
 * The text is scanned, never parsed into values: a kept member is copied
 * as it stands, a dropped one only skipped over, so the cost is a pass over
 * the bytes. The scan checks the grammar as it goes, so what it writes is
 * JSON whenever it says so.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/json_keep.h"
#include "common/xmalloc.h"

#define MAX_DEPTH 64   /* a job record nests four deep */

void json_keep_put(struct json_keep_buf *b, const char *p, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->p = xrealloc(b->p, b->cap);
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static const char *ws(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

static const char *skip_string(const char *p, const char *e)
{
    for (p++; p < e; p++) {
        if ((unsigned char)*p < 0x20)
            return NULL;
        if (*p == '"')
            return p + 1;
        if (*p == '\\' && ++p == e)
            return NULL;
    }
    return NULL;
}

static bool digit(const char *p, const char *e)
{
    return p < e && *p >= '0' && *p <= '9';
}

static const char *skip_digits(const char *p, const char *e)
{
    if (!digit(p, e))
        return NULL;
    while (digit(p, e))
        p++;
    return p;
}

static const char *skip_number(const char *p, const char *e)
{
    if (p < e && *p == '-')
        p++;
    if (!(p = skip_digits(p, e)))
        return NULL;
    if (p < e && *p == '.' && !(p = skip_digits(p + 1, e)))
        return NULL;
    if (p < e && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < e && (*p == '+' || *p == '-'))
            p++;
        p = skip_digits(p, e);
    }
    return p;
}

static const char *skip_word(const char *p, const char *e)
{
    static const char *const words[] = { "true", "false", "null" };
    for (size_t i = 0; i < 3; i++) {
        size_t n = strlen(words[i]);
        if ((size_t)(e - p) >= n && !memcmp(p, words[i], n))
            return p + n;
    }
    return NULL;
}

static const char *skip_value(const char *p, const char *e, int depth);

/* After an object's or array's opening bracket: up to past its close. */
static const char *skip_members(const char *p, const char *e, char close, int depth)
{
    if ((p = ws(p, e)) < e && *p == close)
        return p + 1;
    while (p && p < e) {
        if (close == '}') {
            if (*p != '"' || !(p = skip_string(p, e)) || (p = ws(p, e)) >= e || *p != ':')
                return NULL;
            p = ws(p + 1, e);
        }
        if (!(p = skip_value(p, e, depth)) || (p = ws(p, e)) >= e)
            return NULL;
        if (*p == close)
            return p + 1;
        p = *p == ',' ? ws(p + 1, e) : NULL;
    }
    return NULL;
}

static const char *skip_value(const char *p, const char *e, int depth)
{
    if (p >= e)
        return NULL;
    switch (*p) {
    case '"':
        return skip_string(p, e);
    case '{':
    case '[':
        return depth < MAX_DEPTH ? skip_members(p + 1, e, *p == '{' ? '}' : ']', depth + 1)
                                 : NULL;
    case '-':
        return skip_number(p, e);
    default:
        return digit(p, e) ? skip_number(p, e) : skip_word(p, e);
    }
}

/* Which of paths the member named key[0..n) is: 1 all of it; 0 some of
 * its members (their paths in sub); -1 none. The name is compared as it is
 * written: jansson, which wrote the records, escapes no plain name. */
static int match(const char *key, size_t n, const char *const *paths, size_t npaths,
                 const char **sub, size_t *nsub)
{
    *nsub = 0;
    for (size_t i = 0; i < npaths; i++) {
        if (paths[i][0] != key[0] || strncmp(paths[i], key, n))
            continue;
        if (paths[i][n] == '\0')
            return 1;
        if (paths[i][n] == '.')
            sub[(*nsub)++] = paths[i] + n + 1;
    }
    return *nsub ? 0 : -1;
}

/* p at an object's '{': its kept members to b; past its '}', or NULL. */
static const char *keep_object(const char *p, const char *e, const char *const *paths,
                               size_t npaths, int depth, struct json_keep_buf *b)
{
    const char *sub[JSON_KEEP_MAX_PATHS];
    size_t nsub;
    bool first = true;
    json_keep_put(b, "{", 1);
    if ((p = ws(p + 1, e)) < e && *p == '}') {
        json_keep_put(b, "}", 1);
        return p + 1;
    }
    while (p < e && *p == '"') {
        const char *key = p, *colon;
        if (!(p = skip_string(p, e)) || (colon = ws(p, e)) >= e || *colon != ':')
            return NULL;
        const char *val = ws(colon + 1, e), *end;
        int m = match(key + 1, (size_t)(p - key - 2), paths, npaths, sub, &nsub);
        size_t mark = b->len;
        if (m >= 0 && (m == 1 || (val < e && *val == '{'))) {
            if (!first)
                json_keep_put(b, ",", 1);
            json_keep_put(b, key, (size_t)(p - key));
            json_keep_put(b, ":", 1);
        } else {
            m = -1;
        }
        if (m == 0)
            end = depth < MAX_DEPTH ? keep_object(val, e, sub, nsub, depth + 1, b) : NULL;
        else if ((end = skip_value(val, e, depth)) && m == 1)
            json_keep_put(b, val, (size_t)(end - val));
        if (m == 0 && b->p[b->len - 2] == '{')
            b->len = mark;   /* none of its members: left out, as absent reads the same */
        first = first && b->len == mark;
        if (!end || (p = ws(end, e)) >= e)
            return NULL;
        if (*p == '}') {
            json_keep_put(b, "}", 1);
            return p + 1;
        }
        if (*p != ',')
            return NULL;
        p = ws(p + 1, e);
    }
    return NULL;
}

int json_keep(const char *text, size_t len, const char *const *paths, size_t npaths,
              struct json_keep_buf *out)
{
    const char *e = text + len, *p = ws(text, e);
    size_t was = out->len;
    if (npaths > JSON_KEEP_MAX_PATHS || p >= e || *p != '{')
        return -1;
    p = keep_object(p, e, paths, npaths, 0, out);
    if (p && ws(p, e) == e)
        return 0;
    out->len = was;
    return -1;
}

void json_keep_buf_free(struct json_keep_buf *b)
{
    free(b->p);
    *b = (struct json_keep_buf){0};
}
