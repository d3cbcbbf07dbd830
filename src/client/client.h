/*
 * client: how a command reaches the controller. The cluster is found through
 * $SLURM_CONF (else /etc/herd/slurm.conf); the controller's Unix socket
 * <StateSaveLocation>/herdctld.sock is used when it exists on this host,
 * otherwise TCP to SlurmctldHost:SlurmctldPort with a MUNGE credential.
 * One blocking request per call ("Connection: close").
 */
#ifndef HERD_CLIENT_H
#define HERD_CLIENT_H

#include <jansson.h>

struct conf;

/* The loaded configuration; on a bad or missing file prints
 * "PROG: error: FILE:LINE: ..." and exits 1. */
const struct conf *client_conf(const char *prog);

/* Sends method path with body (borrowed; NULL for none). Returns the HTTP
 * status with *resp the parsed JSON answer (caller decrefs; {} when empty),
 * or -1 when the controller cannot be reached, with err set to Slurm's
 * "Unable to contact slurm controller (connect failure)". */
int client_call(const char *prog, const char *method, const char *path, json_t *body,
                json_t **resp, char *err, size_t errlen);

/* GET path whose answer is not JSON: on 200, *text (NUL-terminated, *len
 * bytes; caller frees); otherwise *error is the JSON error answer (caller
 * decrefs). The status, or -1 with err set. */
int client_get_text(const char *prog, const char *path, char **text, size_t *len,
                    json_t **error, char *err, size_t errlen);

/* A line of an answer's body, NUL-terminated in place of its newline;
 * nonzero stops the reading. */
typedef int (*client_line_fn)(char *line, size_t len, void *arg);

/* GET path whose answer is lines (sacct's records): on 200, each line to
 * fn as it arrives, so that an answer of a million lines is never in
 * memory whole; otherwise as client_get_text. */
int client_get_lines(const char *prog, const char *path, client_line_fn fn, void *arg,
                     json_t **error, char *err, size_t errlen);

/* The "error" string of an error answer, or a generic text; borrowed. */
const char *client_error_text(json_t *resp, int status);

#endif
