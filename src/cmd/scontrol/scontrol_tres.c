/*
 * scontrol_tres: the GPU keys of `scontrol show job` that follow Power=,
 * in Slurm 22.05's order, and the job's GPU count for its TRES.
 */
#include <stdio.h>
#include <string.h>

#include "client/cmdutil.h"
#include "cmd/scontrol/scontrol.h"

/* "gres:gpu:N" or "gres:gpu:TYPE:N". */
static void per(const char *sep, const char *key, const char *type, int64_t n)
{
    if (n > 0)
        printf("%s%s=gres:gpu%s%s:%lld", sep, key, *type ? ":" : "", type, (long long)n);
}

void scontrol_job_tres(const json_t *j, const char *sep)
{
    const char *type = jget_str(j, "gpu_type", ""), *bind = jget_str(j, "gpu_bind", "");
    int64_t cpg = jget_int(j, "cpus_per_gpu", 0), mpg = jget_int(j, "mem_per_gpu_mb", 0);
    int64_t ntpg = jget_int(j, "ntasks_per_gpu", 0);
    per(sep, "CpusPerTres", "", cpg);
    per(sep, "MemPerTres", "", mpg);
    if (*bind)
        printf("%sTresBind=gpu:%s", sep, bind);
    per(sep, "TresPerJob", type, jget_int(j, "gpus", 0));
    per(sep, "TresPerNode", type, jget_int(j, "gpus_per_node", 0));
    per(sep, "TresPerSocket", type, jget_int(j, "gpus_per_socket", 0));
    per(sep, "TresPerTask", type, jget_int(j, "gpus_per_task", 0));
    for (int i = 0; ntpg > 0 && i < 2; i++)   /* 22.05 prints it twice */
        printf("%sNtasksPerTRES=%lld", sep, (long long)ntpg);
}

int scontrol_job_gpus(const json_t *j)
{
    int64_t total = jget_int(j, "gpus", 0), pn = jget_int(j, "gpus_per_node", 0);
    int64_t nodes = jget_int(j, "num_nodes", 1), gpt = jget_int(j, "gpus_per_task", 0);
    int64_t ntasks = jget_int(j, "ntasks", 0), tpn = jget_int(j, "ntasks_per_node", 0);
    if (total > 0 || pn > 0)
        return (int)(total > 0 ? total : pn * nodes);
    return (int)(gpt * (ntasks ? ntasks : tpn ? tpn * nodes : nodes));
}

int scontrol_job_cpus_per_task(const json_t *j)
{
    int64_t cpg = jget_int(j, "cpus_per_gpu", 0), gpt = jget_int(j, "gpus_per_task", 0);
    if (cpg > 0 && gpt > 0 && strcmp(jget_str(j, "state", "PENDING"), "PENDING") != 0)
        return (int)(cpg * gpt);
    return (int)jget_int(j, "cpus_per_task", 1);
}
