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
#include "common/conf_hash.h"
#include "common/http.h"
#include "common/slurm_errno.h"
#include "common/xmalloc.h"
#include "ctld/api.h"
#include "ctld/ctld.h"

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

static char *config_hash(const struct ctld *c)
{
    json_t *o = conf_hash_files(c->conf->path);
    char *h = conf_hash_of(o);
    json_decref(o);
    return h;
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
    json_t *o = conf_hash_files(c->conf->path);
    if (!json_object_get(o, "slurm.conf")) {
        json_decref(o);
        http_reply_error(r, 500, SLURM_ERROR, "cannot read %s", c->conf->path);
        return;
    }
    char *hash = config_hash(c);   /* of what goes out now, edited or not */
    http_reply(r, 200, json_pack("{s:o, s:s}", "files", o, "hash", hash));
    free(hash);
}
