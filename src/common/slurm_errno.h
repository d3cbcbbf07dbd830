/*
 * slurm_errno: Slurm's error numbers, each name once with Slurm's value
 * (slurm/slurm_errno.h of Slurm 22.05). The controller and node agents put
 * them in an error answer's "code", and tools that read `--json` errors see
 * them, so a value must never be our own guess: tests/unit/slurm_errno.c
 * compares every one with the numbers copied from Slurm's header.
 *
 * Herd's own errors that Slurm has no name for use SLURM_ERROR, as Slurm's
 * daemons do for a failure without a specific code.
 */
#ifndef HERD_SLURM_ERRNO_H
#define HERD_SLURM_ERRNO_H

#define SLURM_SUCCESS                             0
#define SLURM_ERROR                               (-1)

#define ESLURM_INVALID_PARTITION_NAME             2000
#define ESLURM_DEFAULT_PARTITION_NOT_SET          2001
#define ESLURM_ACCESS_DENIED                      2002
#define ESLURM_ERROR_ON_DESC_TO_RECORD_COPY       2007   /* MaxJobCount reached */
#define ESLURM_JOB_SCRIPT_MISSING                 2009
#define ESLURM_PATHNAME_TOO_LONG                  2012
#define ESLURM_USER_ID_MISSING                    2010
#define ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE  2014
#define ESLURM_NODES_BUSY                         2016
#define ESLURM_INVALID_JOB_ID                     2017
#define ESLURM_INVALID_NODE_NAME                  2018
#define ESLURM_ALREADY_DONE                       2021
#define ESLURM_JOB_PENDING                        2024
#define ESLURM_INVALID_FEATURE                    2029
#define ESLURM_DISABLED                           2037
#define ESLURM_DEPENDENCY                         2038
#define ESLURM_INVALID_ACCOUNT                    2045
#define ESLURM_ACCOUNTING_POLICY                  2050
#define ESLURM_INVALID_TIME_LIMIT                 2051
#define ESLURM_RESERVATION_ACCESS                 2052
#define ESLURM_RESERVATION_INVALID                2053
#define ESLURM_INVALID_TIME_VALUE                 2054
#define ESLURM_RESERVATION_BUSY                   2055
#define ESLURM_RESERVATION_OVERLAP                2058
#define ESLURM_INVALID_QOS                        2066
#define ESLURM_JOB_NOT_PENDING                    2073
#define ESLURM_INVALID_ARRAY                      2081
#define ESLURM_JOB_NOT_SUSPENDED                  2087
#define ESLURM_INVALID_NICE                       2123
/* slurmrestd's own (the client's request, not slurmctld's answer) */
#define ESLURM_REST_INVALID_JOBS_DESC             9002

#endif
