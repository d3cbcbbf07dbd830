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

#include "client/cmdutil.h"
#include "client/format.h"
#include "client/nodestate.h"

#define SINFO_FORMAT "%#P %.5a %.10l %.6D %.6t %N"
#define SINFO_FORMAT_LONG "%#P %.5a %.10l %.10s %.4r %.8h %.10g %.6D %.11T %N"
#define SINFO_FORMAT_NODE "%#N %.6D %.#P %6t"
#define SINFO_FORMAT_NODE_LONG "%#N %.6D %.#P %.11T %.4c %.8z %.6m %.8d %.6w %.8f %20E"
#define SINFO_FORMAT_SUMMARIZE "%#P %.5a %.10l %.16F  %N"
#define SINFO_FORMAT_REASONS "%20E %9u %19H %N"
#define SINFO_FORMAT_REASONS_LONG "%20E %12U %19H %6t %N"
/* -R without -t shows these states, as Slurm */
#define SINFO_REASON_STATES "down,fail,drain"

/* The -O codes with no letter in -o. */
#define SINFO_CODE_ALLOC_MEM '\x01'
#define SINFO_CODE_GRES_USED '\x02'

struct hostlist;

/* A -t state: a base state, or a flag (drain, drained ...). */
struct sinfo_state {
    enum { SINFO_ST_BASE, SINFO_ST_ALLOC, SINFO_ST_DRAIN, SINFO_ST_DRAINED,
           SINFO_ST_DRAINING, SINFO_ST_NO_RESPOND, SINFO_ST_COMPLETING,
           SINFO_ST_MAINT, SINFO_ST_RESERVED, SINFO_ST_NEVER } kind;
    enum nodestate_base base;  /* for SINFO_ST_BASE */
};

struct sinfo_opts {
    const char *format;        /* NULL: one of the defaults above */
    const char *long_format;   /* -O */
    bool long_list;            /* -l: the date line first and a long format */
    bool node_mode;            /* -N */
    bool noheader;
    bool list_reasons;         /* -R */
    bool summarize;            /* -s */
    bool json;                 /* --json */
    bool reservations;         /* -T: the reservations instead */
    struct strlist parts;      /* -p */
    struct hostlist *nodes;    /* -n; NULL: all */
    struct sinfo_state *states; /* -t (or -R's default); NULL: all */
    size_t nstates;
    bool states_given;         /* -t, even "all": -R then keeps its states */
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

/* Prints the answers of GET /v1/partitions and GET /v1/nodes; -1 when
 * the -O format names an unknown field. */
int sinfo_print(FILE *out, const json_t *parts, const json_t *nodes,
                const struct sinfo_opts *o, const char *prog);

/* The format the options ask for, parsed; NULL after an error message
 * for an unknown -O field. fmt_destroy frees it. */
struct fmt *sinfo_format(const struct sinfo_opts *o, const char *prog);

/* A node object's state, its reservation flags included (sinfo_filter.c). */
void sinfo_node_state(const json_t *node, struct nodestate *st);
/* Whether a node passes -n and -t (sinfo_filter.c). */
bool sinfo_node_wanted(const json_t *node, const struct sinfo_opts *o);
/* Parses a -t list into o->states; -1 after Slurm's error messages. */
int sinfo_parse_states(struct sinfo_opts *o, const char *csv, const char *prog);

/* sinfo --json: the nodes -n/-t/-p keep and the partitions, in Slurm
 * 22.05's openapi v0.0.38 shape (sinfo_json.c). */
void sinfo_print_json(FILE *out, const json_t *parts, const json_t *nodes,
                      const struct sinfo_opts *o);

/* sinfo -T: GET /v1/reservations's list (sinfo_resv.c). */
void sinfo_print_resv(FILE *out, const json_t *list, const struct sinfo_opts *o);

/* The rows for format f, sorted as Slurm sorts them ("#P,-t"; with -N by
 * node name); *n their count. sinfo_groups_free frees them. */
struct sinfo_group *sinfo_groups(const json_t *parts, const json_t *nodes,
                                 const struct sinfo_opts *o, const struct fmt *f, size_t *n);
void sinfo_groups_free(struct sinfo_group *g, size_t n);

/* The node format codes (sinfo_fields.c); records are sinfo_groups. The
 * partition fields carry SINFO_PART: a format without any puts nodes of
 * every partition on shared rows, each node once. */
#define SINFO_PART (1u << 8)
extern const struct fmt_code sinfo_codes[];
/* A node's GPUs in use as Slurm's gres_used: "gpu:a100:2(IDX:0-1)";
 * NULL for a node without GPUs. Caller frees. */
char *sinfo_gres_used(const json_t *node);
/* The -O names of the codes. */
extern const struct fmt_name sinfo_names[];

#endif
