/*
 * Fuzzes gres.conf, read beside slurm.conf by conf_load: NodeName=, Name=,
 * Type=, File= device lists ("/dev/nvidia[0-3]"), Count=, AutoDetect=,
 * against a fixed slurm.conf of four nodes. Private temporary directory.
 */
#include "common/conf.h"
#include "fuzz.h"

static const char slurm_conf[] =
    "ClusterName=fuzz\nGresTypes=gpu,mps\n"
    "NodeName=g[1-2] CPUs=64 RealMemory=500000 Gres=gpu:h100:4\n"
    "NodeName=g3 Gres=gpu:3\nNodeName=g4\nNodeName=cpu1\n"
    "PartitionName=p Nodes=ALL Default=YES\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char *path;
    char err[512];
    if (!path)
        path = fuzz_write("slurm.conf", slurm_conf, sizeof slurm_conf - 1);
    free(fuzz_write("gres.conf", data, size));
    conf_destroy(conf_load(path, err, sizeof err));
    return 0;
}
