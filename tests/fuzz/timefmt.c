/*
 * Fuzzes Slurm's time and size formats: time limits ("1-02:03:04",
 * "UNLIMITED"), seconds (PreemptExemptTime), memory sizes ("4G"), and
 * sbatch --begin's times ("now+1hour", "2026-12-02T18:30", "teatime"),
 * with the printed forms of what parsed.
 */
#include "client/begintime.h"
#include "common/timefmt.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_str(data, size), buf[64];
    int64_t v, t;
    uint64_t mb;
    if (timefmt_parse_limit(s, &v) == 0)
        timefmt_limit(v, buf, sizeof buf);
    if (timefmt_parse_secs(s, &v) == 0)
        timefmt_elapsed(v, buf, sizeof buf);
    (void)sizefmt_parse_mb(s, &mb);
    /* a fixed "now" (2026-12-02 18:30 UTC): the same input, the same run */
    if (begintime_parse(s, 1796236200, &t) == 0)
        timefmt_iso(t, buf, sizeof buf);
    free(s);
    return 0;
}
