/*
 * node_state: the node and partition states an operator (or a failed
 * prolog) set, kept across a controller restart as Slurm keeps them: DRAIN,
 * DOWN (for not responding too: ReturnToService decides whether a node
 * comes back when it registers), and a partition's State, MaxTime, DefaultTime
 * set by scontrol until a reconfigure. One document each in the store,
 * written whole at each change.
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
    return n->drain || n->down;
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

void part_set(struct ctld *c, size_t i, int up, int64_t max_time, int64_t def_time)
{
    struct conf_part *cp = &c->conf->parts[i];
    if (up >= 0)
        cp->up = c->sparts[i].up = up;
    if (max_time != -2)
        cp->max_time_min = c->sparts[i].max_time_min = max_time;
    if (def_time != -2)
        cp->default_time_min = def_time;
}

void parts_state_note(struct ctld *c, const char *name, int up, int64_t max_time,
                      int64_t def_time)
{
    json_t *doc = store_doc_load(c->store, "partitions");
    if (!json_is_object(doc)) {
        json_decref(doc);
        doc = json_object();
    }
    json_t *e = json_object_get(doc, name);
    if (!json_is_object(e))
        json_object_set_new(doc, name, e = json_object());
    if (up >= 0)
        json_object_set_new(e, "up", json_boolean(up));
    if (max_time != -2)
        json_object_set_new(e, "max_time", json_integer(max_time));
    if (def_time != -2)
        json_object_set_new(e, "default_time", json_integer(def_time));
    store_doc_save(c->store, "partitions", doc);
    json_decref(doc);
}

void parts_state_clear(struct ctld *c)
{
    json_t *empty = json_object();
    store_doc_save(c->store, "partitions", empty);
    json_decref(empty);
}

static int64_t kept_minutes(const json_t *e, const char *key)
{
    json_t *v = json_object_get(e, key);
    return json_is_integer(v) && json_integer_value(v) >= -1 ? json_integer_value(v) : -2;
}

void parts_load_state(struct ctld *c)
{
    json_t *doc = store_doc_load(c->store, "partitions");
    const char *name;
    json_t *e;
    json_object_foreach(doc, name, e) {
        const struct conf_part *cp = conf_part_find(c->conf, name);
        if (!cp)
            continue;   /* no longer in slurm.conf */
        json_t *up = json_object_get(e, "up");
        part_set(c, (size_t)(cp - c->conf->parts), json_is_boolean(up) ? json_is_true(up) : -1,
                 kept_minutes(e, "max_time"), kept_minutes(e, "default_time"));
        log_info("partition %s keeps what scontrol set (State=%s)", name,
                 cp->up ? "UP" : "DOWN");
    }
    json_decref(doc);
}
