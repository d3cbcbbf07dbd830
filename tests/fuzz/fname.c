/*
 * Fuzzes output file patterns (sbatch -o/-e/-i, srun -o): "%x-%j-%A_%a.out",
 * "%N.%t", "%10j", "\\%j", as the node agent expands them and as scontrol
 * show job prints them, for a plain job and an array task.
 */
#include "common/fname.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *pat = fuzz_str(data, size);
    const struct fname_vals plain = {
        .job_id = 4242, .array_task_id = -1, .step_id = FNAME_BATCH_STEP, .node_index = 0,
        .task_id = 0, .node_name = "gpu01", .user_name = "alice", .job_name = "train",
    };
    const struct fname_vals task = {
        .job_id = 4250, .array_job_id = 4242, .array_task_id = 7, .step_id = 3,
        .node_index = 12, .task_id = 95, .node_name = NULL, .user_name = NULL,
        .job_name = "a%j%%b",
    };
    free(fname_expand(pat, &plain));
    free(fname_expand(pat, &task));
    free(fname_show(pat, &plain));
    free(fname_show(pat, &task));
    free(pat);
    return 0;
}
