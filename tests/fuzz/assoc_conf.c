/*
 * Fuzzes herd-assoc.conf, the accounts, users and QOS the controller seeds
 * its accounting database from at its first start (acctdb_seed: Account=,
 * User=, QOS= lines and their keys). Private temporary directory.
 */
#include <jansson.h>

#include "ctld/acctdb.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *path = fuzz_write("herd-assoc.conf", data, size), err[512];
    json_t *db = acctdb_new();
    if (acctdb_seed(db, path, err, sizeof err) == 0) {
        (void)acctdb_assoc(db, "gold", NULL);
        (void)acctdb_admin_level(db, "alice");
    }
    json_decref(db);
    free(path);
    return 0;
}
