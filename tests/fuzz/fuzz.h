/*
 * What the harnesses share: libFuzzer's entry point, the input as a C
 * string, and a private temporary directory for the parsers that read
 * files (removed at exit; a harness writes nowhere else).
 */
#ifndef HERD_TESTS_FUZZ_H
#define HERD_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input up to its first NUL, NUL-terminated; caller frees. */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
    return xstrndup((const char *)data, size);
}

static char fuzz_dir_[64];

static inline void fuzz_dir_remove_(void)
{
    char cmd[128];
    if (!fuzz_dir_[0])
        return;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fuzz_dir_);
    (void)!system(cmd);
}

/* DIR/name, in a directory made on first use; caller frees. */
static inline char *fuzz_path(const char *name)
{
    if (!fuzz_dir_[0]) {
        const char *t = getenv("TMPDIR");
        snprintf(fuzz_dir_, sizeof fuzz_dir_, "%s/herd-fuzz.XXXXXX", t && *t ? t : "/tmp");
        if (!mkdtemp(fuzz_dir_))
            abort();
        atexit(fuzz_dir_remove_);
    }
    return xasprintf("%s/%s", fuzz_dir_, name);
}

/* Writes n bytes to DIR/name; the path, caller frees. */
static inline char *fuzz_write(const char *name, const void *data, size_t n)
{
    char *path = fuzz_path(name);
    FILE *f = fopen(path, "w");
    if (!f || (n && fwrite(data, 1, n, f) != n) || fclose(f) != 0)
        abort();
    return path;
}

#endif
