/*
 * sinfo's rows: nodes grouped per partition by the values the format shows.
 * Two nodes share a row when every FMT_GROUP_BY field of the format prints
 * the same for both, which is Slurm's rule for its match flags.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/sinfo/sinfo.h"
#include "common/hostlist.h"
#include "common/xmalloc.h"

struct sinfo_build {
    struct sinfo_group *g;
    char **keys;
    size_t n;
};

/* The nodes by name, made once per listing: a search of the array for
 * each partition member made sinfo quadratic (5,000 nodes: 1.47 s, now 0.82 s). The
 * first node of a name wins, as the search found it. */
static json_t *sinfo_nodes_by_name(const json_t *nodes)
{
    json_t *by = json_object(), *node;
    size_t i;
    json_array_foreach(nodes, i, node) {
        const char *name = jget_str(node, "name", "");
        if (!json_object_get(by, name))
            json_object_set(by, name, node);
    }
    return by;
}

static void sinfo_group_add_node(struct sinfo_group *g, const json_t *node)
{
    int64_t cpus = jget_int(node, "cpus", 1), alloc = jget_int(node, "alloc_cpus", 0);
    int64_t mem = jget_int(node, "mem_mb", 1);
    struct nodestate st;
    sinfo_node_state(node, &st);
    if (!g->nnodes++) {
        g->node = node;
        g->state = st;
        g->cpus_min = g->cpus_max = cpus;
        g->mem_min = g->mem_max = mem;
    }
    g->cpus_min = cpus < g->cpus_min ? cpus : g->cpus_min;
    g->cpus_max = cpus > g->cpus_max ? cpus : g->cpus_max;
    g->mem_min = mem < g->mem_min ? mem : g->mem_min;
    g->mem_max = mem > g->mem_max ? mem : g->mem_max;
    g->cpus_total += cpus;
    g->cpus_alloc += alloc;
    if (nodestate_is_other(&st)) {
        g->cpus_other += cpus - alloc;
        g->nodes_other++;
    } else {
        g->cpus_idle += cpus - alloc;
        if (st.base == NODESTATE_ALLOCATED || st.base == NODESTATE_MIXED)
            g->nodes_alloc++;
        else
            g->nodes_idle++;
    }
    hostlist_push(g->hl, jget_str(node, "name", ""));
}

/* The code whose value splits rows for code: %C (A/I/O/T) splits by the
 * CPU count, as Slurm's cpus match flag does. */
static const struct fmt_code *sinfo_key_code(const struct fmt_code *c)
{
    if (c->code != 'C')
        return c->flags & FMT_GROUP_BY ? c : NULL;
    for (const struct fmt_code *k = sinfo_codes; k->code; k++)
        if (k->code == 'c')
            return k;
    return NULL;
}

/* What a one-node group prints in the fields that split rows. */
static char *sinfo_key(const struct fmt *f, const struct sinfo_group *g)
{
    char *key = xstrdup("");
    for (size_t i = 0; i < f->ncols; i++) {
        const struct fmt_code *c = f->cols[i].code ? sinfo_key_code(f->cols[i].code) : NULL;
        if (!c)
            continue;
        bool cut;
        char *v = c->value(g, NULL, &cut);
        char *k = xasprintf("%s%s\x1f", key, v ? v : "");
        free(v);
        free(key);
        key = k;
    }
    return key;
}

static struct sinfo_group *sinfo_new_group(struct sinfo_build *b, const json_t *part,
                                           size_t pi, char *key)
{
    b->g = xrealloc(b->g, (b->n + 1) * sizeof *b->g);
    b->keys = xrealloc(b->keys, (b->n + 1) * sizeof *b->keys);
    struct sinfo_group *g = &b->g[b->n];
    memset(g, 0, sizeof *g);
    g->part = part;
    g->part_index = pi;
    g->hl = hostlist_create("");
    b->keys[b->n++] = key;
    return g;
}

static void sinfo_place_node(struct sinfo_build *b, size_t first, const json_t *part,
                             size_t pi, const json_t *node, const struct fmt *f, bool node_mode)
{
    struct sinfo_group one = {.part = part, .hl = hostlist_create("")};
    sinfo_group_add_node(&one, node);
    char *key = sinfo_key(f, &one);
    hostlist_destroy(one.hl);
    for (size_t i = first; !node_mode && i < b->n; i++) {
        if (!strcmp(b->keys[i], key)) {
            sinfo_group_add_node(&b->g[i], node);
            free(key);
            return;
        }
    }
    sinfo_group_add_node(sinfo_new_group(b, part, pi, key), node);
}

/* The partition's node names: "node_names", else its "nodes" host list. */
static struct hostlist *sinfo_part_nodes(const json_t *part)
{
    const json_t *names = json_object_get(part, "node_names");
    if (!json_is_array(names))
        return hostlist_create(jget_str(part, "nodes", ""));
    struct hostlist *hl = hostlist_create("");
    size_t i;
    json_t *name;
    json_array_foreach(names, i, name)
        if (json_is_string(name))
            hostlist_push(hl, json_string_value(name));
    return hl;
}

