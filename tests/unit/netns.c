/* Unit tests of the netns module's parts that need no privilege: the hash
 * in link names, the mark, the hosts file, the choice of a subnet. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/conf.h"
#include "common/xmalloc.h"
#include "up/netns.h"
#include "up/netns_int.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "re");
    assert_non_null(f);
    char *buf = xcalloc(1, 4096);
    size_t n = fread(buf, 1, 4095, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void test_hash_is_fnv1a(void **state)
{
    (void)state;
    assert_int_equal(netns_dir_hash(""), 0x811c9dc5u);
    assert_int_equal(netns_dir_hash("a"), 0xe40c292cu);
    assert_true(netns_dir_hash("/tmp/c1") != netns_dir_hash("/tmp/c2"));
}

static void write_conf(const char *path)
{
    FILE *f = fopen(path, "we");
    assert_non_null(f);
    fputs("ClusterName=herd\nSlurmctldHost=vm(10.213.9.254)\n"
          "NodeName=node1 NodeAddr=10.213.9.1 Port=7001 CPUs=1\n"
          "NodeName=node2 NodeAddr=10.213.9.2 Port=7002 CPUs=1\n"
          "PartitionName=debug Nodes=ALL Default=YES\n", f);
    fclose(f);
}

static void test_mark_and_hosts_file(void **state)
{
    (void)state;
    char dir[] = "/tmp/herd-unit-netns-XXXXXX";
    assert_non_null(mkdtemp(dir));
    assert_false(netns_enabled(dir));
    assert_int_equal(netns_mark(dir), 0);
    assert_true(netns_enabled(dir));
    char *conf_path = xasprintf("%s/slurm.conf", dir), err[256];
    write_conf(conf_path);
    struct conf *c = conf_load(conf_path, err, sizeof err);
    assert_non_null(c);
    assert_int_equal(netns_hosts_write(dir, c), 0);
    char *hosts = netns_hosts_path(dir), *text = slurp(hosts);
    assert_non_null(strstr(text, "127.0.0.1\tlocalhost\n"));
    assert_non_null(strstr(text, "10.213.9.254\tvm\n10.213.9.1\tnode1\n10.213.9.2\tnode2\n"));
    struct stat a, b;
    assert_int_equal(stat(hosts, &a), 0);
    assert_int_equal(netns_hosts_write(dir, c), 0);
    assert_int_equal(stat(hosts, &b), 0);
    assert_int_equal(a.st_ino, b.st_ino);      /* agents have it mounted: kept in place */
    unlink(hosts);
    unlink(conf_path);
    char *nd = xasprintf("%s/netns", dir);
    rmdir(nd);
    rmdir(dir);
    free(nd); free(text); free(hosts); free(conf_path);
    conf_destroy(c);
}

static void test_subnet_is_private(void **state)
{
    (void)state;
    char base[32];
    assert_int_equal(netns_pick_subnet("/tmp/some-cluster", base, sizeof base), 0);
    assert_int_equal(strncmp(base, "10.213.", 7), 0);
    int third = atoi(base + 7);
    assert_true(third >= 0 && third <= 255);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hash_is_fnv1a),
        cmocka_unit_test(test_mark_and_hosts_file),
        cmocka_unit_test(test_subnet_is_private),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
