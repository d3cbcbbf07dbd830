/*
 * srun_pmi: srun is where the nodes' PMI fences meet (--mpi=pmi2). Each
 * node sends its puts once all its tasks are in the fence (a K frame,
 * src/noded/step.h); when every node still running has, the union goes to
 * each of them (POST /v1/steps/pmi) and their tasks leave the fence.
 */
#include <stdio.h>

#include "client/paths.h"
#include "cmd/srun/srun.h"
#include "common/http.h"

#define FENCE_CALL_TIMEOUT_S 30

static bool all_in_fence(const struct srun *s)
{
    for (size_t i = 0; i < s->nnodes; i++)
        if (!s->nodes[i].done && !s->nodes[i].fence)
            return false;
    return true;
}

static void fence_sent(int status, json_t *body, void *arg)
{
    (void)body;
    struct srun *s = arg;
    s->calls--;
    if (status != 200)
        fprintf(stderr, "srun: error: PMI fence of StepId=%lld.%d: a node did not take it (%d)\n",
                (long long)s->job_id, s->step_id, status);
    srun_maybe_exit(s);
}

static void fence_release(struct srun *s)
{
    json_t *all = json_object();
    for (size_t i = 0; i < s->nnodes; i++)
        if (s->nodes[i].fence) {
            json_object_update(all, s->nodes[i].fence);
            json_decref(s->nodes[i].fence);
            s->nodes[i].fence = NULL;
        }
    for (size_t i = 0; i < s->nnodes; i++)
        if (!s->nodes[i].done)
            srun_node_call(&s->nodes[i], PATH_STEPS_PMI, json_pack("{s:O}", "kvs", all),
                           FENCE_CALL_TIMEOUT_S, fence_sent, s);
    json_decref(all);
}

void srun_pmi_fence(struct srun_node *n, const char *puts, size_t len)
{
    json_t *o = json_loadb(puts, len, 0, NULL);
    if (!json_is_object(o)) {
        fprintf(stderr, "srun: error: %s sent a PMI fence srun cannot read\n", n->name);
        json_decref(o);
        o = json_object();
    }
    json_decref(n->fence);
    n->fence = o;
    if (all_in_fence(n->run))
        fence_release(n->run);
}
