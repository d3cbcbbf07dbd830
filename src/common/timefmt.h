/*
 * timefmt: Slurm's time and size formats, both ways.
 */
#ifndef HERD_TIMEFMT_H
#define HERD_TIMEFMT_H

#include <stddef.h>
#include <stdint.h>

#define TIME_INFINITE (-1)

/* A time limit as sbatch -t and slurm.conf MaxTime take it: "mm", "mm:ss",
 * "hh:mm:ss", "d-hh", "d-hh:mm", "d-hh:mm:ss", "UNLIMITED"/"INFINITE"/"-1".
 * Minutes, seconds rounded up (as Slurm). 0 ok, -1 on a malformed value. */
int timefmt_parse_limit(const char *s, int64_t *minutes);

/* The same forms, no UNLIMITED, in seconds (PreemptExemptTime). */
int timefmt_parse_secs(const char *s, int64_t *secs);

/* Elapsed seconds as squeue %M prints them: "0:00", "59:59", "1:00:00",
 * "1-00:00:00". Negative prints "INVALID". */
void timefmt_elapsed(int64_t secs, char *buf, size_t n);

/* A limit in minutes as squeue %l / sinfo %l print it: "UNLIMITED" for
 * TIME_INFINITE, else the timefmt_elapsed form of minutes*60. */
void timefmt_limit(int64_t minutes, char *buf, size_t n);

/* A memory size as --mem takes it: "100" (MB), "100K", "100M", "4G", "1T";
 * K rounds up to whole MB. 0 ok, -1 on a malformed value. */
int sizefmt_parse_mb(const char *s, uint64_t *mb);

/* A Unix time as Slurm prints it: "2026-12-02T18:30:00" (local time);
 * 0 prints "Unknown". */
void timefmt_iso(int64_t t, char *buf, size_t n);

#endif
