#include "common/conf_hash.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fnv.h"
#include "common/xmalloc.h"

static const char *const files[] = { "slurm.conf", "gres.conf", "cgroup.conf" };

/* FILE beside slurm.conf, whole; NULL when it is not there. */
static char *read_beside(const char *conf_path, const char *name)
{
    const char *slash = strrchr(conf_path, '/');
    char *path = !strcmp(name, "slurm.conf") ? xstrdup(conf_path)
               : xasprintf("%.*s/%s", slash ? (int)(slash - conf_path) : 1,
                           slash ? conf_path : ".", name);
    FILE *f = fopen(path, "re");
    free(path);
    if (!f)
        return NULL;
    char *text = NULL;
    size_t cap = 0;
    ssize_t n = getdelim(&text, &cap, '\0', f);
    fclose(f);
    if (n < 0) {
        free(text);
        return NULL;
    }
    return text;
}

json_t *conf_hash_files(const char *conf_path)
{
    json_t *o = json_object();
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char *t = read_beside(conf_path, files[i]);
        if (t)
            json_object_set_new(o, files[i], json_string(t));
        free(t);
    }
    return o;
}

/* Cheap, and only ever compared for equality. */
char *conf_hash_of(const json_t *o)
{
    char *text = json_dumps(o, JSON_SORT_KEYS | JSON_COMPACT);
    uint64_t h = fnv1a_str(text ? text : "");
    free(text);
    return xasprintf("%016llx", (unsigned long long)h);
}
