/*
 * Fuzzes job dependency expressions (sbatch -d, scontrol update
 * Dependency=): "afterok:12:13,singleton", "afterany:20_3?after:13+5", as a
 * submission to a controller that knows a few jobs (12 completed, 13
 * running, array 20 with task 3 split off and failed), then how squeue and
 * the scheduler see the result.
 */
#include <jansson.h>

#include "common/conf.h"
#include "common/taskset.h"
#include "ctld/array.h"
#include "ctld/depend.h"
#include "fuzz.h"

static struct ctld ctld;
static struct conf conf;
static struct job known[4];
static struct job *known_v[4];

static void setup(void)
{
    char err[128];
    conf.max_array_size = 1001;
    ctld.conf = &conf;
    known[0] = (struct job){ .id = 12, .name = "a", .uid = 1000, .state = JOB_COMPLETED,
                             .array_task_id = -1, .start_time = 100, .end_time = 200 };
    known[1] = (struct job){ .id = 13, .name = "x", .uid = 1000, .state = JOB_RUNNING,
                             .array_task_id = -1, .start_time = 150 };
    known[2] = (struct job){ .id = 20, .name = "arr", .uid = 1001, .state = JOB_PENDING };
    json_t *spec = json_pack("{s:s}", "array", "0-9%2");
    if (array_parse(&ctld, &known[2], spec, true, err, sizeof err) < 0)
        abort();
    json_decref(spec);
    taskset_del(known[2].array->pending, 3);
    known[3] = (struct job){ .id = 21, .name = "arr", .uid = 1001, .state = JOB_FAILED,
                             .array_job_id = 20, .array_task_id = 3, .start_time = 160,
                             .end_time = 170 };
    for (size_t i = 0; i < 4; i++)
        known_v[i] = &known[i];
    ctld.jobs = known_v;
    ctld.njobs = ctld.capjobs = 4;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!ctld.conf)
        setup();
    char *s = fuzz_str(data, size), err[256];
    /* the job submitted: id 100, named "x" by uid 1000 (a singleton waits
     * for job 13) */
    struct job j = { .id = 100, .name = "x", .uid = 1000, .state = JOB_PENDING,
                     .array_task_id = -1 };
    json_t *spec = json_pack("{s:s, s:b}", "dependency", s, "kill_on_invalid_dep", size & 1);
    if (spec && depend_parse(&ctld, &j, spec, true, err, sizeof err) == 0) {
        free(depend_str(&ctld, &j, 1000));
        (void)depend_reason(&ctld, &j, 1000);
        (void)depend_per_task(&j);
        json_t *rec = json_object();
        depend_record_add(&j, rec);
        json_decref(rec);
        depend_free(j.deps);
    }
    /* unchecked, as scontrol update takes it for a pending job */
    j.deps = NULL;
    if (spec && depend_parse(&ctld, &j, spec, false, err, sizeof err) == 0)
        depend_free(j.deps);
    json_decref(spec);
    free(s);
    return 0;
}
