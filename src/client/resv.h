/*
 * resv: reservations as the commands that show them read them (sinfo -T,
 * sreport reservation). The controller answers GET /v1/reservations with
 * {"reservations": [R, ...]}, R as docs/protocol.md describes: "start_time"
 * and "end_time" in epoch seconds, an infinite one with "end_time" -1.
 */
#ifndef HERD_CLIENT_RESV_H
#define HERD_CLIENT_RESV_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* Slurm ends an infinite reservation a year after its start, and prints
 * that end (and a 365-day duration). */
#define RESV_INFINITE_SECS (365 * 24 * 60 * 60LL)

/* GET /v1/reservations (all: ?all=1, ended and deleted ones too). The
 * answer's "reservations" array, or NULL after printing the error as
 * "<what>: <error>". Caller decrefs the answer in *owner. */
const json_t *resv_fetch(const char *prog, const char *what, int all, json_t **owner);

/* Its end as Slurm keeps it: start + a year when infinite. */
int64_t resv_end(const json_t *r);

/* A duration as Slurm's secs2time_str: "01:00:00", "3-02:00:00". */
void resv_duration(int64_t secs, char *buf, size_t n);

#endif
