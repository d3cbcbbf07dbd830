/*
 * adopt_opts: pam_herd_adopt's module arguments, with pam_slurm_adopt's
 * names, values and defaults, so that an /etc/pam.d line written for Slurm
 * works unchanged. Parsed on their own so the policy code reads a struct.
 */
#ifndef HERD_PAM_ADOPT_OPTS_H
#define HERD_PAM_ADOPT_OPTS_H

#include <stdbool.h>
#include <stddef.h>

/* PAM's answers the actions map to. */
enum adopt_action { ACT_ALLOW, ACT_DENY, ACT_IGNORE, ACT_NEWEST };

/* Slurm's log levels, quiet .. debug5; a message is logged when its level
 * is at or below log_level. */
enum adopt_log { ALOG_QUIET, ALOG_FATAL, ALOG_ERROR, ALOG_INFO, ALOG_VERBOSE, ALOG_DEBUG };

struct adopt_opts {
    enum adopt_action no_jobs;          /* action_no_jobs=deny*|ignore */
    enum adopt_action unknown;          /* action_unknown=newest*|allow|deny */
    enum adopt_action adopt_failure;    /* action_adopt_failure=allow*|deny */
    enum adopt_action generic_failure;  /* action_generic_failure=ignore*|allow|deny */
    int log_level;                      /* log_level=...; default info */
    bool ignore_root;                   /* ignore_root=1*|0 */
    char nodename[256];                 /* nodename=; "" finds it from the host name */
    char service[64];                   /* service=sshd*; "*" any */
    char admins[1024];                  /* admins=a,b: users let through, as root */
};

/* Fills o from argv; each argument not understood is written (one per
 * line, "name: why") to bad, which the caller logs. */
void adopt_opts_parse(struct adopt_opts *o, int argc, const char **argv, char *bad,
                      size_t badlen);

/* Whether user is in o->admins. */
bool adopt_opts_admin(const struct adopt_opts *o, const char *user);

#endif
