/*
 * gpu_bind: checking --gpu-bind. See gpu_bind.h.
 */
#include "client/gpu_bind.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* A map's GPU indices or a mask's hex masks, with "," and "*count". */
static bool list_ok(const char *s, bool hex, char *why, size_t whylen)
{
    for (const char *p = s; *p; p++) {
        unsigned char ch = (unsigned char)*p;
        if (isdigit(ch) || ch == ',' || ch == '*' || (hex && (isxdigit(ch) || ch == 'x')))
            continue;
        snprintf(why, whylen, "Failed to validate %s, offending character is %c", s, *p);
        return false;
    }
    return true;
}

bool gpu_bind_valid(const char *arg, char *why, size_t whylen)
{
    static const char *const plain[] = { "closest", "none", "single:", "per_task:" };
    if (whylen)
        why[0] = '\0';
    if (strncasecmp(arg, "verbose,", 8) == 0)
        arg += 8;
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        if (strncasecmp(arg, plain[i], strlen(plain[i])) == 0)
            return true;
    if (strncasecmp(arg, "map_gpu:", 8) == 0)
        return list_ok(arg + 8, false, why, whylen);
    if (strncasecmp(arg, "mask_gpu:", 9) == 0)
        return list_ok(arg + 9, true, why, whylen);
    return false;
}
