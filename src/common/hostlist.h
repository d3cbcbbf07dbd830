/*
 * hostlist: Slurm's host list expressions, both ways.
 * "node[01-16,20]", "gpu-[a-c][1-2]" (brackets may repeat; a range inside
 * brackets is numeric with its zero padding kept, or single letters),
 * comma-separated terms ("a,b[1-3]"). Names keep the order they are given in.
 */
#ifndef HERD_HOSTLIST_H
#define HERD_HOSTLIST_H

#include <stddef.h>

struct hostlist;

/* NULL with errno = EINVAL on a malformed expression; "" gives an empty list. */
struct hostlist *hostlist_create(const char *expr);
void hostlist_destroy(struct hostlist *hl);          /* NULL is a no-op */

/* Appends every name of expr; 0, or -1 (EINVAL) leaving hl unchanged. */
int hostlist_push(struct hostlist *hl, const char *expr);
size_t hostlist_count(const struct hostlist *hl);
const char *hostlist_nth(const struct hostlist *hl, size_t i);  /* NULL past the end */
int hostlist_find(const struct hostlist *hl, const char *name); /* index or -1 */
void hostlist_uniq(struct hostlist *hl);             /* sorts (as Slurm) and drops repeats */

/* Slurm's compressed form, e.g. "node[1-3,5],gpu01": consecutive names with
 * the same prefix and padding fold into one bracket. Caller frees. */
char *hostlist_ranged_string(const struct hostlist *hl);

#endif
