#include "noded/nodeconf.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/xmalloc.h"

char *nodeconf_line_value(const char *line, const char *key)
{
    size_t klen = strlen(key);
    const char *p = line;
    while (*p) {
        while (isspace((unsigned char)*p))
            p++;
        if (*p == '#' || !*p)
            return NULL;
        const char *tok = p;
        while (*p && !isspace((unsigned char)*p))
            p++;
        if ((size_t)(p - tok) > klen && strncasecmp(tok, key, klen) == 0 && tok[klen] == '=') {
            const char *v = tok + klen + 1;
            size_t n = (size_t)(p - v);
            if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
                v++;
                n -= 2;
            }
            return xstrndup(v, n);
        }
    }
    return NULL;
}

static bool yes(const char *v)
{
    return v && (!strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcmp(v, "1"));
}

/* The last value each key has in the file wins, as in Slurm. */
static void set_last(char **dst, const char *line, const char *key)
{
    char *v = nodeconf_line_value(line, key);
    if (v) {
        free(*dst);
        *dst = v;
    }
}

static int read_keys(const char *path, const char *const *keys, char **vals)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    char line[4096];
    while (fgets(line, sizeof line, f))
        for (size_t i = 0; keys[i]; i++)
            set_last(&vals[i], line, keys[i]);
    fclose(f);
    return 0;
}

static char *conf_dir_file(const char *slurm_conf, const char *name)
{
    const char *slash = strrchr(slurm_conf, '/');
    if (!slash)
        return xstrdup(name);
    return xasprintf("%.*s/%s", (int)(slash - slurm_conf), slurm_conf, name);
}

static const char *const main_keys[] = { "TaskPlugin", "ProctrackType", "Prolog", "Epilog",
                                         NULL };
static const char *const cg_keys[] = { "ConstrainRAMSpace", "ConstrainCores",
                                       "ConstrainDevices", "CgroupMountpoint", NULL };

int nodeconf_load(struct nodeconf *nc, const char *slurm_conf)
{
    memset(nc, 0, sizeof *nc);
    char *mv[5] = { 0 }, *cv[5] = { 0 };
    if (read_keys(slurm_conf, main_keys, mv) < 0)
        return -1;
    char *cg = conf_dir_file(slurm_conf, "cgroup.conf");
    read_keys(cg, cg_keys, cv);
    free(cg);
    nc->task_cgroup = mv[0] && strstr(mv[0], "task/cgroup");
    nc->proctrack_cgroup = mv[1] && !strcmp(mv[1], "proctrack/cgroup");
    nc->prolog = mv[2] && mv[2][0] ? mv[2] : (free(mv[2]), NULL);
    nc->epilog = mv[3] && mv[3][0] ? mv[3] : (free(mv[3]), NULL);
    nc->constrain_ram = nc->task_cgroup && yes(cv[0]);
    nc->constrain_cores = nc->task_cgroup && yes(cv[1]);
    nc->constrain_devices = nc->task_cgroup && yes(cv[2]);
    nc->cgroup_mount = cv[3] && cv[3][0] ? xstrdup(cv[3]) : xstrdup("/sys/fs/cgroup");
    free(mv[0]);
    free(mv[1]);
    for (int i = 0; i < 4; i++)
        free(cv[i]);
    return 0;
}

void nodeconf_clear(struct nodeconf *nc)
{
    free(nc->cgroup_mount);
    free(nc->prolog);
    free(nc->epilog);
    memset(nc, 0, sizeof *nc);
}
