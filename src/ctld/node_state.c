/*
 * node_state: the node states an operator (or a failed prolog) set, kept
 * across a controller restart as Slurm keeps them: DRAIN, and DOWN other
 * than "Not responding" (a node that merely went silent comes back when it
 * registers). One document in the store, written whole at each change.
 */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "common/conf.h"
#include "ctld/ctld.h"
#include "ctld/store.h"

static bool kept(const struct node *n)
{
    return n->drain || (n->down && n->reason && strcmp(n->reason, "Not responding") != 0);
}

void nodes_save_state(struct ctld *c)
{
    if (!c->store)
        return;
    json_t *doc = json_object();
    for (size_t i = 0; i < c->nnodes; i++) {
        const struct node *n = &c->nodes[i];
        if (!kept(n))
            continue;
        json_object_set_new(doc, n->conf->name,
                            json_pack("{s:b, s:b, s:s, s:I, s:i}", "drain", n->drain, "down",
                                      n->down, "reason", n->reason ? n->reason : "",
                                      "reason_time", (json_int_t)n->reason_time, "reason_uid",
                                      (int)n->reason_uid));
    }
    store_doc_save(c->store, "nodes", doc);
    json_decref(doc);
}

/* At start-up, after nodes_init: what was kept wins over slurm.conf's State=. */
void nodes_load_state(struct ctld *c)
{
    json_t *doc = store_doc_load(c->store, "nodes");
    const char *name;
    json_t *v;
    json_object_foreach(doc, name, v) {
        struct node *n = node_find(c, name);
        if (!n)
            continue;   /* no longer in slurm.conf */
        n->drain = json_is_true(json_object_get(v, "drain"));
        n->down = json_is_true(json_object_get(v, "down"));
        free(n->reason);
        n->reason = xstrdup(json_string_value(json_object_get(v, "reason")) ?: "");
        n->reason_time = json_integer_value(json_object_get(v, "reason_time"));
        n->reason_uid = (uid_t)json_integer_value(json_object_get(v, "reason_uid"));
        log_info("node %s stays %s: %s", name, n->down ? "DOWN" : "DRAIN", n->reason);
    }
    json_decref(doc);
}
