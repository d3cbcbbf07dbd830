/*
 * intern: one copy of each string that many jobs share (the user's name,
 * account, QOS, constraint, GPU type, and job names, which users repeat),
 * counted, so that 100,000 pending jobs of a few users hold a few strings
 * rather than 100,000 of each (bench/RESULTS.md: memory per pending job).
 * The last release frees a string, so that names a user submitted once do
 * not stay after their jobs are purged.
 *
 * The controller's main loop alone calls these (jobs are built and destroyed
 * there); a scheduling pass reads the strings through its snapshot.
 */
#ifndef HERD_CTLD_INTERN_H
#define HERD_CTLD_INTERN_H

#include <stddef.h>

/* A counted reference to the one copy of s; NULL for NULL. */
const char *intern(const char *s);
/* Gives back a reference intern returned; NULL is none. */
void intern_release(const char *s);
/* Distinct strings held (for tests and the memory figures). */
size_t intern_count(void);

#endif
