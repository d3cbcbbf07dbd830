#!/bin/sh
# mkman.sh BINDIR OUTDIR VERSION COMMAND...: the section 1 manual pages,
# made from each program's own --help (as help2man would, without needing
# it), so that a page never says more or less than the program does; the
# daemons' section 8 pages are written by hand (packaging/man).
set -e
bin=$1 out=$2 version=$3
shift 3
mkdir -p "$out"
date=$(date -u -d "@${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}" +%Y-%m-%d)
# "  sbatch   submit a batch script" in herd --help: each command's summary
summary() {
    "$bin/herd" --help 2>/dev/null | sed -n "s/^  $1  *//p" | head -1
}
# --help text as a literal block: backslashes doubled, and a line that
# starts with . or ' kept from reading as a request
body() {
    sed -e 's/\\/\\e/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"
}
page() {
    name=$1 what=$2 help=$3
    {
        printf '.TH %s 1 "%s" "Herd %s" "Herd commands"\n' "$(echo "$name" | tr a-z A-Z)" "$date" "$version"
        printf '.SH NAME\n%s \\- %s\n' "$name" "$what"
        printf '.SH SYNOPSIS\n.nf\n'
        printf '%s\n' "$help" | body
        printf '.fi\n.SH DESCRIPTION\n'
        if [ "$name" = herd ] || [ "$name" = herd-sim ]; then
            printf 'Part of Herd, a workload manager for GPU clusters that speaks Slurm'"'"'s interface.\n'
        else
            printf '.B %s\nis Herd'"'"'s implementation of Slurm'"'"'s command of that name: the same\n' "$name"
            printf 'options, output formats and environment variables, for what is listed above.\n'
            printf 'It is a link to\n.BR herd (1).\n'
        fi
        printf '.SH FILES\n.TP\n.I /etc/herd/slurm.conf\nthe cluster'"'"'s configuration; \\fBSLURM_CONF\\fR names another.\n'
        printf '.SH SEE ALSO\n.BR herd (1),\n.BR herdctld (8),\n.BR herdd (8)\n'
        printf '.PP\n/usr/share/doc/herd\n'
    } > "$out/$name.1"
}
page herd "Slurm-compatible commands for a Herd GPU cluster" "$("$bin/herd" --help 2>&1)"
page herd-sim "replay a workload trace through Herd's scheduler" "$("$bin/herd-sim" --help 2>&1)"
for c in "$@"; do
    page "$c" "$(summary "$c")" "$("$bin/$c" --help 2>&1)"
done
here=$(dirname "$0")
cp "$here/man/herdctld.8" "$here/man/herdd.8" "$out/"
