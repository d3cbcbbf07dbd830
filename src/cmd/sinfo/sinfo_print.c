/*
 * sinfo's table: the format, the date line of -l, the header, the rows.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/sinfo/sinfo.h"
#include "common/hostlist.h"

/* Slurm's MIN_PART_FIELD_SIZE and MIN_NODE_FIELD_SIZE. */
#define SINFO_MIN_WIDTH 9

static void sinfo_auto_widths(struct fmt *f, const struct sinfo_group *g, size_t n)
{
    int pw = SINFO_MIN_WIDTH, nw = SINFO_MIN_WIDTH;
    for (size_t i = 0; i < n; i++) {
        int len = (int)strlen(jget_str(g[i].part, "name", ""));
        len += jget_bool(g[i].part, "default", false);
        pw = len > pw ? len : pw;
        char *hl = hostlist_ranged_string(g[i].hl);
        len = hl ? (int)strlen(hl) : 0;
        nw = len > nw ? len : nw;
        free(hl);
    }
    fmt_set_auto_width(f, 'P', pw);
    fmt_set_auto_width(f, 'R', pw);
    fmt_set_auto_width(f, 'N', nw);
}

/* Slurm's order: -s, then -N, then -R pick the default. */
static const char *sinfo_default_format(const struct sinfo_opts *o)
{
    if (o->summarize)
        return SINFO_FORMAT_SUMMARIZE;
    if (o->node_mode)
        return o->long_list ? SINFO_FORMAT_NODE_LONG : SINFO_FORMAT_NODE;
    if (o->list_reasons)
        return o->long_list ? SINFO_FORMAT_REASONS_LONG : SINFO_FORMAT_REASONS;
    return o->long_list ? SINFO_FORMAT_LONG : SINFO_FORMAT;
}

/* -o %all: every code, as Slurm lists them (lowercase, then uppercase
 * followed by a blank), separated by '|'. */
#define SINFO_ALL "%a|%b|%c|%d|%e|%f|%g|%h|%l|%m|%n|%o|%p|%r|%s|%t|%u|%v|%w|%z|%A |%B |%C |%D " \
                  "|%E |%F |%G |%H |%I |%L |%M |%N |%O |%P |%R |%S |%T |%U |%V |%X |%Y |%Z "

struct fmt *sinfo_format(const struct sinfo_opts *o, const char *prog)
{
    if (o->format && !strcmp(o->format, "%all"))
        return fmt_parse(SINFO_ALL, sinfo_codes, prog, "node");
    if (o->long_format)
        return fmt_parse_long(o->long_format, sinfo_codes, sinfo_names, prog, "node");
    return fmt_parse(o->format ? o->format : sinfo_default_format(o), sinfo_codes, prog,
                     "node");
}

int sinfo_print(FILE *out, const json_t *parts, const json_t *nodes,
                const struct sinfo_opts *o, const char *prog)
{
    struct fmt *f = sinfo_format(o, prog);
    if (!f)
        return -1;
    size_t n;
    struct sinfo_group *g = sinfo_groups(json_object_get(parts, "partitions"),
                                         json_object_get(nodes, "nodes"), o, f, &n);
    sinfo_auto_widths(f, g, n);
    if (o->long_list && !o->noheader) {
        char buf[64];
        time_t t = (time_t)o->now;
        struct tm tm;
        localtime_r(&t, &tm);
        strftime(buf, sizeof buf, "%a %b %d %H:%M:%S %Y", &tm);   /* as squeue -l */
        fprintf(out, "%s\n", buf);
    }
    if (!o->noheader)
        fmt_print_row(out, f, NULL, NULL);
    for (size_t i = 0; i < n; i++)
        fmt_print_row(out, f, &g[i], NULL);
    sinfo_groups_free(g, n);
    fmt_destroy(f);
    return 0;
}
