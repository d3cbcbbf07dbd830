/*
 * begintime: Slurm's absolute and relative times as sbatch --begin and
 * --deadline and scontrol's StartTime= take them: "now", "now+N[units]"
 * (seconds by default; minutes, hours, days, weeks), "HH:MM[:SS]" (today,
 * or tomorrow once past), "YYYY-MM-DD[THH:MM[:SS]]", "MM/DD[/YY]",
 * "midnight", "noon", "fika" (15:00), "teatime" (16:00), "today",
 * "tomorrow". Local time, as Slurm.
 */
#ifndef HERD_BEGINTIME_H
#define HERD_BEGINTIME_H

#include <stdint.h>

/* 0 with *out the Unix time, or -1 on a value none of the above. */
int begintime_parse(const char *s, int64_t now, int64_t *out);

#endif
