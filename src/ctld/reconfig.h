/*
 * reconfig: re-reading slurm.conf in a running controller, the one path
 * behind `scontrol reconfigure` and SIGHUP (a service manager's reload),
 * so that both change the same things.
 */
#ifndef HERD_CTLD_RECONFIG_H
#define HERD_CTLD_RECONFIG_H

#include <stddef.h>

struct ctld;

/* Re-reads c->conf->path and applies partition State/MaxTime/DefaultTime/
 * QOS, AccountingStorageEnforce, the timeouts (KillWait, SlurmdTimeout,
 * MinJobAge) and the like; jobs are untouched. 0 done; 1 done but nodes or
 * partitions changed (they need a restart; logged); -1 the file does not
 * parse (err says why; nothing changed). */
int ctld_reconfigure(struct ctld *c, char *err, size_t errlen);

#endif
