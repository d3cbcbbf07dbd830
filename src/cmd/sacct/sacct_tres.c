/*
 * sacct_tres: Slurm's TRESUsageIn* text ("cpu=00:00:11,energy=0,fs/disk=0,
 * gres/gpumem=2G,gres/gpuutil=90,mem=712K,pages=0,vmem=0") from Herd's
 * usage of a job, for sacct's step rows and sstat's. Keys in name order as
 * Slurm prints them; gres/gpuutil and gres/gpumem are sums over the job's
 * GPUs (Slurm >= 24.05). What Herd does not measure (energy, disk, pages,
 * vmem) is 0 as on a node without those gatherers; a figure Herd could not
 * read (cpu -1, no GPU sample) is left out rather than shown as 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/cmdutil.h"
#include "client/format.h"
#include "cmd/sacct/sacct.h"
#include "common/xmalloc.h"

/* Slurm's secs2time_str: "00:00:05", "1-02:03:04". */
static void secs(int64_t s, char *buf, size_t n)
{
    if (s >= 86400)
        snprintf(buf, n, "%lld-%02lld:%02lld:%02lld", (long long)(s / 86400),
                 (long long)(s / 3600 % 24), (long long)(s / 60 % 60), (long long)(s % 60));
    else
        snprintf(buf, n, "%02lld:%02lld:%02lld", (long long)(s / 3600),
                 (long long)(s / 60 % 60), (long long)(s % 60));
}

static void add(struct fmt_buf *b, const char *key, const char *v)
{
    if (b->n)
        fmt_buf_str(b, ",");
    fmt_buf_str(b, key);
    fmt_buf_str(b, "=");
    fmt_buf_str(b, v);
}

char *sacct_tres_usage(const json_t *usage, enum sacct_tres_stat st, enum sacct_tres_what what,
                       const char *node, const struct sacct_ctx *x)
{
    if (!json_is_object(usage))
        return NULL;
    const json_t *gpu = json_object_get(usage, "gpu");
    int64_t cpu_ms = jget_int(usage, "total_cpu_ms", -1);
    int64_t rss_kb = jget_int(usage, "max_rss_kb", -1);
    bool ave = st == SACCT_TRES_AVE, has_gpu = jget_int(gpu, "samples", 0) > 0;
    struct fmt_buf b = { 0 };
    char v[64];

    /* the Node and Task variants name where each maximum (minimum) was:
     * Herd's figures are the batch shell's, one task on the first node */
    const char *where = what == SACCT_TRES_NODE ? (node && *node ? node : "") : "0";
    if (what != SACCT_TRES_VALUE) {
        const char *keys[] = { "cpu", "energy", "fs/disk", has_gpu ? "gres/gpumem" : NULL,
                               has_gpu ? "gres/gpuutil" : NULL, "mem", "pages", "vmem" };
        for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
            if (keys[i] && (strcmp(keys[i], "cpu") || cpu_ms >= 0) &&
                (strcmp(keys[i], "mem") || rss_kb >= 0))
                add(&b, keys[i], where);
    } else {
        if (cpu_ms >= 0) {
            secs(cpu_ms / 1000, v, sizeof v);
            add(&b, "cpu", v);
        }
        add(&b, "energy", "0");
        add(&b, "fs/disk", "0");
        if (has_gpu) {
            double mem = json_number_value(json_object_get(gpu, ave ? "mem_ave_mb" : "mem_max_mb"));
            double util = json_number_value(json_object_get(gpu, ave ? "util_ave" : "util_max"));
            sacct_units((double)(int64_t)(mem + 0.5), 2, x, v, sizeof v);
            add(&b, "gres/gpumem", v);
            snprintf(v, sizeof v, "%lld", (long long)(util + 0.5));
            add(&b, "gres/gpuutil", v);
        }
        if (rss_kb >= 0) {
            sacct_units((double)rss_kb, 1, x, v, sizeof v);
            add(&b, "mem", v);
        }
        add(&b, "pages", "0");
        add(&b, "vmem", "0");
    }
    char *s = xstrdup(fmt_buf_text(&b));
    fmt_buf_free(&b);
    return s;
}
