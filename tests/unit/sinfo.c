/* Unit tests of sinfo: grouping nodes into rows per partition and state,
 * and printing them as Slurm does, from JSON fixtures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cmd/sinfo/sinfo.h"

static const char *parts_fixture =
    "{\"partitions\": ["
    "{\"name\": \"debug\", \"default\": true, \"up\": true, \"max_time\": -1,"
    " \"node_names\": [\"node1\", \"node2\", \"node3\", \"node4\"]},"
    "{\"name\": \"gpu\", \"default\": false, \"up\": true, \"max_time\": 1440,"
    " \"nodes\": \"gpu[1-2]\"},"
    "{\"name\": \"empty\", \"up\": false, \"max_time\": 60, \"node_names\": []}"
    "]}";

static const char *nodes_fixture =
    "{\"nodes\": ["
    "{\"name\": \"node1\", \"state\": \"IDLE\", \"cpus\": 8, \"alloc_cpus\": 0,"
    " \"mem_mb\": 16000, \"gpus\": 0, \"reason\": \"\"},"
    "{\"name\": \"node2\", \"state\": \"MIXED\", \"cpus\": 8, \"alloc_cpus\": 2,"
    " \"mem_mb\": 16000, \"gpus\": 0, \"reason\": \"\"},"
    "{\"name\": \"node3\", \"state\": \"IDLE\", \"cpus\": 4, \"alloc_cpus\": 0,"
    " \"mem_mb\": 8000, \"gpus\": 0, \"reason\": \"\"},"
    "{\"name\": \"node4\", \"state\": \"DOWN+NOT_RESPONDING\", \"cpus\": 8,"
    " \"alloc_cpus\": 0, \"mem_mb\": 16000, \"gpus\": 0, \"reason\": \"Not responding\","
    " \"reason_uid\": 0, \"reason_time\": 2000000},"
    "{\"name\": \"gpu1\", \"state\": \"ALLOCATED\", \"cpus\": 32, \"alloc_cpus\": 32,"
    " \"mem_mb\": 256000, \"gpus\": 4, \"gpu_type\": \"a100\", \"reason\": \"\","
    " \"alloc_mem_mb\": 1024, \"alloc_gpus\": 3, \"alloc_gpu_ids\": [0, 1, 3]},"
    "{\"name\": \"gpu2\", \"state\": \"IDLE+DRAIN\", \"cpus\": 32, \"alloc_cpus\": 0,"
    " \"mem_mb\": 256000, \"gpus\": 4, \"gpu_type\": \"\", \"reason\": \"maint\","
    " \"reason_uid\": 0, \"reason_time\": 1000000}"
    "]}";

static char *render(struct sinfo_opts *o)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    json_t *parts = json_loads(parts_fixture, 0, NULL);
    json_t *nodes = json_loads(nodes_fixture, 0, NULL);
    assert_non_null(parts);
    assert_non_null(nodes);
    int rc = sinfo_print(f, parts, nodes, o, "sinfo");
    fclose(f);
    if (rc < 0) {
        free(buf);
        buf = NULL;
    }
    json_decref(parts);
    json_decref(nodes);
    return buf;
}

static void check(struct sinfo_opts *o, const char *want)
{
    char *got = render(o);
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

static void test_sinfo_default(void **state)
{
    (void)state;
    struct sinfo_opts o = {0};
    check(&o,
        "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
        "debug*       up   infinite      1  down* node4\n"
        "debug*       up   infinite      1    mix node2\n"
        "debug*       up   infinite      2   idle node[1,3]\n"
        "gpu          up 1-00:00:00      1  drain gpu2\n"
        "gpu          up 1-00:00:00      1  alloc gpu1\n"
        "empty      down    1:00:00      0    n/a \n");
}

static void test_sinfo_partition_filter_noheader(void **state)
{
    (void)state;
    struct sinfo_opts o = {.noheader = true};
    strlist_split(&o.parts, "gpu");
    check(&o,
        "gpu          up 1-00:00:00      1  drain gpu2\n"
        "gpu          up 1-00:00:00      1  alloc gpu1\n");
    strlist_clear(&o.parts);
}

static void test_sinfo_long(void **state)
{
    (void)state;
    struct sinfo_opts o = {.long_list = true, .now = 1000000};
    strlist_split(&o.parts, "debug");
    setenv("TZ", "UTC", 1);
    check(&o,
        "Mon Jan 12 13:46:40 1970\n"
        "PARTITION AVAIL  TIMELIMIT   JOB_SIZE ROOT OVERSUBS     GROUPS  NODES       STATE"
        " NODELIST\n"
        "debug*       up   infinite 1-infinite   no       NO        all      1       down*"
        " node4\n"
        "debug*       up   infinite 1-infinite   no       NO        all      1       mixed"
        " node2\n"
        "debug*       up   infinite 1-infinite   no       NO        all      2        idle"
        " node[1,3]\n");
    strlist_clear(&o.parts);
}

static void test_sinfo_nodes(void **state)
{
    (void)state;
    struct sinfo_opts o = {.node_mode = true};
    check(&o,
        "NODELIST   NODES PARTITION STATE \n"
        "gpu1           1       gpu alloc \n"
        "gpu2           1       gpu drain \n"
        "node1          1    debug* idle  \n"
        "node2          1    debug* mix   \n"
        "node3          1    debug* idle  \n"
        "node4          1    debug* down* \n");
}

/* With CPUs, memory or GRES in the format, nodes that differ in them are
 * separate rows, as Slurm's match flags do. */
