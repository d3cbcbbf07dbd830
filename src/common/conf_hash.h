/*
 * conf_hash: the configuration files a configless controller serves
 * (slurm.conf, and gres.conf and cgroup.conf where they are beside it) and
 * the hash of them. The controller hashes what it serves and `herd doctor`
 * hashes a host's own files the same way, so that the two compare equal
 * exactly when the files are the same.
 */
#ifndef HERD_CONF_HASH_H
#define HERD_CONF_HASH_H

#include <jansson.h>

/* {"slurm.conf": TEXT, "gres.conf": ..., "cgroup.conf": ...} for the files
 * that exist beside conf_path (conf_path itself is slurm.conf). Caller
 * decrefs; a file that cannot be read is left out. */
json_t *conf_hash_files(const char *conf_path);

/* FNV-1a of the files as conf_hash_files gives them, in hex. Caller frees. */
char *conf_hash_of(const json_t *files);

#endif
