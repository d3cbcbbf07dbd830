/*
 * Fuzzes the HTTP guard's reading of a request's header block (http_guard.c
 * head_parse: line ends, Content-Length, Transfer-Encoding, the MUNGE
 * Authorization header, HEAD/TRACE), which sees every byte a TCP peer sends
 * to the controller or a node agent before evhttp does, and the guard's
 * SlurmctldParameters keys (conmgr_max_connections=...). The guard's static
 * functions are reached by including its source.
 */
#include "common/http_guard.c"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *d = (const char *)data;
    struct head h = { 0 };
    if (head_parse(d, size, &h)) {
        if (h.len == 0 || h.len > size)
            abort();
        if (h.auth_ok && (h.cred < d || h.cred + h.cred_len > d + size))
            abort();
    }
    char *s = fuzz_str(data, size), err[256];
    struct http_guards *gs = guards_create(1 << 20, NULL, 1000);
    (void)guards_set_params(gs, s, err, sizeof err);
    guards_destroy(gs);
    free(s);
    return 0;
}