static void test_sinfo_grouping_by_fields(void **state)
{
    (void)state;
    struct sinfo_opts o = {.format = "%P|%t|%c|%m|%G|%C|%z|%E|%D|%N"};
    check(&o,
        "PARTITION|STATE|CPUS|MEMORY|GRES|CPUS(A/I/O/T)|S:C:T|REASON|NODES|NODELIST\n"
        "debug*|down*|8|16000|(null)|0/0/8/8|8:1:1|Not responding|1|node4\n"
        "debug*|mix|8|16000|(null)|2/6/0/8|8:1:1|none|1|node2\n"
        "debug*|idle|8|16000|(null)|0/8/0/8|8:1:1|none|1|node1\n"
        "debug*|idle|4|8000|(null)|0/4/0/4|4:1:1|none|1|node3\n"
        "gpu|drain|32|256000|gpu:4|0/0/32/32|32:1:1|maint|1|gpu2\n"
        "gpu|alloc|32|256000|gpu:a100:4|32/0/0/32|32:1:1|none|1|gpu1\n"
        "empty|n/a|0|0|(null)|0/0/0/0|0:1:1|none|0|\n");
    struct sinfo_opts p = {.format = "%R %.3D %C %c"};
    strlist_split(&p.parts, "debug");
    check(&p,
        "PARTITION NOD CPUS(A/I/O/T) CPUS\n"
        "debug   3 2/14/8/24 8\n"
        "debug   1 0/4/0/4 4\n");
    strlist_clear(&p.parts);
    p.format = "%R %.3D %c %m";
    strlist_split(&p.parts, "gpu");
    check(&p,
        "PARTITION NOD CPUS MEMORY\n"
        "gpu   2 32 256000\n");
    strlist_clear(&p.parts);
}

/* -R: the down, failed and drained nodes with who set the reason and
 * when; no partition field, so one row per reason across partitions. */
static void test_sinfo_list_reasons(void **state)
{
    (void)state;
    struct sinfo_opts o = {.list_reasons = true};
    assert_int_equal(sinfo_parse_states(&o, SINFO_REASON_STATES, "sinfo"), 0);
    check(&o,
        "REASON               USER      TIMESTAMP           NODELIST\n"
        "Not responding       root      1970-01-24T03:33:20 node4\n"
        "maint                root      1970-01-12T13:46:40 gpu2\n");
    o.long_list = true;
    o.noheader = true;
    check(&o,
        "Not responding       root(0)      1970-01-24T03:33:20 down*  node4\n"
        "maint                root(0)      1970-01-12T13:46:40 drain  gpu2\n");
    free(o.states);
}

