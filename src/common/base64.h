/*
 * base64: bytes carried in JSON strings (srun's stdin to the tasks), which
 * must be UTF-8. RFC 4648's alphabet, with padding.
 */
#ifndef HERD_BASE64_H
#define HERD_BASE64_H

#include <stddef.h>

/* NUL-terminated text; caller frees. */
char *base64_encode(const void *data, size_t len);
/* The bytes (NUL-terminated too, for convenience) and their count in *len;
 * NULL when s is not base64. Caller frees. */
unsigned char *base64_decode(const char *s, size_t *len);

#endif
