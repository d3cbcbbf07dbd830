/*
 * base64: RFC 4648 encoding and strict decoding. See base64.h.
 */
#include "common/base64.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"

static const char alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *base64_encode(const void *data, size_t len)
{
    const unsigned char *p = data;
    char *out = xmalloc((len + 2) / 3 * 4 + 1), *o = out;
    for (size_t i = 0; i < len; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < len)
            v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < len)
            v |= p[i + 2];
        *o++ = alphabet[v >> 18 & 63];
        *o++ = alphabet[v >> 12 & 63];
        *o++ = i + 1 < len ? alphabet[v >> 6 & 63] : '=';
        *o++ = i + 2 < len ? alphabet[v & 63] : '=';
    }
    *o = '\0';
    return out;
}

static int sextet(char c)
{
    const char *at = c ? strchr(alphabet, c) : NULL;
    return at ? (int)(at - alphabet) : -1;
}

unsigned char *base64_decode(const char *s, size_t *len)
{
    size_t n = strlen(s);
    if (n % 4)
        return NULL;
    unsigned char *out = xmalloc(n / 4 * 3 + 1);
    size_t k = 0;
    for (size_t i = 0; i < n; i += 4) {
        int pad = (s[i + 3] == '=') + (s[i + 2] == '=' && s[i + 3] == '=');
        if (pad && i + 4 != n)
            goto bad;
        int a = sextet(s[i]), b = sextet(s[i + 1]);
        int c = pad == 2 ? 0 : sextet(s[i + 2]), d = pad ? 0 : sextet(s[i + 3]);
        if (a < 0 || b < 0 || c < 0 || d < 0)
            goto bad;
        uint32_t v = (uint32_t)a << 18 | (uint32_t)b << 12 | (uint32_t)c << 6 | (uint32_t)d;
        out[k++] = (unsigned char)(v >> 16);
        if (pad < 2)
            out[k++] = (unsigned char)(v >> 8);
        if (pad < 1)
            out[k++] = (unsigned char)v;
    }
    out[k] = '\0';
    *len = k;
    return out;
bad:
    free(out);
    return NULL;
}
