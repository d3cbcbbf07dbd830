/*
 * srun_files: srun's -o/-e/-i files. srun writes each task's output where
 * its pattern says (on a cluster the submit host and the nodes share the
 * file system, so it lands where Slurm's stepd would put it), with Slurm's
 * codes (common/fname.h); tasks whose names come out the same share one
 * file. -i gives every task the same file.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/srun/srun.h"
#include "common/fname.h"
#include "common/xmalloc.h"

struct srun_file {
    char *path;
    int fd;
};

static const struct srun_node *node_of(const struct srun *s, int task, int *index)
{
    for (size_t i = 0; i < s->nnodes; i++)
        if (task >= s->nodes[i].first_task &&
            task < s->nodes[i].first_task + s->nodes[i].ntasks) {
            *index = (int)i;
            return &s->nodes[i];
        }
    *index = 0;
    return s->nodes;
}

static int64_t env_int(const char *name, int64_t def)
{
    const char *v = getenv(name);
    return v && *v ? strtoll(v, NULL, 10) : def;
}

/* The pattern for one task; caller frees. Inside an array's task the
 * array's ids come from the batch step's environment, as srun reads them. */
char *srun_file_name(const struct srun *s, const char *pat, int task)
{
    int nid;
    const struct srun_node *n = node_of(s, task, &nid);
    const struct passwd *pw = getpwuid(getuid());
    struct fname_vals v = {
        .job_id = s->job_id, .step_id = s->step_id, .node_index = nid, .task_id = task,
        .array_job_id = env_int("SLURM_ARRAY_JOB_ID", 0),
        .array_task_id = env_int("SLURM_ARRAY_TASK_ID", -1),
        .node_name = n ? n->name : "", .user_name = pw ? pw->pw_name : "",
        .job_name = getenv("SLURM_JOB_NAME"),
    };
    return fname_expand(pat, &v);
}

static int file_for(struct srun *s, const char *path, char *err, size_t errlen)
{
    for (size_t i = 0; i < s->nfiles; i++)
        if (strcmp(s->files[i].path, path) == 0)
            return s->files[i].fd;
    int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (s->o->append ? O_APPEND : O_TRUNC);
    int fd = open(path, flags, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    s->files = xrealloc(s->files, (s->nfiles + 1) * sizeof *s->files);
    s->files[s->nfiles++] = (struct srun_file){ xstrdup(path), fd };
    return fd;
}

int srun_files_open(struct srun *s)
{
    const char *pat[2] = { s->o->output, s->o->error ? s->o->error : s->o->output };
    char err[512];
    if (s->o->input) {
        char *in = srun_file_name(s, s->o->input, 0);
        int fd = open(in, O_RDONLY | O_CLOEXEC);
        if (fd < 0 || dup2(fd, 0) < 0) {
            fprintf(stderr, "srun: error: Could not open stdin file: %s: %s\n", in,
                    strerror(errno));
            free(in);
            return -1;
        }
        free(in);
        close(fd);
    }
    s->task_fd = xcalloc((size_t)s->ntasks * 2 + 1, sizeof *s->task_fd);
    for (int t = 0; t < s->ntasks; t++)
        for (int f = 0; f < 2; f++) {
            s->task_fd[t * 2 + f] = f + 1;
            if (!pat[f])
                continue;
            char *path = srun_file_name(s, pat[f], t);
            int fd = file_for(s, path, err, sizeof err);
            free(path);
            if (fd < 0) {
                fprintf(stderr, "srun: error: Could not open %s file: %s\n",
                        f ? "stderr" : "stdout", err);
                return -1;
            }
            s->task_fd[t * 2 + f] = fd;
        }
    return 0;
}

int srun_task_fd(const struct srun *s, int task, int fd)
{
    if (!s->task_fd || task < 0 || task >= s->ntasks)
        return fd;
    return s->task_fd[task * 2 + (fd == 2)];
}

void srun_files_close(struct srun *s)
{
    for (size_t i = 0; i < s->nfiles; i++) {
        close(s->files[i].fd);
        free(s->files[i].path);
    }
    xfree(s->files);
    s->nfiles = 0;
    xfree(s->task_fd);
}
