/*
 * pty: the pseudo terminal srun --pty's task 0 runs on. herdd keeps the
 * master (the task's output is read from it, srun's stdin written to it);
 * the task makes the slave its controlling terminal in a session of its own.
 */
#ifndef HERD_NODED_PTY_H
#define HERD_NODED_PTY_H

#include <jansson.h>

/* A new pty, both ends close-on-exec; 0, or -1 with errno. */
int pty_open(int *master, int *slave);
/* {"rows": R, "cols": C} as srun's terminal has them; others ignored. */
void pty_set_size(int master, json_t *size);
/* In the task, after fork: its own session, the slave as its terminal. */
int pty_take(int slave);

#endif
