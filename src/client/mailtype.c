#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "client/mailtype.h"
#include "common/xmalloc.h"

static const char *const mail_types[] = {
    "NONE", "BEGIN", "END", "FAIL", "REQUEUE", "ALL", "INVALID_DEPEND", "STAGE_OUT",
    "TIME_LIMIT", "TIME_LIMIT_90", "TIME_LIMIT_80", "TIME_LIMIT_50", "ARRAY_TASKS", NULL,
};

static bool known(const char *word)
{
    for (const char *const *t = mail_types; *t; t++)
        if (strcasecmp(word, *t) == 0)
            return true;
    return false;
}

bool mailtype_valid(const char *list)
{
    char *copy = xstrdup(list), *save = NULL;
    bool any = false;
    for (char *w = strtok_r(copy, ",", &save); w && !any; w = strtok_r(NULL, ",", &save))
        any = known(w);
    free(copy);
    return any;
}
