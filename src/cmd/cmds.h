/*
 * cmds: every command of the multi-call client binary, cmd_NAME for each
 * line of cmd/commands.def. herd.c picks one by argv[0] (sbatch, squeue, ...)
 * or by `herd NAME`. Each returns the exit code.
 */
#ifndef HERD_CMDS_H
#define HERD_CMDS_H

#define HERD_CMD(name, help) int cmd_##name(int argc, char **argv);
#include "cmd/commands.def"
#undef HERD_CMD

int cmd_herd_why(int argc, char **argv);   /* herd why JOBID */
int cmd_herd_web_url(int argc, char **argv);   /* herd web-url: a dashboard login link */
int cmd_herd_conf_fetch(int argc, char **argv);   /* herd conf-fetch: configless login hosts */
int cmd_herd_setup(int argc, char **argv);   /* herd setup controller|node|login */
int cmd_herd_doctor(int argc, char **argv);   /* herd doctor: check a host */

#endif
