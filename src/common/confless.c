#include "common/confless.h"

#include <arpa/nameser.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <resolv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/http.h"
#include "common/xmalloc.h"

#define FETCH_TIMEOUT_S 10

static const char *const files[] = { "slurm.conf", "gres.conf", "cgroup.conf" };

int confless_server_parse(const char *s, char *host, size_t n, int *port)
{
    const char *colon = strrchr(s, ':');
    size_t len = colon ? (size_t)(colon - s) : strlen(s);
    *port = CONFLESS_PORT;
    if (len == 0 || len >= n)
        return -1;
    if (colon) {
        char *end;
        long p = strtol(colon + 1, &end, 10);
        if (*end || p < 1 || p > 65535)
            return -1;
        *port = (int)p;
    }
    memcpy(host, s, len);
    host[len] = '\0';
    return 0;
}

int confless_srv_lookup(char *host, size_t n, int *port, char *err, size_t errlen)
{
    unsigned char ans[4096];
    int len = res_search("_slurmctld._tcp", ns_c_in, ns_t_srv, ans, sizeof ans);
    ns_msg msg;
    if (len < 0 || ns_initparse(ans, len, &msg) < 0) {
        snprintf(err, errlen, "no --conf-server given and no DNS SRV record _slurmctld._tcp");
        return -1;
    }
    int best = -1;
    for (int i = 0; i < ns_msg_count(msg, ns_s_an); i++) {
        ns_rr rr;
        if (ns_parserr(&msg, ns_s_an, i, &rr) < 0 || ns_rr_type(rr) != ns_t_srv ||
            ns_rr_rdlen(rr) < 7)
            continue;
        const unsigned char *rd = ns_rr_rdata(rr);
        int prio = ns_get16(rd);
        char name[NS_MAXDNAME];
        if (dn_expand(ns_msg_base(msg), ns_msg_end(msg), rd + 6, name, sizeof name) < 0 ||
            strlen(name) >= n || (best >= 0 && prio >= best))
            continue;
        best = prio;
        *port = ns_get16(rd + 4);
        snprintf(host, n, "%s", name);
    }
    if (best < 0) {
        snprintf(err, errlen, "the DNS SRV record _slurmctld._tcp names no host");
        return -1;
    }
    return 0;
}

static int write_file(const char *dir, const char *name, const char *text)
{
    char *path = xasprintf("%s/%s", dir, name), *tmp = xasprintf("%s.tmp", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    size_t len = strlen(text);
    int rc = fd >= 0 && write(fd, text, len) == (ssize_t)len && fsync(fd) == 0 ? 0 : -1;
    if (fd >= 0 && close(fd) < 0)
        rc = -1;
    if (rc == 0 && rename(tmp, path) < 0)
        rc = -1;
    if (rc < 0)
        unlink(tmp);
    free(path);
    free(tmp);
    return rc;
}

/* dir and its missing parents (/run/herd/conf on a host without the
 * package's tmpfiles.d entry), 0755. */
static int mkdirs(const char *dir)
{
    char *p = xstrdup(dir);
    int rc = 0;
    for (char *s = p + 1; rc == 0 && (s = strchr(s, '/')) != NULL; s++) {
        *s = '\0';
        rc = mkdir(p, 0755) < 0 && errno != EEXIST ? -1 : 0;
        *s = '/';
    }
    if (rc == 0 && mkdir(p, 0755) < 0 && errno != EEXIST)
        rc = -1;
    free(p);
    return rc;
}

static int store(const char *dir, const json_t *got, char *err, size_t errlen)
{
    if (mkdirs(dir) < 0) {
        snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
        return -1;
    }
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        const char *text = json_string_value(json_object_get(got, files[i]));
        if (!text) {
            char *path = xasprintf("%s/%s", dir, files[i]);
            unlink(path);   /* no longer served: stale settings must not linger */
            free(path);
        } else if (write_file(dir, files[i], text) < 0) {
            snprintf(err, errlen, "cannot write %s/%s: %s", dir, files[i], strerror(errno));
            return -1;
        }
    }
    return 0;
}

int confless_fetch(const char *host, int port, const char *munge_socket, const char *cache_dir,
                   char *hash, size_t hashlen, char *err, size_t errlen)
{
    if (!munge_socket)
        munge_socket = getenv("HERD_MUNGE_SOCKET");
    struct { int status; json_t *body; } f;
    f.status = http_call_wait(munge_socket, host, port, "GET", "/v1/config", NULL,
                              FETCH_TIMEOUT_S, &f.body);
    const char *why = json_string_value(json_object_get(f.body, "error"));
    const json_t *got = json_object_get(f.body, "files");
    int rc = -1;
    if (f.status != 200 || !json_is_string(json_object_get(got, "slurm.conf")))
        snprintf(err, errlen, "cannot fetch the configuration from %s:%d: %s", host, port,
                 why ? why : f.status ? "unexpected answer" : "no answer (controller down, "
                 "or MUNGE refused)");
    else if ((rc = store(cache_dir, got, err, errlen)) == 0 && hash)
        snprintf(hash, hashlen, "%s", json_string_value(json_object_get(f.body, "hash")) ?: "");
    json_decref(f.body);
    return rc;
}
