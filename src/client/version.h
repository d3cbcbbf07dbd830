/*
 * version: Herd's own version, and the Slurm release whose commands' output
 * it reproduces: tools that read `sinfo --version` or SLURM_VERSION in
 * `scontrol show config` to pick their flags see the one they were written for.
 */
#ifndef HERD_CMD_VERSION_H
#define HERD_CMD_VERSION_H

#define HERD_VERSION "0.1.0"
#define SLURM_COMPAT_VERSION "22.05.8"

#endif
