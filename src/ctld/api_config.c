/* Configless nodes and login hosts (SlurmctldParameters=enable_configless):
 * GET /v1/config gives any authenticated caller slurm.conf and, where they
 * are beside it, gres.conf and cgroup.conf, as Slurm's controller sends
 * them to slurmd --conf-server and sackd. Their hash rides on every answer
 * to a node's registration, so that an agent running from a fetched copy
 * sees `scontrol reconfigure` and fetches again. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/http.h"
#include "common/slurm_errno.h"
#include "common/xmalloc.h"
#include "ctld/api.h"
#include "ctld/ctld.h"

static const char *const files[] = { "slurm.conf", "gres.conf", "cgroup.conf" };

bool config_served(const struct ctld *c)
{
    const char *p = c->conf->ctld_params;
    for (const char *w = p ? strcasestr(p, "enable_configless") : NULL; w;
         w = strcasestr(w + 1, "enable_configless")) {
        char after = w[strlen("enable_configless")];
        if ((w == p || w[-1] == ',') && (after == '\0' || after == ','))
            return true;
    }
    return false;
}

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

static json_t *config_files(const struct ctld *c)
{
    json_t *o = json_object();
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char *t = read_beside(c->conf->path, files[i]);
        if (t)
            json_object_set_new(o, files[i], json_string(t));
        free(t);
    }
    return o;
}

/* FNV-1a over the files as served: cheap, and only compared for equality. */
static char *config_hash(const struct ctld *c)
{
    json_t *o = config_files(c);
    char *text = json_dumps(o, JSON_SORT_KEYS | JSON_COMPACT);
    json_decref(o);
    uint64_t h = 1469598103934665603ULL;
    for (const char *p = text ? text : ""; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    free(text);
    return xasprintf("%016llx", (unsigned long long)h);
}

void config_hash_refresh(struct ctld *c)
{
    free(c->conf_hash);
    c->conf_hash = config_served(c) ? config_hash(c) : NULL;
}

void api_config(struct http_req *r)
{
    struct ctld *c = r->ctx;
    if (!config_served(c)) {
        http_reply_error(r, 404, SLURM_ERROR, "configless mode is not enabled on this "
                         "controller (SlurmctldParameters=enable_configless)");
        return;
    }
    json_t *o = config_files(c);
    if (!json_object_get(o, "slurm.conf")) {
        json_decref(o);
        http_reply_error(r, 500, SLURM_ERROR, "cannot read %s", c->conf->path);
        return;
    }
    char *hash = config_hash(c);   /* of what goes out now, edited or not */
    http_reply(r, 200, json_pack("{s:o, s:s}", "files", o, "hash", hash));
    free(hash);
}
