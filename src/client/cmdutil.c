#include "client/cmdutil.h"

#include <errno.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/rawstr.h"
#include "common/xmalloc.h"

void cmd_error(const char *prog, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: error: ", prog);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void strlist_split(struct strlist *l, const char *csv)
{
    const char *p = csv;
    while (p && *p) {
        size_t n = strcspn(p, ",");
        if (n) {
            l->items = xrealloc(l->items, (l->n + 1) * sizeof *l->items);
            l->items[l->n++] = xstrndup(p, n);
        }
        p += n;
        if (*p)
            p++;
    }
}

void strlist_split_raw(struct strlist *l, const char *csv)
{
    char *text = rawstr_encode(csv);
    strlist_split(l, text);
    free(text);
}

void strlist_clear(struct strlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->items[i]);
    free(l->items);
    l->items = NULL;
    l->n = 0;
}

bool strlist_has(const struct strlist *l, const char *s, bool nocase)
{
    if (!s)
        return false;
    for (size_t i = 0; i < l->n; i++)
        if (nocase ? !strcasecmp(l->items[i], s) : !strcmp(l->items[i], s))
            return true;
    return false;
}

bool cmd_cell_plain(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f || *p == 0xEE)   /* 0xEE: an escape may start */
            return false;
    return true;
}

void cmd_cell_clean(char *s)
{
    rawstr_decode_in_place(s);
    for (unsigned char *p = (unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            *p = '?';
}

static void json_clean_string(json_t *v)
{
    if (cmd_cell_plain(json_string_value(v)))
        return;
    char *s = xstrdup(json_string_value(v));
    cmd_cell_clean(s);
    json_string_setn_nocheck(v, s, strlen(s));
    free(s);
}

void cmd_json_clean(json_t *v)
{
    const char *k;
    size_t i;
    json_t *e;
    if (json_is_string(v)) {
        json_clean_string(v);
    } else if (json_is_object(v)) {
        json_object_foreach(v, k, e)
            cmd_json_clean(e);
    } else if (json_is_array(v)) {
        json_array_foreach(v, i, e)
            cmd_json_clean(e);
    }
}

int cmd_parse_user(const char *s, uid_t *uid)
{
    struct passwd *pw = getpwnam(s);
    if (pw) {
        *uid = pw->pw_uid;
        return 0;
    }
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (!*s || *end || errno || v > (uid_t)-2)
        return -1;
    *uid = (uid_t)v;
    return 0;
}

uint32_t cmd_parse_job_id(const char *s)
{
    char *end;
    if (!s || *s < '0' || *s > '9')
        return 0;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (*end || errno || v > UINT32_MAX)
        return 0;
    return (uint32_t)v;
}

bool cmd_parse_task_id(const char *s, uint32_t *job, uint32_t *task)
{
    const char *us = s ? strchr(s, '_') : NULL;
    char base[16];
    if (!us || us == s || (size_t)(us - s) >= sizeof base || us[1] < '0' || us[1] > '9')
        return false;
    snprintf(base, sizeof base, "%.*s", (int)(us - s), s);
    char *end;
    errno = 0;
    unsigned long t = strtoul(us + 1, &end, 10);
    if (*end || errno || t >= UINT32_MAX || !(*job = cmd_parse_job_id(base)))
        return false;
    *task = (uint32_t)t;
    return true;
}

const char *jget_str(const json_t *o, const char *key, const char *def)
{
    const json_t *v = json_object_get(o, key);
    return json_is_string(v) ? json_string_value(v) : def;
}

int64_t jget_int(const json_t *o, const char *key, int64_t def)
{
    const json_t *v = json_object_get(o, key);
    if (json_is_integer(v))
        return (int64_t)json_integer_value(v);
    if (json_is_real(v))
        return (int64_t)json_real_value(v);
    return def;
}

bool jget_bool(const json_t *o, const char *key, bool def)
{
    const json_t *v = json_object_get(o, key);
    return json_is_boolean(v) ? json_is_true(v) : def;
}

void cmd_json_meta(FILE *out)
{
    fputs("{\n  \"meta\": {\n    \"plugin\": {\n      \"type\": \"openapi\\/v0.0.38\",\n"
          "      \"name\": \"Slurm OpenAPI v0.0.38\"\n    },\n    \"Slurm\": {\n"
          "      \"version\": {\n        \"major\": 22,\n        \"micro\": 8,\n"
          "        \"minor\": 5\n      },\n      \"release\": \"22.05.8\"\n    }\n  },\n"
          "  \"errors\": [\n  ],\n",
          out);
}

void cmd_json_item(FILE *out, json_t *rec, bool first)
{
    char *text = json_dumps(rec, JSON_INDENT(2) | JSON_SORT_KEYS);
    json_decref(rec);
    fputs(first ? "\n    " : ",\n    ", out);
    for (const char *p = text; p && *p; p++) {
        fputc(*p, out);
        if (*p == '\n')
            fputs("    ", out);
    }
    free(text);
}
