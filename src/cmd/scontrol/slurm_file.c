#include "cmd/scontrol/slurm_file.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/xmalloc.h"

struct slurm_file {
    char **keys, **vals;
    size_t n;
};

/* Lines that describe records, whose keys are not the cluster's settings. */
static const char *const records[] = { "NodeName=", "PartitionName=", "NodeSet=", "DownNodes=",
                                       "FrontendName=", "SwitchName=", "Include", NULL };

static bool is_record(const char *tok)
{
    for (size_t i = 0; records[i]; i++)
        if (!strncasecmp(tok, records[i], strlen(records[i])))
            return true;
    return false;
}

static void set(struct slurm_file *f, const char *k, size_t kn, const char *v, size_t vn)
{
    if (vn >= 2 && (v[0] == '"' || v[0] == '\'') && v[vn - 1] == v[0]) {
        v++;
        vn -= 2;
    }
    for (size_t i = 0; i < f->n; i++)
        if (strlen(f->keys[i]) == kn && !strncasecmp(f->keys[i], k, kn)) {
            free(f->vals[i]);
            f->vals[i] = xstrndup(v, vn);
            return;
        }
    f->keys = xrealloc(f->keys, (f->n + 1) * sizeof *f->keys);
    f->vals = xrealloc(f->vals, (f->n + 1) * sizeof *f->vals);
    f->keys[f->n] = xstrndup(k, kn);
    f->vals[f->n++] = xstrndup(v, vn);
}

static void parse_line(struct slurm_file *f, const char *p)
{
    while (isspace((unsigned char)*p))
        p++;
    if (!*p || *p == '#' || is_record(p))
        return;
    while (*p && *p != '#') {
        const char *tok = p;
        while (*p && !isspace((unsigned char)*p))
            p++;
        const char *eq = memchr(tok, '=', (size_t)(p - tok));
        if (eq && eq > tok)
            set(f, tok, (size_t)(eq - tok), eq + 1, (size_t)(p - eq - 1));
        while (isspace((unsigned char)*p))
            p++;
    }
}

struct slurm_file *slurm_file_load(const char *path)
{
    FILE *fp = path ? fopen(path, "re") : NULL;
    if (!fp)
        return NULL;
    struct slurm_file *f = xcalloc(1, sizeof *f);
    char line[4096];
    while (fgets(line, sizeof line, fp))
        parse_line(f, line);
    fclose(fp);
    return f;
}

void slurm_file_destroy(struct slurm_file *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->n; i++) {
        free(f->keys[i]);
        free(f->vals[i]);
    }
    free(f->keys);
    free(f->vals);
    free(f);
}

const char *slurm_file_get(const struct slurm_file *f, const char *key)
{
    for (size_t i = 0; f && i < f->n; i++)
        if (!strcasecmp(f->keys[i], key))
            return f->vals[i];
    return NULL;
}

char *slurm_file_beside(const char *path, const char *name)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    if (!slash)
        return xstrdup(name);
    return xasprintf("%.*s/%s", (int)(slash - path), path, name);
}

bool slurm_file_yes(const char *v)
{
    return v && (!strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcmp(v, "1"));
}
