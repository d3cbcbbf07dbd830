/*
 * acct_keys: the words sacctmgr's add and modify take (Description=,
 * Fairshare=, MaxTRESPerUser=, ...), which entities take each and what kind
 * of value it holds, with the value's stored form and Slurm's printed form.
 * The command and the controller read this one table: the command to refuse
 * a word it does not know, the controller to check and store a value.
 */
#ifndef HERD_ACCT_KEYS_H
#define HERD_ACCT_KEYS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

enum acct_kind {
    AK_TEXT,      /* Description, Organization */
    AK_NAME,      /* Parent, DefaultAccount, DefaultQOS: an existing name */
    AK_NAMES,     /* Account=a,b (add user): existing accounts */
    AK_COUNT,     /* MaxJobs, Priority, Fairshare: an integer, -1 clears */
    AK_TRES,      /* GrpTRES=cpu=4,gres/gpu=2: per TRES, -1 clears one */
    AK_WALL,      /* MaxWall: minutes or [d-]hh:mm:ss, -1 clears */
    AK_FACTOR,    /* UsageFactor: a number */
    AK_QOSLIST,   /* QOS=a,b; QOS+=c; QOS-=d */
    AK_FLAGS,     /* QOS Flags=DenyOnLimit,... */
    AK_ADMIN,     /* AdminLevel=None|Operator|Administrator */
    AK_GRACE,     /* GraceTime: whole seconds, -1 clears */
    AK_DURATION,  /* PreemptExemptTime: Slurm's time format, kept in seconds; -1 clears */
    AK_PMODE,     /* PreemptMode=requeue, "suspend,gang"; off clears (the cluster's) */
};

enum { AK_ACCOUNT = 1, AK_USER = 2, AK_QOS = 4 };

struct acct_key {
    const char *name;      /* as stored and as sacctmgr's add prints it */
    const char *aliases;   /* other spellings, ',' separated */
    enum acct_kind kind;
    unsigned applies;      /* AK_ACCOUNT | AK_USER | AK_QOS */
    unsigned assoc;        /* nonzero: a key of the association, not of the entity */
};

/* Is w (len bytes) one of the comma-separated words (case-insensitive)? */
bool acct_word_in(const char *list, const char *w, size_t len);
/* Is s one of a JSON array of names; "wants": or is the array empty (no
 * filter)? */
bool acct_list_has(const json_t *list, const char *s);
bool acct_list_wants(const json_t *list, const char *s);

/* The key a word names for an entity (case-insensitive); NULL if none. */
const struct acct_key *acct_key_find(const char *word, size_t len, unsigned entity);

/* The stored form of text: a string, integer, real, array or, for TRES, an
 * object {"cpu": 4, "gres/gpu": null} (null: the TRES is cleared). "-1"
 * clears a count, wall or factor: JSON null. NULL with err when malformed. */
json_t *acct_value_parse(const struct acct_key *k, const char *text, char *err, size_t errlen);

/* A stored value as Slurm prints it (sacctmgr show, add's Settings);
 * "" for an absent one. The caller frees. */
char *acct_value_format(const struct acct_key *k, const json_t *v);

/* Minutes as sacctmgr prints a wall limit: "01:00:00", "2-00:00:00". */
void acct_wall_format(long long minutes, char *buf, size_t n);

/* TRES object into "cpu=4,mem=10G,gres/gpu=2", Slurm's order; "" if empty. */
char *acct_tres_format(const json_t *tres);

#endif
