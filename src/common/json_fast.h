/*
 * json_fast: jansson's json_loadb and compact json_dumps, several times
 * faster on the JSON that Herd's programs write each other. jansson's loader reads a byte at a
 * time through a callback into a growing buffer: it took more than half of
 * sacct's time over 100,000 records and most of the controller's on a bulk
 * submission.
 *
 * The fast reader takes what it can read exactly as jansson would: objects,
 * arrays, strings (escapes, \u with surrogate pairs, UTF-8 checked as
 * jansson checks it), integers of up to 18 digits, true, false, null,
 * nesting 32 deep. Anything else (a fraction, a bigger integer, \u0000, an
 * error) is handed to jansson itself, so the answer is always
 * json_loadb's, and so is the error.
 */
#ifndef HERD_JSON_FAST_H
#define HERD_JSON_FAST_H

#include <jansson.h>
#include <stddef.h>

/* As json_loadb(text, len, 0, err); err may be NULL. */
json_t *json_fast_loadb(const char *text, size_t len, json_error_t *err);

/* As json_dumps(j, JSON_COMPACT): the same text, written without jansson's
 * callback per piece (a job's environment, spec and record at each
 * submission); a tree that holds a real is left to jansson. Caller frees. */
char *json_fast_dumps(const json_t *j);

#endif
