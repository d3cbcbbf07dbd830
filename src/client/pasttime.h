/*
 * pasttime: Slurm's time specifications for a window in the past (sacct
 * -S/-E, sreport start=/end=), as Slurm's parse_time(s, past=1) reads them:
 * "YYYY-MM-DD[THH:MM[:SS]]", "MMDD[YY]", "MM/DD[/YY]", "HH:MM[:SS] [AM|PM]",
 * "now[{+|-}N[seconds|minutes|hours|days|weeks]]", "today", "tomorrow",
 * "midnight", "noon", "elevenses", "fika", "teatime", "uts<epoch>", and their
 * combinations.
 */
#ifndef HERD_CLIENT_PASTTIME_H
#define HERD_CLIENT_PASTTIME_H

#include <time.h>

/* 0 and the time in *out, or -1 when s is not one of them. */
int client_parse_past_time(const char *s, time_t now, time_t *out);

#endif
