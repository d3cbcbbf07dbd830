/*
 * rawstr: bytes in JSON strings as private-use characters. See rawstr.h.
 */
#include "common/rawstr.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"

#define ESC_BASE 0xEF00u   /* a byte b travels as U+EF00 + b (b >= 0x80) */

/* The length of the valid UTF-8 sequence at p (2..4; overlong forms,
 * surrogates and code points past U+10FFFF are not valid), 0 if none; its
 * code point in *cp. p[0] >= 0x80. */
static size_t utf8_seq(const unsigned char *p, uint32_t *cp)
{
    size_t n;
    uint32_t min;
    if (p[0] >= 0xC2 && p[0] <= 0xDF) {
        n = 2, min = 0x80, *cp = p[0] & 0x1Fu;
    } else if (p[0] >= 0xE0 && p[0] <= 0xEF) {
        n = 3, min = 0x800, *cp = p[0] & 0x0Fu;
    } else if (p[0] >= 0xF0 && p[0] <= 0xF4) {
        n = 4, min = 0x10000, *cp = p[0] & 0x07u;
    } else {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80)   /* also stops at the NUL */
            return 0;
        *cp = *cp << 6 | (p[i] & 0x3Fu);
    }
    if (*cp < min || *cp > 0x10FFFF || (*cp >= 0xD800 && *cp <= 0xDFFF))
        return 0;
    return n;
}

static bool in_escape_range(uint32_t cp)
{
    return cp >= ESC_BASE + 0x80 && cp <= ESC_BASE + 0xFF;
}

/* Whether an escape (U+EF80..U+EFFF as UTF-8) starts at p; its byte in *b. */
static bool escape_at(const unsigned char *p, unsigned char *b)
{
    if (p[0] != 0xEE || (p[1] != 0xBE && p[1] != 0xBF) || (p[2] & 0xC0) != 0x80)
        return false;
    *b = (unsigned char)(0x80 | (p[1] & 1) << 6 | (p[2] & 0x3F));
    return true;
}

bool rawstr_needs_encoding(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        if (*p < 0x80) {
            p++;
            continue;
        }
        uint32_t cp;
        size_t n = utf8_seq(p, &cp);
        if (n == 0 || in_escape_range(cp))
            return true;
        p += n;
    }
    return false;
}

static char *put_escape(char *o, unsigned char b)
{
    *o++ = (char)0xEE;
    *o++ = (char)(0xBE | (b >> 6 & 1));
    *o++ = (char)(0x80 | (b & 0x3F));
    return o;
}

char *rawstr_encode(const char *s)
{
    if (!rawstr_needs_encoding(s))
        return xstrdup(s);
    const unsigned char *p = (const unsigned char *)s;
    char *out = xmalloc(strlen(s) * 3 + 1), *o = out;   /* each byte at most 3 */
    while (*p) {
        uint32_t cp;
        size_t n = *p < 0x80 ? 1 : utf8_seq(p, &cp);
        if (n == 0) {
            o = put_escape(o, *p++);
        } else if (n > 1 && in_escape_range(cp)) {
            for (size_t i = 0; i < n; i++)
                o = put_escape(o, *p++);
        } else {
            memcpy(o, p, n);
            o += n;
            p += n;
        }
    }
    *o = '\0';
    return out;
}

void rawstr_decode_in_place(char *text)
{
    char *o = text;
    const unsigned char *p = (const unsigned char *)text;
    while (*p) {
        unsigned char b;
        if (*p == 0xEE && escape_at(p, &b)) {
            *o++ = (char)b;
            p += 3;
        } else {
            *o++ = (char)*p++;
        }
    }
    *o = '\0';
}

char *rawstr_decode(const char *text)
{
    char *out = xstrdup(text);
    rawstr_decode_in_place(out);
    return out;
}

size_t rawstr_decoded_len(const char *text)
{
    size_t n = 0;
    const unsigned char *p = (const unsigned char *)text;
    while (*p) {
        unsigned char b;
        p += *p == 0xEE && escape_at(p, &b) ? 3 : 1;
        n++;
    }
    return n;
}

json_t *json_rawstr(const char *s)
{
    if (!rawstr_needs_encoding(s))
        return json_string(s);
    char *text = rawstr_encode(s);
    json_t *v = json_string(text);
    free(text);
    return v;
}

char *json_rawstr_value(const json_t *v)
{
    if (!json_is_string(v) || strlen(json_string_value(v)) != json_string_length(v))
        return NULL;
    return rawstr_decode(json_string_value(v));
}
