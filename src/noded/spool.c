#include "noded/spool.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/xmalloc.h"

char *spool_job_dir(const char *spool, int64_t job_id)
{
    return xasprintf("%s/job%05" PRId64, spool, job_id);
}

int64_t spool_parse_name(const char *name)
{
    if (strncmp(name, "job", 3) != 0 || !name[3])
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(name + 3, &end, 10);
    if (*end || errno || v <= 0 || v >= UINT32_MAX)
        return -1;
    return v;
}

int spool_mkdirs(const char *path, mode_t mode)
{
    char *p = xstrdup(path);
    for (char *s = p + 1; ; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char c = *s;
        *s = '\0';
        if (mkdir(p, mode) < 0 && errno != EEXIST) {
            free(p);
            return -1;
        }
        *s = c;
        if (!c)
            break;
    }
    free(p);
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : (errno = ENOTDIR, -1);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    return flag == FTW_DP ? rmdir(path) : unlink(path);
}

int spool_rmtree(const char *path)
{
    if (nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS) < 0)
        return errno == ENOENT ? 0 : -1;
    return 0;
}

/* In place, not by a temporary file and rename: that made and deleted an
 * inode per write (see spool_pool.c). */
static int write_file(const char *dir, const char *name, const char *data, mode_t mode,
                      bool durable)
{
    char *dst = xasprintf("%s/%s", dir, name);
    int rc = -1;
    int fd = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
    if (fd >= 0) {
        size_t len = strlen(data), off = 0;
        while (off < len) {
            ssize_t n = write(fd, data + off, len - off);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            off += (size_t)n;
        }
        if (off == len && fchmod(fd, mode) == 0 && (!durable || fsync(fd) == 0))
            rc = 0;
        if (close(fd) < 0)
            rc = -1;
    }
    free(dst);
    return rc;
}

int spool_write(const char *dir, const char *name, const char *data, mode_t mode)
{
    return write_file(dir, name, data, mode, false);
}

int spool_write_durable(const char *dir, const char *name, const char *data, mode_t mode)
{
    return write_file(dir, name, data, mode, true);
}

int spool_write_pid(const char *dir, const char *name, pid_t pid)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%ld\n", (long)pid);
    return spool_write(dir, name, buf, 0600);
}

pid_t spool_read_pid(const char *dir, const char *name)
{
    char *path = xasprintf("%s/%s", dir, name);
    FILE *f = fopen(path, "re");
    free(path);
    if (!f)
        return -1;
    char buf[32] = "";
    char *ok = fgets(buf, sizeof buf, f);
    fclose(f);
    char *end;
    long v = ok ? strtol(buf, &end, 10) : 0;
    /* the newline: a number read while it is written is not taken */
    return ok && v > 1 && *end == '\n' ? (pid_t)v : -1;
}

json_t *spool_usage_json(const struct job_result *res)
{
    const struct job_usage *u = &res->usage;
    if (!u->known)
        return NULL;
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:i, s:i, s:s}",
                     "elapsed_s", (json_int_t)u->elapsed_s,
                     "total_cpu_ms", (json_int_t)u->total_cpu_ms,
                     "user_cpu_ms", (json_int_t)u->user_cpu_ms,
                     "system_cpu_ms", (json_int_t)u->system_cpu_ms,
                     "max_rss_kb", (json_int_t)u->max_rss_kb, "gpus", (json_int_t)u->gpus,
                     "gpu_seconds", (json_int_t)u->gpu_seconds, "exit_code", res->exit_code,
                     "exit_signal", res->exit_signal, "source", u->source);
}

static int64_t get_i64(const json_t *o, const char *key)
{
    return json_integer_value(json_object_get(o, key));
}

static void usage_read(const json_t *o, struct job_usage *u)
{
    memset(u, 0, sizeof *u);
    if (!json_is_object(o))
        return;
    u->known = true;
    u->elapsed_s = get_i64(o, "elapsed_s");
    u->total_cpu_ms = get_i64(o, "total_cpu_ms");
    u->user_cpu_ms = get_i64(o, "user_cpu_ms");
    u->system_cpu_ms = get_i64(o, "system_cpu_ms");
    u->max_rss_kb = get_i64(o, "max_rss_kb");
    u->gpus = get_i64(o, "gpus");
    u->gpu_seconds = get_i64(o, "gpu_seconds");
    const char *src = json_string_value(json_object_get(o, "source"));
    snprintf(u->source, sizeof u->source, "%s", src ? src : "");
}

int spool_result_write(const char *dir, const struct job_result *res)
{
    json_t *o = json_pack("{s:s, s:i, s:i, s:I}", "state", res->state,
                          "exit_code", res->exit_code, "exit_signal", res->exit_signal,
                          "end_time", (json_int_t)res->end_time);
    json_t *u = spool_usage_json(res);
    if (u)
        json_object_set_new(o, "usage", u);
    if (res->prolog_failed)
        json_object_set_new(o, "prolog_failed", json_true());
    char *text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    int rc = spool_write_durable(dir, SPOOL_RESULT, text, 0600);
    free(text);
    return rc;
}

int spool_result_read(const char *dir, struct job_result *res)
{
    char *path = xasprintf("%s/%s", dir, SPOOL_RESULT);
    json_t *o = json_load_file(path, 0, NULL);
    free(path);
    const char *state = json_string_value(json_object_get(o, "state"));
    json_t *code = json_object_get(o, "exit_code"), *sig = json_object_get(o, "exit_signal");
    json_t *end = json_object_get(o, "end_time");
    int rc = -1;
    if (state && strlen(state) < sizeof res->state && json_is_integer(code)
        && json_is_integer(sig) && json_is_integer(end)) {
        snprintf(res->state, sizeof res->state, "%s", state);
        res->exit_code = (int)json_integer_value(code);
        res->exit_signal = (int)json_integer_value(sig);
        res->end_time = json_integer_value(end);
        usage_read(json_object_get(o, "usage"), &res->usage);
        res->prolog_failed = json_is_true(json_object_get(o, "prolog_failed"));
        rc = 0;
    }
    json_decref(o);
    return rc;
}

static int notify_addr(const char *spool, struct sockaddr_un *sun)
{
    memset(sun, 0, sizeof *sun);
    sun->sun_family = AF_UNIX;
    int n = snprintf(sun->sun_path, sizeof sun->sun_path, "%s/notify.sock", spool);
    return n > 0 && (size_t)n < sizeof sun->sun_path ? 0 : -1;
}

int spool_notify_open(const char *spool)
{
    struct sockaddr_un sun;
    if (notify_addr(spool, &sun) < 0)
        return -1;   /* a path too long for a socket: the tick still works */
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    unlink(sun.sun_path);
    /* only the supervisors (root) may wake herdd */
    if (bind(fd, (struct sockaddr *)&sun, sizeof sun) < 0 || chmod(sun.sun_path, 0600) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

void spool_notify(const char *job_dir)
{
    char *spool = xstrdup(job_dir);
    char *slash = strrchr(spool, '/');
    struct sockaddr_un sun;
    if (slash)
        *slash = '\0';
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (slash && fd >= 0 && notify_addr(spool, &sun) == 0) {
        ssize_t n = sendto(fd, "e", 1, MSG_DONTWAIT, (struct sockaddr *)&sun, sizeof sun);
        (void)n;
    }
    if (fd >= 0)
        close(fd);
    free(spool);
}
