/*
 * Fuzzes what reads and writes JSON text beside jansson: json_keep (the
 * controller's cut of a record to &keys=) and json_fast (the reader of
 * request bodies and record lines, and the compact writer), each against
 * jansson. Whatever json_keep writes must parse and hold each kept member
 * as the whole text did; json_fast must answer exactly as json_loadb and
 * write exactly what json_dumps writes. The input's first line
 * names the paths to keep ("state,spec.account"), the rest is the text.
 */
#include <jansson.h>
#include <stdbool.h>

#include "common/json_fast.h"
#include "common/json_keep.h"
#include "fuzz.h"

static struct json_keep_buf kb;

/* Every member kept is the whole text's, and nothing else is there. */
static void check_kept(const json_t *whole, const json_t *kept, const char *const *paths,
                       size_t n)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)kept, key, v) {
        const json_t *w = json_object_get(whole, key);
        bool named = false, inside = false;
        for (size_t i = 0; i < n; i++) {
            size_t kl = strlen(key);
            named = named || !strcmp(paths[i], key);
            inside = inside || (!strncmp(paths[i], key, kl) && paths[i][kl] == '.');
        }
        if (!w || !(named || inside) || (named && !json_equal(w, v)) ||
            (!named && !json_is_object(v)))
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_str(data, size), *nl = strchr(s, '\n');
    const char *paths[JSON_KEEP_MAX_PATHS];
    size_t n = 0;
    const char *text = nl ? nl + 1 : s;
    if (nl) {
        *nl = '\0';
        for (char *save = NULL, *t = strtok_r(s, ",", &save); t && n < JSON_KEEP_MAX_PATHS;
             t = strtok_r(NULL, ",", &save))
            paths[n++] = t;
    }
    size_t len = strlen(text);
    json_t *whole = json_loadb(text, len, 0, NULL), *fast = json_fast_loadb(text, len, NULL);
    if ((whole == NULL) != (fast == NULL) || (whole && !json_equal(whole, fast)))
        abort();
    char *dumped = whole ? json_dumps(whole, JSON_COMPACT) : NULL;
    char *fast_dumped = whole ? json_fast_dumps(whole) : NULL;
    if ((dumped == NULL) != (fast_dumped == NULL) || (dumped && strcmp(dumped, fast_dumped)))
        abort();
    free(dumped);
    free(fast_dumped);
    /* json_keep takes some text jansson refuses (bytes that are not
     * UTF-8, integers too big), passing it on as the store holds it */
    kb.len = 0;
    if (whole && json_keep(text, len, paths, n, &kb) == 0) {
        json_t *kept = json_loadb(kb.p, kb.len, 0, NULL);
        if (!kept || !json_is_object(whole))
            abort();
        check_kept(whole, kept, paths, n);
        json_decref(kept);
    }
    json_decref(whole);
    json_decref(fast);
    free(s);
    return 0;
}
