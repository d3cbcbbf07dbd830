/*
 * sinfo's parts below its main. Rows are groups: the nodes of one partition
 * that print the same (same state, and same CPUs, memory, GRES ... when the
 * format shows them), with their names folded into one host list, as in
 * Slurm; with -N every node of every partition is its own row. Slurm's own
 * defaults (sinfo/opts.c) right-justify the partition in -N mode, which the
 * man page's "%#P" does not show.
 */
#ifndef HERD_SINFO_H
#define HERD_SINFO_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cmd/cmdutil.h"
#include "cmd/format.h"
#include "cmd/nodestate.h"

#define SINFO_FORMAT "%#P %.5a %.10l %.6D %.6t %N"
#define SINFO_FORMAT_LONG "%#P %.5a %.10l %.10s %.4r %.8h %.10g %.6D %.11T %N"
#define SINFO_FORMAT_NODE "%#N %.6D %.#P %6t"
#define SINFO_FORMAT_NODE_LONG "%#N %.6D %.#P %.11T %.4c %.8z %.6m %.8d %.6w %.8f %20E"

struct hostlist;

struct sinfo_opts {
    const char *format;        /* NULL: one of the defaults above */
    bool long_list;            /* -l: the date line first and a long format */
    bool node_mode;            /* -N */
    bool noheader;
    struct strlist parts;      /* -p */
    int64_t now;               /* for the date line */
};

struct sinfo_group {
    const json_t *part;
    size_t part_index;         /* the partition's place in the answer */
    const json_t *node;        /* the first node; NULL for an empty partition */
    struct nodestate state;
    struct hostlist *hl;
    int nnodes;
    int64_t cpus_min, cpus_max, mem_min, mem_max;
    int64_t cpus_alloc, cpus_idle, cpus_other, cpus_total;
    int nodes_alloc, nodes_idle, nodes_other;
};

/* Prints the answers of GET /v1/partitions and GET /v1/nodes. */
void sinfo_print(FILE *out, const json_t *parts, const json_t *nodes,
                 const struct sinfo_opts *o, const char *prog);

/* The rows for format f, sorted as Slurm sorts them ("#P,-t"; with -N by
 * node name); *n their count. sinfo_groups_free frees them. */
struct sinfo_group *sinfo_groups(const json_t *parts, const json_t *nodes,
                                 const struct sinfo_opts *o, const struct fmt *f, size_t *n);
void sinfo_groups_free(struct sinfo_group *g, size_t n);

/* The node format codes (sinfo_fields.c); records are sinfo_groups. */
extern const struct fmt_code sinfo_codes[];

#endif
