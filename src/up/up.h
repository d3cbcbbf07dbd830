/*
 * up: `herd up` and `herd down`, a whole cluster on this machine under one
 * directory (herd_up.c, herd_down.c), its files and processes (cluster.c),
 * and, for --netns, one network namespace per node (netns*.c).
 */
#ifndef HERD_UP_H
#define HERD_UP_H

int cmd_herd_up(int argc, char **argv);     /* herd up -D DIR ... */
int cmd_herd_down(int argc, char **argv);   /* herd down -D DIR */

/* What `herd down -D dir` does; herd up undoes a failed start with it. */
int herd_down_dir(const char *dir);

#endif
