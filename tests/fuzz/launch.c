/*
 * Fuzzes the node agent's launch request (POST from the controller: the
 * job spec JSON, read with the flags the HTTP layer uses) into struct
 * job_spec, and what the agent derives from it before it forks: the job's
 * environment and the paths of its output files.
 */
#include <jansson.h>

#include "noded/jobenv.h"
#include "noded/jobspec.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *o = json_loadb((const char *)data, size, 0, NULL);
    char err[512];
    struct job_spec *js = o ? job_spec_from_json(o, err, sizeof err) : NULL;
    if (js) {
        jobenv_free(jobenv_build(js, "/etc/herd/slurm.conf", 4321));
        jobenv_free(jobenv_root_script(js, "/etc/herd/slurm.conf", "prolog_slurmd"));
        const char *def = jobenv_default_out(js);
        free(jobenv_path(js->std_out, def, js));
        free(jobenv_path(js->std_err, def, js));
        free(jobenv_path(js->std_in, "/dev/null", js));
        job_spec_destroy(js);
    }
    json_decref(o);
    return 0;
}
