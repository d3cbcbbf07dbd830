/*
 * emu: herdd --emulate, many nodes served by one process and one event
 * loop, to measure the controller with thousands of nodes on one machine
 * (docs/emulator.md). Each emulated node registers and heartbeats on its
 * own timer (random phases, not in lockstep), takes launches, signals and
 * time limits on the address and port slurm.conf gives it (nodes that share
 * one are told apart by the launch's node_name and the job id), and reports
 * each job's end with POST /v1/node/job_end, retried each second until
 * acknowledged, as herdd does. Nothing in the controller knows the
 * difference: it speaks the same protocol with the same MUNGE credentials.
 *
 * A job runs as an in-process timer (EMU_TIMER: it ends COMPLETED after the
 * run time, or TIMEOUT at its time limit if that comes first) or as a real,
 * cheap process (EMU_PROC: /bin/sleep for the run time; its exit status
 * decides COMPLETED or FAILED). No script runs, no user is switched to, no
 * cgroup is made; steps (srun) are refused.
 *
 * Signals: SIGUSR1 makes every live node register at once (the storm a
 * controller meets when every agent notices its restart together); SIGUSR2
 * re-reads the silence file, a hostlist of nodes that are silent from now
 * on: they neither heartbeat nor answer launches, and their jobs are gone
 * without a report, as when a node crashes. A node no longer listed comes
 * back and registers with no jobs. SIGTERM or SIGINT stops the process.
 */
#ifndef HERD_NODED_EMU_H
#define HERD_NODED_EMU_H

#include <stdbool.h>

struct conf;

enum emu_jobs { EMU_TIMER, EMU_PROC };

struct emu_opts {
    const char *nodes;        /* hostlist of the nodes to serve; "ALL": every node */
    enum emu_jobs jobs;
    double run_s;             /* each job's run time, seconds */
    const char *silent_path;  /* the silence file; NULL: SIGUSR2 does nothing */
    const char *conf_path;
    bool foreground;
    int verbose;
};

/* Serves until SIGTERM; the process's exit status. c is kept. */
int emu_main(struct conf *c, const struct emu_opts *o);

/* "timer" or "proc"; -1 for anything else. */
int emu_jobs_parse(const char *s);

#endif
