/*
 * setup: what `herd setup` and `herd doctor` share about this machine: its
 * short host name and the node line `herdd -C` prints for it (CPUs, memory,
 * GPUs through NVML). herd itself does not link the node agent's NVML code:
 * it asks herdd, found beside herd or in ../sbin as herd up finds it.
 */
#ifndef HERD_CMD_SETUP_H
#define HERD_CMD_SETUP_H

#include <stddef.h>

/* This host's name up to the first dot. */
void setup_short_host(char *buf, size_t n);

/* The "NodeName=..." line of `herdd -C [-N name]`, without its newline;
 * caller frees. NULL (after printing why) when herdd cannot say. */
char *setup_node_line(const char *name);

/* The value of KEY=VALUE in a node line ("Gres" -> "gpu:a100:8"); caller
 * frees; NULL when absent. */
char *setup_line_value(const char *line, const char *key);

/* GPUs a Gres= value declares ("gpu:a100:8,gpu:2" -> 10); 0 for none. */
int setup_gres_gpus(const char *gres);

#endif