static void test_sinfo_summarize(void **state)
{
    (void)state;
    struct sinfo_opts o = {.summarize = true};
    check(&o,
        "PARTITION AVAIL  TIMELIMIT   NODES(A/I/O/T)  NODELIST\n"
        "debug*       up   infinite          1/2/1/4  node[1-4]\n"
        "gpu          up 1-00:00:00          1/0/1/2  gpu[1-2]\n"
        "empty      down    1:00:00          0/0/0/0  \n");
}

/* -O: 20 columns unless a width is given; ":" with no width prints the
 * value as it is, followed by the text after the colon. */
static void test_sinfo_long_format(void **state)
{
    (void)state;
    struct sinfo_opts o = {.node_mode = true,
                           .long_format = "NodeList: ,AllocMem: ,StateLong: ,GresUsed:"};
    strlist_split(&o.parts, "gpu");
    check(&o,
        "NODELIST ALLOCMEM STATE GRES_USED\n"
        "gpu1 1024 allocated gpu:a100:3(IDX:0-1,3)\n"
        "gpu2 0 drained gpu:0(IDX:N/A)\n");
    o.node_mode = false;
    o.long_format = "partitionname,nodes:.4 ,CPUsState:12|";
    check(&o,
        "PARTITION           NODE CPUS(A/I/O/T|\n"
        "gpu                    2 32/0/32/64  |\n");
    o.long_format = "NodeList,Bogus";
    assert_null(render(&o));
    strlist_clear(&o.parts);
}

static void test_sinfo_state_filter(void **state)
{
    (void)state;
    struct sinfo_opts o = {.noheader = true};
    /* the base state: a drained idle node is idle too */
    assert_int_equal(sinfo_parse_states(&o, "i", "sinfo"), 0);
    check(&o,
        "debug*       up   infinite      2   idle node[1,3]\n"
        "gpu          up 1-00:00:00      1  drain gpu2\n"
        "empty      down    1:00:00      0    n/a \n");
    assert_int_equal(sinfo_parse_states(&o, "drained", "sinfo"), 0);
    check(&o,
        "debug*       up   infinite      0    n/a \n"
        "gpu          up 1-00:00:00      1  drain gpu2\n"
        "empty      down    1:00:00      0    n/a \n");
    assert_int_equal(sinfo_parse_states(&o, "alloc,drng", "sinfo"), 0);
    o.node_mode = true;
    check(&o,
        "gpu1           1       gpu alloc \n"
        "node2          1    debug* mix   \n");
    assert_int_equal(sinfo_parse_states(&o, "nosuch", "sinfo"), -1);
    free(o.states);
}

/* A MAINT reservation holds node1 and node2, another holds node3. */
static const char *resv_nodes_fixture =
    "{\"nodes\": ["
    "{\"name\": \"node1\", \"state\": \"IDLE\", \"cpus\": 8, \"alloc_cpus\": 0,"
    " \"reservation\": \"m\", \"maint\": true},"
    "{\"name\": \"node2\", \"state\": \"MIXED\", \"cpus\": 8, \"alloc_cpus\": 2,"
    " \"reservation\": \"m\", \"maint\": true},"
    "{\"name\": \"node3\", \"state\": \"IDLE\", \"cpus\": 8, \"alloc_cpus\": 0,"
    " \"reservation\": \"lab\"},"
    "{\"name\": \"node4\", \"state\": \"IDLE\", \"cpus\": 8, \"alloc_cpus\": 0}"
    "]}";

static char *render_resv_nodes(struct sinfo_opts *o)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    json_t *parts = json_loads(parts_fixture, 0, NULL);
    json_t *nodes = json_loads(resv_nodes_fixture, 0, NULL);
    assert_int_equal(sinfo_print(f, parts, nodes, o, "sinfo"), 0);
    fclose(f);
    json_decref(parts);
    json_decref(nodes);
    return buf;
}

