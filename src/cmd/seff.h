/*
 * seff: Slurm's contrib seff report of one job (CPU and memory efficiency
 * from its accounting record), with Herd's GPU lines after it. The report
 * is pure (seff_report.c) so that its layout is unit-tested; seff.c fetches.
 */
#ifndef HERD_SEFF_H
#define HERD_SEFF_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

/* The report of record rec (sacct's record shape) of job id; group: the
 * group's name. Returns seff's exit code. */
int seff_report(FILE *out, const json_t *rec, uint64_t id, const char *cluster, const char *group,
                int64_t now);

/* seff's kbytes2str: "712.00 KB", "1.20 GB", "0.00 MB" for none. */
void seff_kbytes(double kb, char *buf, size_t n);

#endif
