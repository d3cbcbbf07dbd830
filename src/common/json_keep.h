/*
 * json_keep: a JSON object's text cut down to the members a reader names,
 * without building a tree of it. The controller keeps each job's record as
 * JSON text; sacct over 100,000 records reads a few of their 25 members,
 * and parsing the whole of each on both sides cost most of its time.
 *
 * A path is a member's name ("state"), or a member of a member's object
 * ("spec.account"). Kept members are copied byte for byte, in the order the
 * text has them.
 */
#ifndef HERD_JSON_KEEP_H
#define HERD_JSON_KEEP_H

#include <stddef.h>

#define JSON_KEEP_MAX_PATHS 64

/* A growing buffer of text, reused from one call to the next. */
struct json_keep_buf {
    char *p;
    size_t len, cap;
};

/* Appends to out text's object with only the members paths name: at most
 * JSON_KEEP_MAX_PATHS. -1, out as it was, when text is not one well-formed
 * object (or nests deeper than any record does): the caller then has the
 * text as it is. */
int json_keep(const char *text, size_t len, const char *const *paths, size_t npaths,
              struct json_keep_buf *out);
/* Appends n bytes of p to b. */
void json_keep_put(struct json_keep_buf *b, const char *p, size_t n);
void json_keep_buf_free(struct json_keep_buf *b);

#endif