static void test_sinfo_resv_states(void **state)
{
    (void)state;
    struct sinfo_opts o = {.noheader = true};
    strlist_split(&o.parts, "debug");
    char *got = render_resv_nodes(&o);
    assert_string_equal(got,
        "debug*       up   infinite      1   mix$ node2\n"
        "debug*       up   infinite      1  maint node1\n"
        "debug*       up   infinite      1   resv node3\n"
        "debug*       up   infinite      1   idle node4\n");
    free(got);
    assert_int_equal(sinfo_parse_states(&o, "maint", "sinfo"), 0);
    o.node_mode = true;
    o.format = "%N %T";
    got = render_resv_nodes(&o);
    assert_string_equal(got, "node1 maint\nnode2 mixed$\n");
    free(got);
    /* a MAINT reservation is a reservation too */
    assert_int_equal(sinfo_parse_states(&o, "resv", "sinfo"), 0);
    got = render_resv_nodes(&o);
    assert_string_equal(got, "node1 maint\nnode2 mixed$\nnode3 reserved\n");
    free(got);
    free(o.states);
    strlist_clear(&o.parts);
}

static char *render_resv(struct sinfo_opts *o, const char *text)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    json_t *r = json_loads(text, 0, NULL);
    assert_non_null(r);
    sinfo_print_resv(f, json_object_get(r, "reservations"), o);
    fclose(f);
    json_decref(r);
    return buf;
}

static void test_sinfo_reservations(void **state)
{
    (void)state;
    struct sinfo_opts o = {0};
    char *got = render_resv(&o,
        "{\"reservations\": [{\"name\": \"root_1\", \"state\": \"INACTIVE\","
        " \"start_time\": 1796463280, \"end_time\": 1796466880, \"nodes\": \"vm\"},"
        " {\"name\": \"m\", \"state\": \"ACTIVE\", \"start_time\": 1796463280,"
        " \"end_time\": -1, \"nodes\": \"node[1-2]\"}]}");
    /* Slurm's: an infinite one ends a year after it starts */
    assert_string_equal(got,
        "RESV_NAME     STATE           START_TIME             END_TIME     DURATION  NODELIST\n"
        "root_1     INACTIVE  2026-12-05T09:34:40  2026-12-05T10:34:40     01:00:00  vm\n"
        "m            ACTIVE  2026-12-05T09:34:40  2027-12-05T09:34:40  365-00:00:00  "
        "node[1-2]\n");
    free(got);
    got = render_resv(&o,
        "{\"reservations\": [{\"name\": \"rv_long_name_for_width\", \"state\": "
        "\"INACTIVE\", \"start_time\": 1796463280, \"end_time\": 1796738080,"
        " \"nodes\": \"vm\"}]}");
    assert_string_equal(got,
        "RESV_NAME                  STATE           START_TIME             END_TIME     "
        "DURATION  NODELIST\n"
        "rv_long_name_for_width  INACTIVE  2026-12-05T09:34:40  2026-12-08T13:54:40   "
        "3-04:20:00  vm\n");
    free(got);
    got = render_resv(&o, "{\"reservations\": []}");
    assert_string_equal(got, "No reservations in the system\n");
    free(got);
}

int main(void)
{
    setenv("TZ", "UTC", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sinfo_default),
        cmocka_unit_test(test_sinfo_partition_filter_noheader),
        cmocka_unit_test(test_sinfo_long),
        cmocka_unit_test(test_sinfo_nodes),
        cmocka_unit_test(test_sinfo_grouping_by_fields),
        cmocka_unit_test(test_sinfo_list_reasons),
        cmocka_unit_test(test_sinfo_summarize),
        cmocka_unit_test(test_sinfo_long_format),
        cmocka_unit_test(test_sinfo_state_filter),
        cmocka_unit_test(test_sinfo_resv_states),
        cmocka_unit_test(test_sinfo_reservations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
