/*
 * log: the one logging vocabulary of every Herd program (OpenBSD's).
 * log_warn adds strerror(errno), log_warnx does not; fatal/fatalx exit(1).
 * Before log_init, messages go to stderr tagged with the program name.
 */
#ifndef HERD_LOG_H
#define HERD_LOG_H

#include <stdarg.h>

/* file NULL: stderr. verbose: 0 info, 1 debug. */
void log_init(const char *prog, int verbose, const char *file);
void log_reopen(void);
/* Sends stderr to the log file too, now and after each log_reopen: what a
 * library or a sanitizer writes there reaches the log rather than a
 * daemon's /dev/null. 0, or -1 when there is no log file. */
int  log_take_stderr(void);
int  log_verbose(void);

void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void fatalx(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
