/*
 * Fuzzes job array expressions (sbatch --array, scancel JOB_[...]):
 * "0-15%4", "1,3,5-9:2", as the controller parses them, and what it does
 * with the set: prints it back (squeue, records), counts, walks, splits a
 * task off, as an array job's tasks start.
 */
#include "common/taskset.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_str(data, size), err[256];
    int throttle;
    struct taskset *t = taskset_parse(s, &throttle, err, sizeof err);
    free(taskset_show(s));
    if (!t) {
        free(s);
        return 0;
    }
    char *f = taskset_fmt(t);
    /* what is printed parses back to the same set */
    int th2;
    struct taskset *back = taskset_parse(f, &th2, err, sizeof err);
    if (!back || taskset_count(back) != taskset_count(t) || !taskset_covers(t, back) ||
        !taskset_covers(back, t))
        abort();
    free(taskset_show(f));
    (void)taskset_step(t);
    (void)taskset_common(t, back);
    struct taskset *c = taskset_copy(t);
    /* split a few tasks off, as array_split does */
    for (int i = 0; i < 4; i++) {
        int64_t first = taskset_first(c);
        if (first < 0)
            break;
        if (!taskset_has(c, (uint32_t)first))
            abort();
        taskset_del(c, (uint32_t)first);
        (void)taskset_next(c, (uint32_t)first);
    }
    int64_t last = taskset_last(c);
    if (last >= 0)
        taskset_del(c, (uint32_t)last);
    free(taskset_fmt(c));
    taskset_free(c);
    taskset_free(back);
    free(f);
    taskset_free(t);
    free(s);
    return 0;
}
