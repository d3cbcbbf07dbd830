#include "client/resv.h"

#include <stdio.h>

#include "client/client.h"
#include "client/cmdutil.h"
#include "client/paths.h"

const json_t *resv_fetch(const char *prog, const char *what, int all, json_t **owner)
{
    char err[256];
    *owner = NULL;
    int status = client_call(prog, "GET", all ? PATH_RESERVATIONS "?all=1" : PATH_RESERVATIONS,
                             NULL, owner, err, sizeof err);
    const json_t *list = json_object_get(*owner, "reservations");
    if (status == 200 && json_is_array(list))
        return list;
    fprintf(stderr, "%s: %s\n", what,
            status < 0 ? err : status == 200 ? "Unexpected message received"
                                             : client_error_text(*owner, status));
    json_decref(*owner);
    *owner = NULL;
    return NULL;
}

int64_t resv_end(const json_t *r)
{
    int64_t end = jget_int(r, "end_time", -1);
    return end < 0 ? jget_int(r, "start_time", 0) + RESV_INFINITE_SECS : end;
}

void resv_duration(int64_t secs, char *buf, size_t n)
{
    if (secs < 0) {
        snprintf(buf, n, "INVALID");
        return;
    }
    long long d = secs / 86400, h = secs / 3600 % 24, m = secs / 60 % 60, s = secs % 60;
    if (d)
        snprintf(buf, n, "%lld-%02lld:%02lld:%02lld", d, h, m, s);
    else
        snprintf(buf, n, "%02lld:%02lld:%02lld", h, m, s);
}
