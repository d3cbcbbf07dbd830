/*
 * A controller for the harnesses of its JSON handlers (ctld_submit,
 * ctld_resv, ctld_update): slurm.conf with five nodes (g[1-2] four h100
 * each, g3 two a100, cpu[1-2] none) in two partitions, an accounting
 * database of two accounts and two users, a state database (SQLite) in the
 * private directory, and two reservations ("maint" on g3, "future" on
 * cpu1). No event loop runs: what the store queues for its commit stays
 * queued. Built once; a harness leaves it as it found it after each input.
 */
#ifndef HERD_TESTS_FUZZ_CTLD_FIXTURE_H
#define HERD_TESTS_FUZZ_CTLD_FIXTURE_H

#include <event2/event.h>
#include <jansson.h>

#include "common/conf.h"
#include "ctld/ctld.h"
#include "ctld/prio.h"
#include "ctld/resv.h"
#include "ctld/store.h"
#include "fuzz.h"

static const char fixture_slurm_conf_[] =
    "ClusterName=fuzz\nGresTypes=gpu\nMaxArraySize=1001\n"
    "NodeName=g[1-2] CPUs=64 RealMemory=500000 Gres=gpu:h100:4 Feature=h100,ib\n"
    "NodeName=g3 CPUs=32 RealMemory=250000 Gres=gpu:a100:2 Feature=a100\n"
    "NodeName=cpu[1-2] CPUs=16 RealMemory=64000\n"
    "PartitionName=gpu Nodes=g[1-3] Default=YES MaxTime=1-00:00:00\n"
    "PartitionName=cpu Nodes=cpu[1-2] MaxTime=60\n";

static const char fixture_assoc_conf_[] =
    "Account=gold FairShare=90\nAccount=lead FairShare=10 Parent=gold\n"
    "User=root Account=gold FairShare=1\n"
    "User=alice Account=gold FairShare=1\nUser=bob Account=lead FairShare=1\n"
    "QOS=high Priority=100\nQOS=normal Priority=0\n";

/* A reservation as scontrol creates it; aborts if the fixture is wrong. */
static void fixture_resv_(struct ctld *c, const char *body_text, int64_t now)
{
    char err[256];
    int code = 0;
    json_t *body = json_loads(body_text, 0, NULL);
    struct resv *v = xcalloc(1, sizeof *v);
    v->name = xstrdup(json_string_value(json_object_get(body, "ReservationName")));
    if (!body || resv_parse(c, v, body, true, now, &code, err, sizeof err) < 0 ||
        resv_place(c, v, NULL, now, &code, err, sizeof err) < 0) {
        fprintf(stderr, "fixture reservation: %s\n", err);
        abort();
    }
    resv_add(c, v, "root");
    json_decref(body);
}

static struct ctld *fixture_ctld(void)
{
    static struct ctld c;
    if (c.conf)
        return &c;
    char err[512];
    char *conf_path = fuzz_write("slurm.conf", fixture_slurm_conf_,
                                 sizeof fixture_slurm_conf_ - 1);
    free(fuzz_write("herd-assoc.conf", fixture_assoc_conf_, sizeof fixture_assoc_conf_ - 1));
    c.conf = conf_load(conf_path, err, sizeof err);
    free(conf_path);
    if (!c.conf) {
        fprintf(stderr, "fixture slurm.conf: %s\n", err);
        abort();
    }
    c.base = event_base_new();
    char *db = fuzz_path("herd.db");
    c.store = store_open(c.base, db, err, sizeof err);
    free(db);
    if (!c.store) {
        fprintf(stderr, "fixture store: %s\n", err);
        abort();
    }
    c.next_job_id = 100;
    nodes_init(&c);
    parts_init(&c);
    resv_load_all(&c);
    if (prio_init(&c, err, sizeof err) < 0) {
        fprintf(stderr, "fixture accounting: %s\n", err);
        abort();
    }
    int64_t now = ctld_now();
    char body[512];
    snprintf(body, sizeof body,
             "{\"ReservationName\": \"maint\", \"StartTime\": \"now\", \"Duration\": \"120\","
             " \"Users\": \"root\", \"Nodes\": \"g3\", \"Flags\": \"MAINT,IGNORE_JOBS\"}");
    fixture_resv_(&c, body, now);
    snprintf(body, sizeof body,
             "{\"ReservationName\": \"future\", \"StartTime\": \"%lld\", \"EndTime\": \"%lld\","
             " \"Accounts\": \"lead\", \"NodeCnt\": \"1\", \"PartitionName\": \"cpu\"}",
             (long long)now + 86400, (long long)now + 2 * 86400);
    fixture_resv_(&c, body, now);
    return &c;
}

/* The request body as the controller reads it (http.c): none is {}, JSON
 * that is not an object is refused (NULL). */
static json_t *fixture_body(const uint8_t *data, size_t size)
{
    if (size == 0)
        return json_object();
    json_t *body = json_loadb((const char *)data, size, 0, NULL);
    if (body && !json_is_object(body)) {
        json_decref(body);
        return NULL;
    }
    return body;
}

#endif
