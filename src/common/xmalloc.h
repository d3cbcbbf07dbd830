/*
 * xmalloc: allocation that cannot fail (it aborts on out-of-memory), so that
 * callers need no error path for it. xfree(p) frees and sets p to NULL.
 */
#ifndef HERD_XMALLOC_H
#define HERD_XMALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);          /* NULL in, NULL out */
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define xfree(p) do { free(p); (p) = NULL; } while (0)

#endif
