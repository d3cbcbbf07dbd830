/*
 * srun: a job step inside an allocation. srun.c reads the options, asks the
 * controller for the step's layout (POST /v1/jobs/{id}/steps) and starts one
 * stream per node (POST /v1/steps to that node's agent, src/noded/step.h);
 * srun_io.c reads the streams: the tasks' output to our stdout and stderr
 * (with -l, each line prefixed by its task id), their ends, the exit code;
 * srun_pmi.c joins the nodes' PMI fences (--mpi=pmi2); srun_stdin.c sends
 * our stdin to the tasks.
 */
#ifndef HERD_SRUN_H
#define HERD_SRUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/http.h"

struct event_base;

struct srun_opts {
    int ntasks, nodes, ntasks_per_node, cpus_per_task, gpus_per_task;
    const char *nodelist, *name, *chdir, *jobid;
    const char *mpi;           /* "none" or "pmi2": --mpi, else SLURM_MPI_TYPE */
    const char *output, *error, *input;   /* -o, -e, -i FILE patterns (srun_files.c) */
    bool append;               /* --open-mode=append */
    int input_task;            /* --input: -1 all tasks (default), -2 none, else a rank */
    bool label, unbuffered, kill_on_bad_exit, quiet, pty, overlap;
    char **argv;               /* the command, from the first non-option */
    char **alloc_argv;         /* the options an allocation takes, sbatch style: alloc.h */
    const char *prog;          /* srun or salloc, for the messages */
    int alloc_argc;
};

/* srun's options (salloc takes the same); prog names the errors. 0, -1, or
 * SRUN_PARSE_FATAL for an error Slurm exits 255 on (a bad option word). */
#define SRUN_PARSE_FATAL (-2)
int srun_parse(const char *prog, int argc, char **argv, struct srun_opts *o);
void srun_opts_free(struct srun_opts *o);

/* One node's stream and what srun knows of its tasks. */
struct srun_node {
    struct srun *run;
    char *name, *addr;
    int port;
    int ntasks, first_task;
    char *buf;                 /* bytes of a frame not complete yet */
    size_t len, cap;
    int ended;                 /* tasks reported ended */
    json_t *fence;             /* --mpi=pmi2: this node's puts, while in a fence */
    bool started;              /* its tasks started ("S"): stdin may go there */
    bool done;                 /* the stream is over */
};

struct srun {
    struct event_base *base;
    const char *munge_socket;
    const struct srun_opts *o;
    int64_t job_id;
    int step_id;
    int ntasks;
    struct srun_node *nodes;
    size_t nnodes, open;       /* streams not over */
    int calls;                 /* signal requests in flight */
    char **line;               /* -l: the partial line of each task, stdout and stderr */
    size_t *line_len;
    int rc;                    /* the worst exit so far (128 + a signal) */
    int worst_code, worst_sig; /* that exit, as a code and a signal, for accounting */
    bool bad_exit_seen;        /* -K: the step is being ended */
    bool cancelled;            /* srun ended the step (-K, Ctrl-C twice) */
    bool failed;               /* a node could not start its tasks */
    struct srun_stdin *in;     /* srun_stdin.c */
    int *task_fd;              /* -o/-e: where each task's stdout, stderr go; NULL: ours */
    struct srun_file *files;   /* the files those are */
    size_t nfiles;
};

/* srun_io.c */
void srun_stream_chunk(const char *data, size_t len, void *arg);   /* arg: srun_node */
void srun_flush_lines(struct srun *s);
/* Every task was launched and reported, or a stream broke off. */
bool srun_all_reported(const struct srun *s);
/* POST path to node n of the step with body (stolen) and the step's
 * job_id and step_id; counted in s->calls, which done must take back. */
void srun_node_call(struct srun_node *n, const char *path, json_t *body, int timeout_s,
                    http_done done, void *arg);
/* -K and the signals srun passes on: to every node of the step. */
void srun_signal_tasks(struct srun *s, int sig);
/* srun_stdin.c: our stdin to the tasks --input names, from once every
 * node with such a task has started them until EOF. */
void srun_stdin_node_started(struct srun_node *n);
void srun_stdin_stop(struct srun *s);
/* --pty: our terminal's new size (stolen) for task 0's. */
void srun_stdin_resized(struct srun *s, json_t *size);
/* srun_files.c: -o/-e/-i opened (errors said); 0 or -1. */
int srun_files_open(struct srun *s);
void srun_files_close(struct srun *s);
/* Where task's output on fd (1, 2) goes. */
int srun_task_fd(const struct srun *s, int task, int fd);
/* A file name pattern for one task (%t, %N, ...); caller frees. */
char *srun_file_name(const struct srun *s, const char *pat, int task);
/* srun_pmi.c: node n is in a PMI fence with these puts (a JSON object);
 * once every node is, all the puts go back to every node. */
void srun_pmi_fence(struct srun_node *n, const char *puts, size_t len);
/* srun.c: leaves the event loop once no stream and no request is open. */
void srun_maybe_exit(struct srun *s);

#endif
