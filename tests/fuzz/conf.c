/*
 * Fuzzes slurm.conf as the controller, the node agent and the commands read
 * it (conf_load: keys, NodeName/PartitionName lines, Include, line
 * continuations, quoting), and the keys the node agent reads on its own
 * (nodeconf: TaskPlugin, ProctrackType, Prolog, Epilog). The input is
 * written to slurm.conf in a private temporary directory.
 */
#include "common/conf.h"
#include "noded/nodeconf.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *path = fuzz_write("slurm.conf", data, size), err[512];
    struct conf *c = conf_load(path, err, sizeof err);
    if (c) {
        for (size_t i = 0; i < c->nnodes; i++)
            free(conf_expand_node("/var/spool/%n/%h", c->nodes[i].name));
        (void)conf_part_default(c);
        (void)conf_max_script_size(c);
        conf_destroy(c);
    }
    struct nodeconf nc;
    if (nodeconf_load(&nc, path) == 0)
        nodeconf_clear(&nc);
    free(path);
    return 0;
}
