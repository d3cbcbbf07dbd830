/*
 * sreport: Slurm's usage reports, computed from the controller's job
 * records (GET /v1/accounting), its nodes and its accounting database.
 * sreport.c reads the command line, sreport_usage.c adds up what each user
 * and account used in the period, sreport_print.c prints the reports in
 * Slurm's layout (the banner, right-justified columns, -n, -p, -P).
 */
#ifndef HERD_CMD_SREPORT_H
#define HERD_CMD_SREPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#define PROG "sreport"

enum sr_unit { U_MINUTES, U_SECONDS, U_HOURS, U_PERCENT, U_MINPER, U_SECPER, U_HOURPER };

/* The TRES sreport counts, in Slurm's order. */
enum sr_tres { T_CPU, T_MEM, T_NODE, T_BILLING, T_GPU, T_N };
extern const char *const sr_tres_names[T_N];

#define SR_SIZES 5         /* job sizes: 0-49, 50-249, 250-499, 500-999, >= 1000 CPUs */

struct sr_use {
    char *user, *account;          /* user NULL: an account's own total */
    double secs[T_N];              /* TRES-seconds in the period */
};

struct sr_size {
    char *account;
    double secs[SR_SIZES];         /* CPU-seconds of its jobs of each size */
};

struct sreport {
    enum sr_unit unit;
    bool noheader, tres_given;
    bool unit_given;               /* -t: the GPU reports' default is hours, not minutes */
    bool gpu;                      /* a GPU report: the banner's unit is "GPU ..." */
    bool json;                     /* --json (the GPU reports only) */
    int parsable;                  /* 0, 1 (-p), 2 (-P) */
    int tres[T_N];                 /* the TRES shown, by enum sr_tres */
    size_t ntres;
    time_t start, end;
    long top;                      /* TopCount */
    json_t *users, *accounts;      /* Users=, Accounts= filters; empty: all */
    /* sreport_usage.c */
    const char *cluster;
    double cap[T_N];               /* what the nodes could give in the period */
    struct sr_use *use;            /* per user and account */
    size_t nuse;
    struct sr_size *sizes;
    size_t nsizes;
    json_t *db, *answer;           /* the accounting database; the records */
};

int sreport_load(struct sreport *r);   /* 0, or 1 after printing an error */
void sreport_free(struct sreport *r);
/* A user's usage in an account summed with the accounts under it. */
void sreport_account_total(const struct sreport *r, const char *account, double out[T_N]);

/* sreport_print.c: what the reports share, and cluster utilization */
struct sr_table {
    const struct sreport *r;
    const char **names;    /* the headers */
    int *widths;
    size_t n;
};
void sr_banner(const struct sreport *r, const char *title, bool secs, const char *what);
/* secs in the unit asked for; percentages of total (caller frees). */
char *sr_value(const struct sreport *r, double secs, double total);
int sr_value_width(const struct sreport *r, const double *vals, size_t n, double total);
void sr_header(const struct sr_table *t);
/* Field i of a row (the last ends the line). */
void sr_put(const struct sr_table *t, size_t i, const char *s, bool header);

/* The GECOS name before its first comma: Slurm's "Proper Name". */
void sr_proper_name(const char *user, char *buf, size_t n);

int sr_cluster_utilization(const struct sreport *r);
int sr_account_by_user(const struct sreport *r);
int sr_user_by_account(const struct sreport *r, bool top);
int sr_job_sizes(const struct sreport *r);
/* sreport_resv.c: reservation Utilization; sr_resv_print prints it for
 * GET /v1/reservations?all=1's list and r->answer's job records. */
int sr_resv_utilization(const struct sreport *r);
void sr_resv_print(const struct sreport *r, const json_t *list);
/* sreport_gpu.c: user GPUUtilization, account GPUUtilization. */
int sr_gpu_utilization(const struct sreport *r, bool by_account);

#endif
