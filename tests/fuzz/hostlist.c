/*
 * Fuzzes hostlist expressions ("gpu[01-08,10]", "a,b[1-3]"): parsing,
 * pushing onto a list, sorting and the compressed form back.
 */
#include "common/hostlist.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_str(data, size);
    struct hostlist *hl = hostlist_create(s);
    if (hl) {
        char *r = hostlist_ranged_string(hl);
        if (hostlist_count(hl) < 65536) {   /* a million names: once is enough */
            hostlist_push(hl, r);
            hostlist_push(hl, s);
        }
        hostlist_uniq(hl);
        size_t n = hostlist_count(hl);
        if (n)
            hostlist_find(hl, hostlist_nth(hl, n - 1));
        /* the compressed form must give the same names back */
        struct hostlist *again = hostlist_create(r);
        if (!again)
            abort();
        hostlist_destroy(again);
        free(r);
        hostlist_destroy(hl);
    }
    free(s);
    return 0;
}
