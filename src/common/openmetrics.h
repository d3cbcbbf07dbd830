/*
 * openmetrics: writes the Prometheus/OpenMetrics text exposition into an
 * evbuffer: a family's "# HELP" and "# TYPE" lines, its samples and their
 * labels (values escaped as the format asks: backslash, double quote,
 * newline), histograms, and the closing "# EOF".
 *
 * The text is what Prometheus' classic parser and promtool read (Slurm sends
 * it as text/plain, OM_CONTENT_TYPE): "# EOF" is a comment to them and the
 * end marker to an OpenMetrics parser. A counter's family is named with its
 * _total suffix, as the classic format names it.
 */
#ifndef HERD_OPENMETRICS_H
#define HERD_OPENMETRICS_H

#include <stddef.h>
#include <stdint.h>

struct evbuffer;

#define OM_CONTENT_TYPE "text/plain"

struct om_label {
    const char *key, *val;
};

/* "# HELP name help\n# TYPE name type\n"; type: "gauge", "counter",
 * "histogram". */
void om_family(struct evbuffer *b, const char *name, const char *help, const char *type);
/* "name value" or "name{k1="v1",k2="v2"} value": the nl labels of l. */
void om_sample(struct evbuffer *b, const char *name, const struct om_label *l, size_t nl,
               double v);
/* The same with one label (key NULL: none) and an integer value. */
void om_u64(struct evbuffer *b, const char *name, const char *key, const char *val, uint64_t v);
/* A family with one unlabelled sample: HELP, TYPE gauge, the value. */
void om_gauge(struct evbuffer *b, const char *name, const char *help, uint64_t v);
void om_end(struct evbuffer *b);
/* A label value escaped into b. */
void om_escape(struct evbuffer *b, const char *val);

/* A histogram over fixed upper bounds in seconds (OM_HIST_BOUNDS of them,
 * then +Inf), observed in microseconds. */
#define OM_HIST_BOUNDS 12
struct om_hist {
    uint64_t buckets[OM_HIST_BOUNDS + 1];   /* not cumulative; last: above every bound */
    uint64_t count;
    double sum_s;
};
void om_hist_observe(struct om_hist *h, int64_t us);
/* name_bucket{labels,le="..."} (cumulative), name_sum{labels},
 * name_count{labels}; at most 3 labels. The family lines are the caller's. */
void om_hist_write(struct evbuffer *b, const char *name, const struct om_label *l, size_t nl,
                   const struct om_hist *h);

#endif
