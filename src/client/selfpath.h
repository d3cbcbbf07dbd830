/*
 * selfpath: where this herd is, and the programs that come with it. In a
 * build tree the daemons are beside herd; once installed they are in
 * ../sbin (make install puts them there, as Slurm's packages do). herd up,
 * herd setup and the boot-time lines it prints all find them so.
 */
#ifndef HERD_CLIENT_SELFPATH_H
#define HERD_CLIENT_SELFPATH_H

/* The directory of this executable ("." when /proc cannot say); caller frees. */
char *self_dir(void);

/* prog beside this herd, else in ../sbin, else the one beside (which the
 * exec's error then names); caller frees. */
char *self_sibling(const char *prog);

#endif
