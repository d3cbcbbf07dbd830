/*
 * Fuzzes the controller's sacctmgr handler (POST to the accounting
 * database: {"op", "entity", "names", "where", "set", "dry_run"}) as
 * acctdb_edit applies it to a database seeded with two accounts, two users
 * and two QOS. The input is one request, or an array of them applied in
 * turn.
 */
#include <jansson.h>

#include "ctld/acctdb.h"
#include "fuzz.h"

static const char assoc_conf[] =
    "Account=gold FairShare=90\nAccount=lead FairShare=10 Parent=gold\n"
    "User=alice Account=gold FairShare=1\nUser=bob Account=lead FairShare=1\n"
    "QOS=high Priority=100\nQOS=normal Priority=0\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static json_t *base;
    char err[512];
    if (!base) {
        char *path = fuzz_write("herd-assoc.conf", assoc_conf, sizeof assoc_conf - 1);
        base = acctdb_new();
        if (acctdb_seed(base, path, err, sizeof err) < 0)
            abort();
        free(path);
    }
    json_t *req = json_loadb((const char *)data, size, 0, NULL);
    if (!req)
        return 0;
    json_t *db = json_deep_copy(base), *one;
    size_t i;
    int status;
    if (json_is_array(req)) {
        json_array_foreach(req, i, one)
            json_decref(acctdb_edit(db, one, &status, err, sizeof err));
    } else {
        json_decref(acctdb_edit(db, req, &status, err, sizeof err));
    }
    (void)acctdb_admin_level(db, "alice");
    (void)acctdb_coordinates(db, "alice", "lead");
    json_decref(db);
    json_decref(req);
    return 0;
}
