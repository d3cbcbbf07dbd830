/*
 * rawstr: the bytes of what a user gives (a script, an environment entry, a
 * job name, a comment, a path) carried in JSON, whose strings must be UTF-8.
 * Slurm keeps such bytes as they are, so Herd must too, whatever encoding
 * the user's files and terminal use.
 *
 * A byte that is not part of valid UTF-8 travels as the character
 * U+EF00 + byte (U+EF80..U+EFFF, private use; MirBSD's OPTU-8 makes the same
 * choice), and so does each byte of a character the text already holds in
 * that range, so that decoding gives back exactly the bytes encoded. Valid
 * UTF-8 without those characters is its own encoding: text stored by the
 * versions before this one reads the same, and ASCII costs nothing.
 *
 * The controller keeps and compares the encoded text as it is; the node
 * agent decodes what it writes to files, the environment and argv; the
 * commands encode what they send and decode what they print.
 */
#ifndef HERD_RAWSTR_H
#define HERD_RAWSTR_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Whether encoding s would change it (a byte >= 0x80 that is not plain
 * UTF-8, or a character of the escape range). */
bool rawstr_needs_encoding(const char *s);
/* The UTF-8 text carrying s's bytes; caller frees. */
char *rawstr_encode(const char *s);
/* The bytes text carries (text need not be valid UTF-8: what is not an
 * escape is copied); never longer than text; caller frees. */
char *rawstr_decode(const char *text);
/* rawstr_decode into text itself (the bytes are never longer). */
void rawstr_decode_in_place(char *text);
/* How many bytes rawstr_decode(text) gives. */
size_t rawstr_decoded_len(const char *text);
/* A JSON string carrying s's bytes (json_string(s) when s is plain). */
json_t *json_rawstr(const char *s);
/* The bytes a JSON string value carries, or NULL when v is not a string
 * or holds a NUL; caller frees. */
char *json_rawstr_value(const json_t *v);

#endif
