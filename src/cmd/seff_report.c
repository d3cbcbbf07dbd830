/*
 * seff_report: the text of seff (Slurm's contrib/seff, line for line) and
 * the GPU lines Herd adds after it, from the job's GPU summary
 * (common/gpu_usage.h): the mean utilization over the job's GPUs and each
 * GPU's, the peak memory in use and each GPU's. docs/gpu-usage.md.
 */
#include <string.h>

#include "client/cmdutil.h"
#include "cmd/sacct/sacct.h"
#include "cmd/seff.h"

void seff_kbytes(double kb, char *buf, size_t n)
{
    static const char units[] = "KMGTPE";
    if (kb <= 0) {
        snprintf(buf, n, "0.00 MB");
        return;
    }
    /* a loop, not log(): the commands link no libm, one library less to load */
    int e = 0;
    double scaled = kb;
    while (e < 5 && scaled >= 1024) {
        scaled /= 1024;
        e++;
    }
    snprintf(buf, n, "%.2f %cB", scaled, units[e]);
}

/* seff's time2str: "01:02:03", "1-02:03:04". */
static void hms(int64_t s, char *buf, size_t n)
{
    if (s < 0)
        s = 0;
    if (s >= 86400)
        snprintf(buf, n, "%lld-%02lld:%02lld:%02lld", (long long)(s / 86400),
                 (long long)(s / 3600 % 24), (long long)(s / 60 % 60), (long long)(s % 60));
    else
        snprintf(buf, n, "%02lld:%02lld:%02lld", (long long)(s / 3600), (long long)(s / 60 % 60),
                 (long long)(s % 60));
}

static double pct(double part, double whole)
{
    return whole > 0 ? part * 100 / whole : 0;
}

/* "node1 GPU 0: 90.00%, GPU 1: 0.00%": the node named where it changes. */
static void gpu_list(FILE *out, const json_t *gpus, bool mem)
{
    const char *last = NULL;
    size_t i;
    const json_t *g;
    json_array_foreach(gpus, i, g) {
        const char *node = jget_str(g, "node", "");
        fprintf(out, "%s", i ? ", " : "");
        if (!last || strcmp(last, node))
            fprintf(out, "%s ", node);
        last = node;
        fprintf(out, "GPU %lld: ", (long long)jget_int(g, "index", 0));
        if (mem) {
            char used[32], total[32];
            seff_kbytes((double)jget_int(g, "mem_max_mb", 0) * 1024, used, sizeof used);
            seff_kbytes((double)jget_int(g, "mem_total_mb", 0) * 1024, total, sizeof total);
            fprintf(out, "%s of %s", used, total);
        } else {
            fprintf(out, "%.2f%%", json_number_value(json_object_get(g, "util_ave")));
        }
    }
}

static void gpu_lines(FILE *out, const json_t *rec, bool running)
{
    int ngpus = sacct_gpus(rec);
    const json_t *u = json_object_get(rec, running ? "usage_live" : "usage");
    const json_t *gpu = json_object_get(u, "gpu"), *gpus = json_object_get(gpu, "gpus");
    if (!ngpus)
        return;
    fprintf(out, "GPUs: %d\n", ngpus);
    if (jget_int(gpu, "samples", 0) <= 0 || !json_array_size(gpus)) {
        fprintf(out, "GPU Utilization: not sampled (no NVML readings from its nodes)\n");
        return;
    }
    size_t n = json_array_size(gpus);
    char mem[32];
    fprintf(out, "GPU Utilization: %.2f%% (mean of %zu GPU%s; ",
            json_number_value(json_object_get(gpu, "util_ave")) / (double)n, n, n == 1 ? "" : "s");
    gpu_list(out, gpus, false);
    seff_kbytes((double)jget_int(gpu, "mem_max_mb", 0) * 1024, mem, sizeof mem);
    fprintf(out, ")\nGPU Memory Utilized: %s (peak of all GPUs together; ", mem);
    gpu_list(out, gpus, true);
    fprintf(out, ")\n");
}

int seff_report(FILE *out, const json_t *rec, uint64_t id, const char *cluster, const char *group,
                int64_t now)
{
    const char *state = jget_str(rec, "state", "");
    if (!strcmp(state, "PENDING")) {
        fprintf(out, "Efficiency not available for jobs in the PENDING state.\n");
        return 0;
    }
    bool running = !strcmp(state, "RUNNING");
    const json_t *u = json_object_get(rec, "usage");
    int cpus = sacct_alloc_cpus(rec), nodes = sacct_alloc_nodes(rec);
    int64_t wall = sacct_elapsed(rec, now), cpu_s = jget_int(u, "total_cpu_ms", 0) / 1000;
    double rss_kb = (double)jget_int(u, "max_rss_kb", 0);
    double mem_kb = (double)sacct_alloc_mem(rec) * 1024;
    char a[32], b[32], c[32];

    fprintf(out, "Job ID: %llu\n", (unsigned long long)id);
    fprintf(out, "Cluster: %s\n", cluster ? cluster : "");
    fprintf(out, "User/Group: %s/%s\n", jget_str(rec, "user_name", ""), group);
    if (running)
        fprintf(out, "State: %s\n", state);
    else
        fprintf(out, "State: %s (exit code %lld)\n", state, (long long)jget_int(rec, "exit_code", 0));
    if (cpus > 1 || nodes > 1)
        fprintf(out, "Nodes: %d\nCores per node: %d\n", nodes, nodes ? cpus / nodes : 0);
    else
        fprintf(out, "Cores: %d\n", cpus);
    hms(cpu_s, a, sizeof a);
    hms(wall * cpus, b, sizeof b);
    fprintf(out, "CPU Utilized: %s\n", a);
    fprintf(out, "CPU Efficiency: %.2f%% of %s core-walltime\n",
            pct((double)cpu_s, (double)(wall * cpus)), b);
    hms(wall, a, sizeof a);
    fprintf(out, "Job Wall-clock time: %s\n", a);
    seff_kbytes(rss_kb, a, sizeof a);
    fprintf(out, "Memory Utilized: %s\n", a);
    seff_kbytes(mem_kb, b, sizeof b);
    seff_kbytes(nodes ? mem_kb / nodes : 0, c, sizeof c);
    fprintf(out, "Memory Efficiency: %.2f%% of %s (%s/node)\n", pct(rss_kb, mem_kb), b, c);
    gpu_lines(out, rec, running);
    if (running)
        fprintf(out, "WARNING: Efficiency statistics may be misleading for RUNNING jobs.\n");
    return 0;
}
