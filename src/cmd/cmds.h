/*
 * cmds: every command of the multi-call client binary. herd.c picks one by
 * argv[0] (sbatch, squeue, ...) or by `herd NAME`. Each returns the exit code.
 */
#ifndef HERD_CMDS_H
#define HERD_CMDS_H

int cmd_sbatch(int argc, char **argv);
int cmd_squeue(int argc, char **argv);
int cmd_sinfo(int argc, char **argv);
int cmd_scancel(int argc, char **argv);
int cmd_scontrol(int argc, char **argv);
int cmd_sprio(int argc, char **argv);
int cmd_sshare(int argc, char **argv);
int cmd_sdiag(int argc, char **argv);
int cmd_sacct(int argc, char **argv);
int cmd_srun(int argc, char **argv);
int cmd_salloc(int argc, char **argv);
int cmd_sacctmgr(int argc, char **argv);

#endif
