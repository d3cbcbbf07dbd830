/*
 * Fuzzes Standard Workload Format traces as `herd sim` reads them
 * (swf_read: header comments, 18 numeric fields a line, gzip or plain),
 * and the cleaning rules that turn them into the jobs replayed, both ways
 * (truncated to the request, or not). Private temporary directory.
 */
#include "sim/swf.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *path = fuzz_write("trace.swf", data, size), *err;
    struct swf_trace t;
    if (swf_read(path, &t, &err) == 0) {
        int64_t procs = t.max_procs > 0 ? t.max_procs : 128;
        for (int truncate = 0; truncate < 2; truncate++) {
            struct sim_job *jobs;
            size_t n;
            swf_clean(&t, procs, truncate, &jobs, &n);
            free(jobs);
        }
        swf_free(&t);
    }
    free(err);
    free(path);
    return 0;
}
