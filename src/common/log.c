#include "common/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *log_prog = "herd";
static int log_level;
static int log_fd = 2;
static char log_path[4096];
static int log_stderr;     /* stderr follows the log file (log_take_stderr) */

void log_init(const char *prog, int verbose, const char *file)
{
    log_prog = prog;
    log_level = verbose;
    if (file) {
        snprintf(log_path, sizeof log_path, "%s", file);
        log_reopen();
    }
}

void log_reopen(void)
{
    if (!log_path[0])
        return;
    int fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    if (log_fd > 2)
        close(log_fd);
    log_fd = fd;
    if (log_stderr)
        dup2(fd, 2);
}

int log_take_stderr(void)
{
    if (log_fd <= 2 || dup2(log_fd, 2) < 0)
        return -1;
    log_stderr = 1;
    return 0;
}

int log_verbose(void)
{
    return log_level;
}

static void vlog(const char *tag, int err, const char *fmt, va_list ap)
{
    char msg[2048], line[2300];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (log_fd > 2) {
        char ts[32];
        struct timespec now;
        struct tm tm;
        clock_gettime(CLOCK_REALTIME, &now);
        localtime_r(&now.tv_sec, &tm);
        strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
        snprintf(line, sizeof line, "[%s.%03ld] %s%s%s%s\n", ts, now.tv_nsec / 1000000,
                 tag, msg, err ? ": " : "", err ? strerror(err) : "");
    } else {
        snprintf(line, sizeof line, "%s: %s%s%s%s\n", log_prog, tag, msg,
                 err ? ": " : "", err ? strerror(err) : "");
    }
    ssize_t n = write(log_fd, line, strlen(line));
    (void)n;
}

#define LOG_BODY(tag, err)          \
    do {                            \
        va_list ap;                 \
        va_start(ap, fmt);          \
        vlog(tag, err, fmt, ap);    \
        va_end(ap);                 \
    } while (0)

void log_info(const char *fmt, ...) { LOG_BODY("", 0); }
void log_warnx(const char *fmt, ...) { LOG_BODY("warning: ", 0); }

void log_debug(const char *fmt, ...)
{
    if (log_level < 1)
        return;
    LOG_BODY("debug: ", 0);
}

void log_warn(const char *fmt, ...)
{
    int e = errno;
    LOG_BODY("warning: ", e);
}

void fatal(const char *fmt, ...)
{
    int e = errno;
    LOG_BODY("fatal: ", e);
    exit(1);
}

void fatalx(const char *fmt, ...)
{
    LOG_BODY("fatal: ", 0);
    exit(1);
}
