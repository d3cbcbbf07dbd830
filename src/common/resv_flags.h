/*
 * resv_flags: an advance reservation's Flags=, as scontrol takes them and
 * as Slurm prints them (reservation_flags_string's order). scontrol checks
 * a user's words with it before sending; the controller parses and prints
 * them with it.
 */
#ifndef HERD_RESV_FLAGS_H
#define HERD_RESV_FLAGS_H

#include <stddef.h>
#include <stdint.h>

/* In Slurm's print order. */
enum resv_flag {
    RESV_MAINT = 1u << 0,
    RESV_FLEX = 1u << 1,
    RESV_OVERLAP = 1u << 2,
    RESV_IGNORE_JOBS = 1u << 3,
    RESV_HOURLY = 1u << 4,
    RESV_DAILY = 1u << 5,
    RESV_WEEKDAY = 1u << 6,
    RESV_WEEKEND = 1u << 7,
    RESV_WEEKLY = 1u << 8,
    RESV_SPEC_NODES = 1u << 9,
    RESV_ALL_NODES = 1u << 10,
    RESV_ANY_NODES = 1u << 11,
    RESV_PURGE_COMP = 1u << 12,
    RESV_NO_HOLD_JOBS_AFTER = 1u << 13,
};
#define RESV_RECURRING (RESV_HOURLY | RESV_DAILY | RESV_WEEKDAY | RESV_WEEKEND | RESV_WEEKLY)
/* What a user may ask for (SPEC_NODES and ALL_NODES are set by Nodes=). */
#define RESV_SETTABLE (RESV_MAINT | RESV_FLEX | RESV_OVERLAP | RESV_IGNORE_JOBS |             \
                       RESV_RECURRING | RESV_SPEC_NODES | RESV_ANY_NODES | RESV_PURGE_COMP |  \
                       RESV_NO_HOLD_JOBS_AFTER)

/* "MAINT,IGNORE_JOBS,PURGE_COMP=00:05:00" into *flags and *purge_s (the
 * PURGE_COMP time; untouched without one). A leading '-' on the whole list
 * or on a word ("-MAINT") clears it in an update: *clear gets those. 0, or
 * -1 with *bad pointing at the first word not known (caller's string). */
int resv_flags_parse(const char *s, uint32_t *set, uint32_t *clear, int64_t *purge_s,
                     const char **bad, size_t *badlen);
/* The flags as Slurm prints them ("" when none); PURGE_COMP with its time. */
void resv_flags_str(uint32_t flags, int64_t purge_s, char *buf, size_t len);
/* Seconds as Slurm's secs2time_str prints a Duration: "00:05:00", "1-00:00:00". */
void resv_duration_str(int64_t secs, char *buf, size_t len);

#endif
