/*
 * sinfo -T (--reservation): the active and future reservations, one a line,
 * in the columns of Slurm's sinfo: the name left-justified at least 9 wide,
 * then state, start, end, duration and nodes. With none it says so, as
 * Slurm's does, and succeeds.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client/resv.h"
#include "cmd/sinfo/sinfo.h"
#include "common/timefmt.h"

#define SINFO_RESV_MIN_NAME 9

static void sinfo_resv_row(FILE *out, int w, const char *name, const char *state,
                           const char *start, const char *end, const char *dur,
                           const char *nodes)
{
    fprintf(out, "%-*s  %8s  %19s  %19s  %11s  %s\n", w, name, state, start, end, dur, nodes);
}

static void sinfo_resv_line(FILE *out, int w, const json_t *r)
{
    char start[32], end[32], dur[32];
    int64_t s = jget_int(r, "start_time", 0), e = resv_end(r);
    timefmt_iso(s, start, sizeof start);
    timefmt_iso(e, end, sizeof end);
    resv_duration(e - s, dur, sizeof dur);
    sinfo_resv_row(out, w, jget_str(r, "name", ""), jget_str(r, "state", "INACTIVE"), start,
                   end, dur, jget_str(r, "nodes", ""));
}

void sinfo_print_resv(FILE *out, const json_t *list, const struct sinfo_opts *o)
{
    if (json_array_size(list) == 0) {
        fprintf(out, "No reservations in the system\n");
        return;
    }
    int w = SINFO_RESV_MIN_NAME;
    size_t i;
    const json_t *r;
    json_array_foreach(list, i, r) {
        int len = (int)strlen(jget_str(r, "name", ""));
        w = len > w ? len : w;
    }
    if (o->long_list && !o->noheader) {
        char buf[64];
        time_t t = (time_t)o->now;
        struct tm tm;
        localtime_r(&t, &tm);
        strftime(buf, sizeof buf, "%a %b %d %H:%M:%S %Y", &tm);
        fprintf(out, "%s\n", buf);
    }
    if (!o->noheader)
        sinfo_resv_row(out, w, "RESV_NAME", "STATE", "START_TIME", "END_TIME", "DURATION",
                       "NODELIST");
    json_array_foreach(list, i, r)
        sinfo_resv_line(out, w, r);
}
