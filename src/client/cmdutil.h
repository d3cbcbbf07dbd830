/*
 * cmdutil: small things every user command needs: Slurm-style error lines,
 * comma lists, user names and uids, and reading fields of the controller's
 * JSON answers with a default when a field is absent.
 */
#ifndef HERD_CMDUTIL_H
#define HERD_CMDUTIL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* "PROG: error: MESSAGE" on stderr, as Slurm's commands print errors. */
void cmd_error(const char *prog, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A comma list split into its non-empty items. */
struct strlist {
    char **items;
    size_t n;
};
void strlist_split(struct strlist *l, const char *csv);   /* appends */
/* The same for what the controller keeps encoded (names: common/rawstr.h),
 * so that the items compare with its values. */
void strlist_split_raw(struct strlist *l, const char *csv);
void strlist_clear(struct strlist *l);
bool strlist_has(const struct strlist *l, const char *s, bool nocase);

/* What a table or a record shows of a user's text (names, comments,
 * paths): its bytes as given (escapes of common/rawstr.h decoded), printed
 * raw as Slurm does, but each control character (C0 and DEL) as '?', so
 * that a newline or a tab cannot split or forge a row of parsable output.
 * cmd_cell_plain: whether s shows as it is. */
bool cmd_cell_plain(const char *s);
void cmd_cell_clean(char *s);           /* in place; the text never grows */
/* cmd_cell_clean on every string of v (a job as `scontrol show` prints
 * it); the strings then hold bytes jansson cannot write out again. */
void cmd_json_clean(json_t *v);

/* A user name or a numeric uid. 0, or -1 when neither. */
int cmd_parse_user(const char *s, uid_t *uid);

/* A positive decimal job id and nothing else; 0 when not one. */
uint32_t cmd_parse_job_id(const char *s);

/* One array task, "123_4": into *job the array's id, into *task the task's;
 * false when s is not that form (ranges and lists are not one task). */
bool cmd_parse_task_id(const char *s, uint32_t *job, uint32_t *task);

/* Fields of a JSON object, def when absent or of another type. */
const char *jget_str(const json_t *o, const char *key, const char *def);
int64_t jget_int(const json_t *o, const char *key, int64_t def);
bool jget_bool(const json_t *o, const char *key, bool def);

/* The opening of Slurm 22.05's --json documents (openapi v0.0.38), up to
 * and with "errors": the caller writes its array key next. */
void cmd_json_meta(FILE *out);

/* Writes the JSON text of rec indented to sit in an array at depth 2,
 * after a ",\n" unless first; rec is consumed. */
void cmd_json_item(FILE *out, json_t *rec, bool first);

#endif
