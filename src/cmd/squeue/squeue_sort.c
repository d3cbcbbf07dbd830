/*
 * squeue_sort: -S/--sort, Slurm's "P,t,-p" lists: format codes (or -O
 * names) each ascending, or descending after '-'. A field is compared as
 * a number or as text, as its value is; equal jobs stay in job id order.
 * Letters squeue has no sort for are passed over, as Slurm's squeue does.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd/squeue/squeue.h"
#include "common/xmalloc.h"

static const struct {
    char code;
    enum sq_key key;
    bool number;
} sort_keys[] = {
    {'i', SQ_JOB_ID, true}, {'A', SQ_JOB_ID, true}, {'F', SQ_ARRAY_JOB_ID, true},
    {'K', SQ_ARRAY_TASK_ID, true}, {'P', SQ_PARTITION, false}, {'t', SQ_STATE, false},
    {'T', SQ_STATE, false}, {'p', SQ_PRIORITY, true}, {'Q', SQ_PRIORITY, true},
    {'j', SQ_NAME, false}, {'u', SQ_USER_NAME, false}, {'U', SQ_USER_ID, true},
    {'a', SQ_ACCOUNT, false}, {'q', SQ_QOS, false}, {'D', SQ_NUM_NODES, true},
    {'C', SQ_NUM_CPUS, true}, {'c', SQ_CPUS_PER_TASK, true}, {'l', SQ_TIME_LIMIT, true},
    {'S', SQ_START_TIME, true}, {'V', SQ_SUBMIT_TIME, true}, {'e', SQ_END_TIME, true},
    {'N', SQ_NODE_LIST, false}, {'v', SQ_RESERVATION, false}, {'r', SQ_REASON, false},
    {'y', SQ_NICE, true}, {'G', SQ_GROUP_ID, true}, {'g', SQ_GROUP_ID, true},
    {'Z', SQ_WORK_DIR, false}, {'k', SQ_COMMENT, false}, {'E', SQ_DEPENDENCY, false},
    {'Y', SQ_SCHED_NODES, false}, {'o', SQ_COMMAND, false}, {'w', SQ_WCKEY, false},
};

/* A list item's format code: a letter, or a -O name ("JobID"). */
static char item_code(const char *s, size_t len)
{
    if (len == 1)
        return s[0];
    for (const struct fmt_name *n = squeue_names; n->name; n++)
        if (strlen(n->name) == len && !strncasecmp(n->name, s, len))
            return n->code;
    return 0;
}

void squeue_sort_parse(struct squeue_opts *o, const char *spec)
{
    o->nsort = 0;
    for (const char *p = spec; *p && o->nsort < SQUEUE_MAX_SORT;) {
        size_t len = strcspn(p, ",");
        const char *s = p;
        bool desc = false;
        for (; len && (*s == '+' || *s == '-' || *s == '%'); s++, len--)
            desc = *s == '-' ? true : *s == '+' ? false : desc;
        char code = item_code(s, len);
        for (size_t i = 0; code && i < sizeof sort_keys / sizeof *sort_keys; i++)
            if (sort_keys[i].code == code) {
                o->sort[o->nsort++] = (struct squeue_sort){ sort_keys[i].key,
                                                            sort_keys[i].number, desc };
                break;
            }
        p = s + len + (s[len] == ',');
    }
}

char *squeue_sort_fields(const struct squeue_opts *o)
{
    char *out = xstrdup("");
    for (int i = 0; i < o->nsort; i++) {
        char *t = xasprintf("%s,%s", out, sq_key_names[o->sort[i].key]);
        free(out);
        out = t;
    }
    return out;
}

int squeue_sort_cmp(const struct sq_row *x, const struct sq_row *y,
                    const struct squeue_opts *o)
{
    for (int i = 0; i < o->nsort; i++) {
        const struct squeue_sort *k = &o->sort[i];
        int c;
        if (k->number) {
            int64_t a = sq_int(x, k->key, 0), b = sq_int(y, k->key, 0);
            c = (a > b) - (a < b);
        } else {
            c = strcmp(sq_str(x, k->key, ""), sq_str(y, k->key, ""));
        }
        if (c)
            return k->desc ? -c : c;
    }
    int64_t a = sq_int(x, SQ_JOB_ID, 0), b = sq_int(y, SQ_JOB_ID, 0);
    if (a != b)
        return (a > b) - (a < b);
    a = sq_int(x, SQ_ARRAY_TASK_ID, 0);
    b = sq_int(y, SQ_ARRAY_TASK_ID, 0);
    return (a > b) - (a < b);
}
