/*
 * pmi: the PMI server for one step's tasks on this node (srun --mpi=pmi2),
 * as Slurm's mpi/pmi2 plugin serves them: MPI libraries (MPICH, Intel MPI,
 * Open MPI's s1/s2) find each other through it. Each task talks over the
 * socket whose number is in its PMI_FD, in PMI-1's wire form
 * ("cmd=put kvsname=K key=K value=V\n") or, when it asks for version 2 at
 * init, PMI-2's ("LEN   cmd=kvs-put;key=K;value=V;").
 *
 * Puts are held until a fence (barrier_in, kvs-fence). Once every task here
 * has entered it, the node's puts go to srun (the fence_out hook), which
 * gathers every node's and hands the whole set back to each node
 * (pmi_fence_in); then the fence ends and gets see every put.
 */
#ifndef HERD_NODED_PMI_H
#define HERD_NODED_PMI_H

#include <jansson.h>

struct event_base;
struct pmi;

struct pmi_info {
    int first_rank;        /* this node's tasks are first_rank .. + ntasks - 1 */
    int ntasks;
    int size;              /* tasks in the step */
    const char *jobid;     /* "JOB.STEP", also the KVS name */
    const char *mapping;   /* PMI_process_mapping, "(vector,(0,2,2))" */
};

struct pmi_hooks {
    void (*fence_out)(void *arg, const char *puts, size_t len);   /* a JSON object */
    void (*abort)(void *arg, int rank, int code, const char *msg);
    void *arg;
};

struct pmi *pmi_new(struct event_base *base, const struct pmi_info *info,
                    struct pmi_hooks hooks);
/* The task's end of its PMI socket (close-on-exec); -1 with errno. */
int pmi_task_socket(struct pmi *p, int local);
/* The whole step's puts of this fence came back: a JSON object. */
void pmi_fence_in(struct pmi *p, json_t *kvs);
void pmi_free(struct pmi *p);

/* The mapping of ranks to the step's nodes, in blocks, as MPICH reads it:
 * counts[i] tasks on node i. Caller frees. */
char *pmi_mapping(const int *counts, int nnodes);

#endif