/* Where a partition's nodes go: from rows[first] on; seen, when not NULL,
 * holds the nodes already placed (rows shared by all partitions). */
struct sinfo_pass {
    size_t first;
    struct hostlist *seen;
    bool node_mode;
};

static void sinfo_add_part(struct sinfo_build *b, const json_t *part, size_t pi,
                           const json_t *by_name, const struct fmt *f,
                           const struct sinfo_opts *o, const struct sinfo_pass *pass)
{
    struct hostlist *hl = sinfo_part_nodes(part);
    for (size_t i = 0; hl && i < hostlist_count(hl); i++) {
        const json_t *node = json_object_get(by_name, hostlist_nth(hl, i));
        if (!node || !sinfo_node_wanted(node, o))
            continue;
        if (pass->seen && hostlist_find(pass->seen, hostlist_nth(hl, i)) >= 0)
            continue;
        if (pass->seen)
            hostlist_push(pass->seen, hostlist_nth(hl, i));
        sinfo_place_node(b, pass->first, part, pi, node, f, pass->node_mode);
    }
    hostlist_destroy(hl);
}

/* Whether the format shows a partition's fields; Slurm's partition rows,
 * empty ones included, exist only then. */
static bool sinfo_shows_part(const struct fmt *f)
{
    for (size_t i = 0; i < f->ncols; i++)
        if (f->cols[i].code && (f->cols[i].code->flags & SINFO_PART))
            return true;
    return false;
}

/* Node names in natural order: "node2" before "node10". */
static int sinfo_name_cmp(const char *a, const char *b)
{
    size_t i = 0;
    while (a[i] && a[i] == b[i])
        i++;
    while (i > 0 && isdigit((unsigned char)a[i - 1]))
        i--;
    if (isdigit((unsigned char)a[i]) && isdigit((unsigned char)b[i])) {
        unsigned long x = strtoul(a + i, NULL, 10), y = strtoul(b + i, NULL, 10);
        if (x != y)
            return x < y ? -1 : 1;
    }
    return strcmp(a, b);
}

static int sinfo_cmp_part_state(const void *x, const void *y)
{
    const struct sinfo_group *a = x, *b = y;
    if (a->part_index != b->part_index)
        return a->part_index < b->part_index ? -1 : 1;
    return nodestate_value(&b->state) - nodestate_value(&a->state);
}

static int sinfo_cmp_node(const void *x, const void *y)
{
    const struct sinfo_group *a = x, *b = y;
    int c = sinfo_name_cmp(jget_str(a->node, "name", ""), jget_str(b->node, "name", ""));
    if (c)
        return c;
    return a->part_index < b->part_index ? -1 : a->part_index > b->part_index;
}

/* qsort is not stable; the build order breaks ties so that rows keep the
 * order their first nodes came in. */
static void sinfo_sort(struct sinfo_group *g, size_t n, bool node_mode)
{
    for (size_t i = 1; i < n; i++) {
        struct sinfo_group cur = g[i];
        size_t j = i;
        int (*cmp)(const void *, const void *) = node_mode ? sinfo_cmp_node
                                                           : sinfo_cmp_part_state;
        while (j > 0 && cmp(&g[j - 1], &cur) > 0) {
            g[j] = g[j - 1];
            j--;
        }
        g[j] = cur;
    }
}

struct sinfo_group *sinfo_groups(const json_t *parts, const json_t *nodes,
                                 const struct sinfo_opts *o, const struct fmt *f, size_t *n)
{
    struct sinfo_build b = {0};
    bool by_part = sinfo_shows_part(f);
    struct sinfo_pass pass = {.node_mode = o->node_mode};
    json_t *by_name = sinfo_nodes_by_name(nodes);
    if (!by_part && !o->node_mode)
        pass.seen = hostlist_create("");
    size_t i;
    json_t *part;
    json_array_foreach(parts, i, part) {
        if (o->parts.n && !strlist_has(&o->parts, jget_str(part, "name", ""), false))
            continue;
        pass.first = pass.seen ? 0 : b.n;
        sinfo_add_part(&b, part, i, by_name, f, o, &pass);
        if (b.n == pass.first && by_part && !o->node_mode)
            sinfo_new_group(&b, part, i, xstrdup(""));
    }
    hostlist_destroy(pass.seen);
    json_decref(by_name);
    for (i = 0; i < b.n; i++) {
        free(b.keys[i]);
        hostlist_uniq(b.g[i].hl);
    }
    free(b.keys);
    sinfo_sort(b.g, b.n, o->node_mode && b.n);
    *n = b.n;
    return b.g;
}

void sinfo_groups_free(struct sinfo_group *g, size_t n)
{
    for (size_t i = 0; g && i < n; i++)
        hostlist_destroy(g[i].hl);
    free(g);
}
