#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/timefmt.h"
#include "common/xmalloc.h"

/* Each test writes its files into a fresh directory. */
struct fixture {
    char dir[64];
    char logpath[96];
    char err[512];
};

static struct fixture *fx;

static char *path_in(const char *name)
{
    return xasprintf("%s/%s", fx->dir, name);
}

static void write_file(const char *name, const char *text)
{
    char *p = path_in(name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    free(p);
}

static struct conf *load(const char *text)
{
    write_file("slurm.conf", text);
    char *p = path_in("slurm.conf");
    struct conf *c = conf_load(p, fx->err, sizeof fx->err);
    free(p);
    return c;
}

/* Expects text to fail with "DIR/FILE:LINE: msg" (file "slurm.conf" unless
 * msg names another). */
static void load_fails(const char *text, const char *file, int line, const char *msg)
{
    struct conf *c = load(text);
    if (c) {
        conf_destroy(c);
        fail_msg("loaded, expected error '%s'", msg);
    }
    char want[512];
    snprintf(want, sizeof want, "%s/%s:%d: %s", fx->dir, file, line, msg);
    assert_string_equal(fx->err, want);
}

static char *read_log(void)
{
    FILE *f = fopen(fx->logpath, "r");
    assert_non_null(f);
    char *buf = xcalloc(1, 8192);
    size_t n = fread(buf, 1, 8191, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static int setup(void **state)
{
    (void)state;
    fx = xcalloc(1, sizeof *fx);
    snprintf(fx->dir, sizeof fx->dir, "/tmp/herd-conf-XXXXXX");
    if (!mkdtemp(fx->dir))
        return -1;
    snprintf(fx->logpath, sizeof fx->logpath, "%s.log", fx->dir);
    log_init("conf-test", 0, fx->logpath);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char *cmd = xasprintf("rm -rf '%s' '%s'", fx->dir, fx->logpath);
    int rc = system(cmd);
    free(cmd);
    free(fx);
    fx = NULL;
    return rc == 0 ? 0 : -1;
}

static void test_defaults(void **state)
{
    (void)state;
    struct conf *c = load("# nothing\n\n");
    assert_non_null(c);
    assert_string_equal(c->cluster_name, "cluster");
    assert_string_equal(c->ctld_host, "localhost");
    assert_string_equal(c->ctld_addr, "localhost");
    assert_int_equal(c->ctld_port, 6817);
    assert_int_equal(c->slurmd_port, 6818);
    assert_string_equal(c->state_save, "/var/spool/herd/ctld");
    assert_string_equal(c->spool_dir, "/var/spool/herd/d");
    assert_null(c->log_file_ctld);
    assert_null(c->log_file_d);
    assert_null(c->pid_file_ctld);
    assert_null(c->pid_file_d);
    assert_null(c->gres_types);
    assert_null(c->munge_socket);
    assert_string_equal(c->sched_type, "sched/backfill");
    assert_string_equal(c->select_type, "select/cons_tres");
    assert_int_equal(c->kill_wait, 30);
    assert_int_equal(c->cred_expire, 120);         /* a requeue's BeginTime - 1 */
    assert_int_equal(c->slurmd_timeout, 300);
    assert_int_equal(c->min_job_age, 300);
    assert_int_equal(c->max_job_count, 10000);      /* Slurm's defaults */
    assert_int_equal(c->return_to_service, 0);
    assert_int_equal(c->def_mem_per_cpu, 0);
    assert_int_equal(c->nnodes, 0);
    assert_int_equal(c->nparts, 0);
    assert_null(conf_part_default(c));
    assert_null(conf_node_find(c, "x"));
    assert_null(conf_part_find(c, "x"));
    char *p = path_in("slurm.conf");
    assert_string_equal(c->path, p);
    free(p);
    conf_destroy(c);
    conf_destroy(NULL);
}

static const char full_conf[] =
    "ClusterName=gpus\n"
    "SlurmctldHost=head(10.0.0.1)\n"
    "SlurmctldHost=backup\n"
    "SlurmctldPort=7817\n"
    "SlurmdPort=7818\n"
    "StateSaveLocation=/srv/ctld\n"
    "SlurmdSpoolDir=/srv/d/%n\n"
    "SlurmctldLogFile=/var/log/ctld.log\n"
    "SlurmdLogFile=/var/log/d-%n.log\n"
    "SlurmctldPidFile=/run/ctld.pid\n"
    "SlurmdPidFile=/run/d-%n.pid\n"
    "GresTypes=gpu,mps\n"
    "AuthType=auth/munge\n"
    "AuthInfo=ttl=60,socket=/run/munge/m.sock,cred_expire=7\n"
    "SchedulerType=sched/builtin SelectType=select/linear\n"
    "KillWait=10 SlurmdTimeout=120 MinJobAge=60 DefMemPerCPU=2048\n"
    "SlurmUser=slurm ProctrackType=proctrack/cgroup TaskPlugin=task/affinity\n"
    "SelectTypeParameters=CR_Core_Memory ReturnToService=2 MpiDefault=none\n"
    "SwitchType=switch/none AccountingStorageType=accounting_storage/none\n"
    "JobAcctGatherType=jobacct_gather/none SlurmctldDebug=info SlurmdDebug=info\n"
    "PriorityType=priority/multifactor PriorityWeightAge=1000 PriorityWeightFairshare=10\n"
    "SchedulerParameters=bf_continue,bf_window=1440\n"
    "NodeName=DEFAULT CPUs=16 RealMemory=64000 Gres=gpu:a100:4 State=UNKNOWN\n"
    "NodeName=gpu[01-02] NodeAddr=10.0.1.[1-2] Weight=5 Features=a100,ib\n"
    "NodeName=cpu[1-3] Gres=mps:100 CPUs=64 Port=9000 State=idle Sockets=2 CoresPerSocket=16\n"
    "NodeName=big Gres=gpu:2,gpu:v100:6(S:0-1),mps:200 NodeAddr=bighost\n"
    "NodeName=tiny Gres=gpu\n"
    "PartitionName=DEFAULT MaxTime=2-00:00:00 State=UP\n"
    "PartitionName=gpu Nodes=gpu[01-02],big Default=YES DefaultTime=1:00:00\n"
    "PartitionName=cpu Nodes=cpu[1-3],cpu2 MaxTime=UNLIMITED State=DRAIN Priority=10\n"
    "PartitionName=all Nodes=ALL Default=no State=INACTIVE\n"
    "PartitionName=empty\n";

static void test_full(void **state)
{
    (void)state;
    struct conf *c = load(full_conf);
    if (!c)
        fail_msg("%s", fx->err);
    assert_string_equal(c->cluster_name, "gpus");
    assert_string_equal(c->ctld_host, "head");
    assert_string_equal(c->ctld_addr, "10.0.0.1");
    assert_int_equal(c->ctld_port, 7817);
    assert_int_equal(c->slurmd_port, 7818);
    assert_string_equal(c->state_save, "/srv/ctld");
    assert_string_equal(c->spool_dir, "/srv/d/%n");
    assert_string_equal(c->log_file_ctld, "/var/log/ctld.log");
    assert_string_equal(c->log_file_d, "/var/log/d-%n.log");
    assert_string_equal(c->pid_file_ctld, "/run/ctld.pid");
    assert_string_equal(c->pid_file_d, "/run/d-%n.pid");
    assert_string_equal(c->gres_types, "gpu,mps");
    assert_string_equal(c->munge_socket, "/run/munge/m.sock");
    assert_int_equal(c->cred_expire, 7);
    assert_string_equal(c->sched_type, "sched/builtin");
    assert_string_equal(c->select_type, "select/linear");
    assert_int_equal(c->kill_wait, 10);
    assert_int_equal(c->slurmd_timeout, 120);
    assert_int_equal(c->min_job_age, 60);
    assert_int_equal(c->return_to_service, 2);
    assert_int_equal(c->def_mem_per_cpu, 2048);

    assert_int_equal(c->nnodes, 7);
    const struct conf_node *n = &c->nodes[0];
    assert_string_equal(n->name, "gpu01");
    assert_string_equal(n->addr, "10.0.1.1");
    assert_int_equal(n->port, 7818);
    assert_int_equal(n->cpus, 16);
    assert_int_equal(n->mem_mb, 64000);
    assert_int_equal(n->gpus, 4);
    assert_string_equal(n->gpu_type, "a100");
    assert_null(n->gpu_files);
    assert_string_equal(n->state, "UNKNOWN");
    assert_int_equal(n->weight, 5);
    assert_string_equal(n->features, "a100,ib");
    assert_string_equal(c->nodes[1].addr, "10.0.1.2");

    n = conf_node_find(c, "cpu2");
    assert_ptr_equal(n, &c->nodes[3]);
    assert_string_equal(n->addr, "cpu2");
    assert_int_equal(n->port, 9000);
    assert_int_equal(n->cpus, 64);
    assert_int_equal(n->mem_mb, 64000);
    assert_int_equal(n->gpus, 0);
    assert_null(n->gpu_type);
    assert_string_equal(n->state, "IDLE");
    assert_int_equal(n->weight, 1);
    assert_null(n->features);

    n = conf_node_find(c, "big");
    assert_string_equal(n->addr, "bighost");
    assert_int_equal(n->gpus, 8);
    assert_string_equal(n->gpu_type, "v100");
    n = conf_node_find(c, "tiny");
    assert_int_equal(n->gpus, 1);
    assert_null(n->gpu_type);

    assert_int_equal(c->nparts, 4);
    const struct conf_part *p = conf_part_find(c, "gpu");
    assert_ptr_equal(conf_part_default(c), p);
    assert_true(p->is_default);
    assert_true(p->up);
    assert_int_equal(p->max_time_min, 2880);
    assert_int_equal(p->default_time_min, 60);
    assert_int_equal(p->nnodes, 3);
    assert_string_equal(p->nodes[0], "gpu01");
    assert_string_equal(p->nodes[2], "big");

    p = conf_part_find(c, "cpu");
    assert_false(p->is_default);
    assert_false(p->up);
    assert_int_equal(p->max_time_min, TIME_INFINITE);
    assert_int_equal(p->default_time_min, -1);
    assert_int_equal(p->nnodes, 3);       /* cpu2 listed twice */

    p = conf_part_find(c, "all");
    assert_false(p->up);
    assert_false(p->is_default);
    assert_int_equal(p->nnodes, 7);
    assert_string_equal(p->nodes[6], "tiny");

    p = conf_part_find(c, "empty");
    assert_int_equal(p->nnodes, 0);
    assert_int_equal(p->max_time_min, 2880);
    assert_true(p->up);

    char *log = read_log();
    assert_null(strstr(log, "warning"));
    free(log);
    conf_destroy(c);
}

static void test_syntax(void **state)
{
    (void)state;
    struct conf *c = load(
        "  clustername=lower   # trailing comment\n"
        "#ClusterName=commented\n"
        "SLURMCTLDLOGFILE=\"/var/log/with space#hash.log\"\n"
        "StateSaveLocation =/spaced\n"
        "NodeName=n[1-2] \\\n"
        "   CPUs=8 \\\n"
        "   RealMemory=1000\n"
        "nodename=n3 cpus=2 # a \\ comment does not continue\n"
        "PartitionName=p Nodes=n[1-\\\n"
        "3]\r\n"
        "SchedulerType=a\tSelectType=\"\"\n");
    if (!c)
        fail_msg("%s", fx->err);
    assert_string_equal(c->cluster_name, "lower");
    assert_string_equal(c->log_file_ctld, "/var/log/with space#hash.log");
    assert_string_equal(c->state_save, "/spaced");
    assert_int_equal(c->nnodes, 3);
    assert_int_equal(c->nodes[1].cpus, 8);
    assert_int_equal(c->nodes[1].mem_mb, 1000);
    assert_int_equal(c->nodes[2].cpus, 2);
    assert_int_equal(c->nodes[2].mem_mb, 1);
    assert_int_equal(c->parts[0].nnodes, 3);
    assert_string_equal(c->sched_type, "a");
    assert_string_equal(c->select_type, "");
    conf_destroy(c);
}

static void test_legacy_ctld(void **state)
{
    (void)state;
    struct conf *c = load("ControlMachine=old\nControlAddr=192.168.0.9\n");
    assert_non_null(c);
    assert_string_equal(c->ctld_host, "old");
    assert_string_equal(c->ctld_addr, "192.168.0.9");
    conf_destroy(c);
    c = load("SlurmctldHost=only\n");
    assert_string_equal(c->ctld_host, "only");
    assert_string_equal(c->ctld_addr, "only");
    conf_destroy(c);
}

static void test_include(void **state)
{
    (void)state;
    char *sub = path_in("sub");
    assert_int_equal(mkdir(sub, 0755), 0);
    free(sub);
    write_file("nodes.conf", "NodeName=a[1-2]\nInclude sub/parts.conf\n");
    write_file("sub/parts.conf", "include more.conf\nPartitionName=p Nodes=a[1-2],b\n");
    write_file("sub/more.conf", "NodeName=b\n");
    char *abs = path_in("abs.conf");
    write_file("abs.conf", "ClusterName=abs\n");
    char *text = xasprintf("Include nodes.conf\nInclude \"%s\"\nKillWait=5\n", abs);
    struct conf *c = load(text);
    if (!c)
        fail_msg("%s", fx->err);
    assert_int_equal(c->nnodes, 3);
    assert_string_equal(c->nodes[2].name, "b");
    assert_int_equal(c->parts[0].nnodes, 3);
    assert_string_equal(c->cluster_name, "abs");
    assert_int_equal(c->kill_wait, 5);
    conf_destroy(c);
    free(text);
    free(abs);

    /* An error inside an included file names that file. */
    write_file("bad.conf", "\nCPUs=1 =x\n");
    load_fails("ClusterName=x\nInclude bad.conf\n", "bad.conf", 2,
               "expected Key=Value, got '=x'");
    load_fails("\nInclude missing.conf\n", "slurm.conf", 2,
               "cannot open include file 'missing.conf': No such file or directory");
    load_fails("Include\t \n", "slurm.conf", 1, "Include without a file name");
    write_file("loop.conf", "Include loop.conf\n");
    load_fails("Include loop.conf\n", "loop.conf", 1, "Include nested too deep (16 levels)");
}

static void test_errors(void **state)
{
    (void)state;
    load_fails("ClusterName=c\n\nNodeName=n1 CPUs=abc\n", "slurm.conf", 3,
               "invalid value 'abc' for CPUs");
    load_fails("NodeName=n1 CPUs=0\n", "slurm.conf", 1, "invalid value '0' for CPUs");
    load_fails("NodeName=n1 RealMemory=1G\n", "slurm.conf", 1,
               "invalid value '1G' for RealMemory");
    load_fails("NodeName=n1 Weight=-1\n", "slurm.conf", 1, "invalid value '-1' for Weight");
    load_fails("NodeName=n1 Port=70000\n", "slurm.conf", 1, "invalid value '70000' for Port");
    load_fails("NodeName=n1 State=SLEEPY\n", "slurm.conf", 1,
               "invalid value 'SLEEPY' for State");
    load_fails("NodeName=n1 Gres=gpu:a100:x\n", "slurm.conf", 1,
               "invalid value 'gpu:a100:x' for Gres");
    load_fails("NodeName=n1 Gres=gpu::2\n", "slurm.conf", 1,
               "invalid value 'gpu::2' for Gres");
    load_fails("NodeName=n1 Gres=gpu:a:1:2\n", "slurm.conf", 1,
               "invalid value 'gpu:a:1:2' for Gres");
    load_fails("KillWait=soon\n", "slurm.conf", 1, "invalid value 'soon' for KillWait");
    load_fails("SlurmdTimeout=99999999999\n", "slurm.conf", 1,
               "invalid value '99999999999' for SlurmdTimeout");
    load_fails("SlurmctldPort=0\n", "slurm.conf", 1, "invalid value '0' for SlurmctldPort");
    load_fails("ReturnToService=3\n", "slurm.conf", 1, "invalid value '3' for ReturnToService");
    load_fails("MaxJobCount=0\n", "slurm.conf", 1, "invalid value '0' for MaxJobCount");
    load_fails("SlurmdPort=10-5\n", "slurm.conf", 1, "invalid value '10-5' for SlurmdPort");
    load_fails("DefMemPerCPU=1.5\n", "slurm.conf", 1,
               "invalid value '1.5' for DefMemPerCPU");
    load_fails("SlurmctldHost=(addr)\n", "slurm.conf", 1,
               "invalid value '(addr)' for SlurmctldHost");
    load_fails("SlurmctldHost=h(addr\n", "slurm.conf", 1,
               "invalid value 'h(addr' for SlurmctldHost");
    load_fails("ClusterName=x\njust words\n", "slurm.conf", 2,
               "expected Key=Value, got 'just'");
    load_fails("ClusterName=\"open\n", "slurm.conf", 1,
               "unterminated quote in value of ClusterName");
    load_fails("ClusterName=\"a\"b\n", "slurm.conf", 1, "junk after quoted value of ClusterName");
    load_fails("NodeName=node[1- CPUs=2\n", "slurm.conf", 1, "NodeName=node[1-: bad host list");
    load_fails("NodeName= CPUs=2\n", "slurm.conf", 1, "NodeName=: bad host list");
    load_fails("NodeName=n[1-2] NodeAddr=a[1-3]\n", "slurm.conf", 1,
               "NodeAddr=a[1-3] names 3 addresses for 2 nodes");
    load_fails("NodeName=n1 NodeAddr=a[\n", "slurm.conf", 1, "NodeAddr=a[: bad host list");
    load_fails("NodeName=n[1-3]\nNodeName=n2\n", "slurm.conf", 2, "node 'n2' defined twice");
    load_fails("NodeName=node[1-8]\nPartitionName=debug Nodes=node[1-9]\n", "slurm.conf", 2,
               "partition debug: unknown node 'node9'");
    load_fails("PartitionName=p Nodes=n[\n", "slurm.conf", 1,
               "partition p: Nodes=n[: bad host list");
    load_fails("PartitionName=p\nPartitionName=p\n", "slurm.conf", 2,
               "partition 'p' defined twice");
    load_fails("PartitionName=\n", "slurm.conf", 1, "PartitionName without a name");
    load_fails("PartitionName=p MaxTime=forever\n", "slurm.conf", 1,
               "invalid value 'forever' for MaxTime");
    load_fails("PartitionName=p DefaultTime=1:xx\n", "slurm.conf", 1,
               "invalid value '1:xx' for DefaultTime");
    load_fails("PartitionName=p Default=maybe\n", "slurm.conf", 1,
               "invalid value 'maybe' for Default");
    load_fails("PartitionName=p State=OPEN\n", "slurm.conf", 1,
               "invalid value 'OPEN' for State");
    load_fails("PartitionName=DEFAULT MaxTime=x\n", "slurm.conf", 1,
               "invalid value 'x' for MaxTime");
    load_fails("NodeName=DEFAULT CPUs=x\n", "slurm.conf", 1, "invalid value 'x' for CPUs");

    char *p = path_in("nope.conf");
    assert_null(conf_load(p, fx->err, sizeof fx->err));
    char *want = xasprintf("%s: cannot open: No such file or directory", p);
    assert_string_equal(fx->err, want);
    assert_null(conf_load(p, NULL, 0));
    free(want);
    free(p);
}

static void test_unknown_key(void **state)
{
    (void)state;
    struct conf *c = load("ClusterName=a\nFrobnicate=yes KillWait=3\n"
                          "NodeName=n1 Colour=red\nPartitionName=p Nodes=n1 Speed=9\n"
                          "NodeSet=ns Feature=x\nDownNodes=n1 State=DOWN\n");
    if (!c)
        fail_msg("%s", fx->err);
    assert_int_equal(c->kill_wait, 3);
    assert_int_equal(c->nnodes, 1);
    char *log = read_log();
    char *want = xasprintf("%s/slurm.conf:2: unknown key 'Frobnicate' ignored", fx->dir);
    assert_non_null(strstr(log, want));
    free(want);
    want = xasprintf("%s/slurm.conf:3: unknown key 'Colour' ignored", fx->dir);
    assert_non_null(strstr(log, want));
    free(want);
    want = xasprintf("%s/slurm.conf:4: unknown key 'Speed' ignored", fx->dir);
    assert_non_null(strstr(log, want));
    free(want);
    assert_null(strstr(log, "NodeSet"));
    assert_null(strstr(log, "'State'"));
    free(log);
    conf_destroy(c);
}

static void test_defaults_inherit(void **state)
{
    (void)state;
    struct conf *c = load(
        "NodeName=DEFAULT CPUs=4 Features=x\n"
        "NodeName=a\n"
        "NodeName=DEFAULT CPUs=8 Features=\n"
        "NodeName=b Features=y\n"
        "NodeName=c\n"
        "PartitionName=DEFAULT Nodes=a,b MaxTime=30 Default=YES\n"
        "PartitionName=p1\n"
        "PartitionName=p2 Nodes=c\n"
        "PartitionName=p3 Default=NO\n");
    if (!c)
        fail_msg("%s", fx->err);
    assert_int_equal(conf_node_find(c, "a")->cpus, 4);
    assert_string_equal(conf_node_find(c, "a")->features, "x");
    assert_int_equal(conf_node_find(c, "b")->cpus, 8);
    assert_string_equal(conf_node_find(c, "b")->features, "y");
    assert_null(conf_node_find(c, "c")->features);
    assert_int_equal(conf_part_find(c, "p1")->nnodes, 2);
    assert_int_equal(conf_part_find(c, "p1")->max_time_min, 30);
    assert_int_equal(conf_part_find(c, "p2")->nnodes, 1);
    /* The last Default=YES wins; earlier ones are cleared. */
    assert_false(conf_part_find(c, "p1")->is_default);
    assert_ptr_equal(conf_part_default(c), conf_part_find(c, "p2"));
    conf_destroy(c);
}

static void test_gres(void **state)
{
    (void)state;
    write_file("gres.conf",
               "AutoDetect=nvml\n"
               "NodeName=g[1-2] Name=gpu Type=h100 File=/dev/nvidia[0-3]\n"
               "NodeName=g3 Name=gpu File=/dev/nvidia0\n"
               "NodeName=g3 Name=gpu File=/dev/nvidia1,/dev/nvidia2\n"
               "NodeName=g4 Name=gpu Count=2\n"
               "NodeName=other9 Name=gpu File=/dev/nvidia0\n"
               "Name=mps Count=100\n");
    struct conf *c = load("NodeName=g[1-2] Gres=gpu:4\nNodeName=g3\nNodeName=g4\n"
                          "NodeName=cpu1\n");
    if (!c)
        fail_msg("%s", fx->err);
    const struct conf_node *n = conf_node_find(c, "g2");
    assert_int_equal(n->gpus, 4);
    assert_string_equal(n->gpu_type, "h100");
    assert_non_null(n->gpu_files);
    assert_string_equal(n->gpu_files[0], "/dev/nvidia0");
    assert_string_equal(n->gpu_files[3], "/dev/nvidia3");
    n = conf_node_find(c, "g3");
    assert_int_equal(n->gpus, 3);
    assert_null(n->gpu_type);
    assert_string_equal(n->gpu_files[2], "/dev/nvidia2");
    n = conf_node_find(c, "g4");
    assert_int_equal(n->gpus, 2);
    assert_null(n->gpu_files);
    n = conf_node_find(c, "cpu1");
    assert_int_equal(n->gpus, 0);
    assert_null(n->gpu_files);
    char *log = read_log();
    assert_non_null(strstr(log, "gres.conf:6: node 'other9' is not in slurm.conf"));
    free(log);
    conf_destroy(c);

    /* Without NodeName= a line is for every node. */
    write_file("gres.conf", "Name=gpu File=/dev/nvidia[0-1] # all\n");
    c = load("NodeName=a,b Gres=gpu:2\n");
    assert_non_null(c);
    assert_string_equal(c->nodes[1].gpu_files[1], "/dev/nvidia1");
    conf_destroy(c);

    write_file("gres.conf", "Name=gpu File=/dev/nvidia[0-1]\n");
    load_fails("NodeName=a Gres=gpu:4\n", "gres.conf", 1,
               "node a: File= names 2 devices but Gres= has 4 GPUs");
    write_file("gres.conf", "Name=gpu File=/dev/nvidia[0-\n");
    load_fails("NodeName=a\n", "gres.conf", 1, "File=/dev/nvidia[0-: bad file list");
    write_file("gres.conf", "\nFile=/dev/nvidia0\n");
    load_fails("NodeName=a\n", "gres.conf", 2, "gres line without Name=");
    write_file("gres.conf", "NodeName=a[ Name=gpu Count=1\n");
    load_fails("NodeName=a\n", "gres.conf", 1, "NodeName=a[: bad host list");
    write_file("gres.conf", "Name=gpu Count=many\n");
    load_fails("NodeName=a\n", "gres.conf", 1, "invalid value 'many' for Count");
    write_file("gres.conf", "Name=gpu Bogus=1\nbroken\n");
    load_fails("NodeName=a\n", "gres.conf", 2, "expected Key=Value, got 'broken'");
    log = read_log();
    assert_non_null(strstr(log, "gres.conf:1: unknown key 'Bogus' ignored"));
    free(log);
}

/* Repeated gres.conf lines add up, within what the node can have: its
 * Gres= count, or 1024 without one; each device once. (Repeated lines of
 * File=/dev/nvidia[0-31][0-31][0-31] grew without bound, one device at a
 * time: a 432-byte file took 13 min under ASan.) */
static void test_gres_repeated(void **state)
{
    (void)state;
    write_file("gres.conf", "NodeName=a Name=gpu File=/dev/nvidia[0-1]\n"
                            "NodeName=a Name=gpu File=/dev/nvidia[2-3]\n");
    struct conf *c = load("NodeName=a Gres=gpu:4\n");
    if (!c)
        fail_msg("%s", fx->err);
    assert_string_equal(c->nodes[0].gpu_files[3], "/dev/nvidia3");
    conf_destroy(c);

    write_file("gres.conf", "NodeName=a Name=gpu File=/dev/nvidia[0-3]\n"
                            "NodeName=a Name=gpu File=/dev/nvidia[0-31][0-31][0-31]\n");
    load_fails("NodeName=a Gres=gpu:4\n", "gres.conf", 2,
               "node a: File= names more than its 4 GPUs");
    write_file("gres.conf", "Name=gpu File=/dev/nvidia[0-31][0-31][0-31]\n");
    load_fails("NodeName=a\n", "gres.conf", 1,
               "node a: File= names more than its 1024 GPUs (no Gres= in slurm.conf: at most "
               "1024)");
    write_file("gres.conf", "Name=gpu File=/dev/nvidia[0-31]-[0-31]\n");
    c = load("NodeName=a\n");
    if (!c)
        fail_msg("%s", fx->err);
    assert_int_equal(c->nodes[0].gpus, 1024);
    conf_destroy(c);
    write_file("gres.conf", "Name=gpu Count=1000\nName=gpu Count=1000\n");
    load_fails("NodeName=a\n", "gres.conf", 2, "node a: Count= adds up to more than its 1024 GPUs");
    write_file("gres.conf", "Name=gpu File=/dev/nvidia[0-1]\nName=gpu File=/dev/nvidia1\n");
    load_fails("NodeName=a Gres=gpu:3\n", "gres.conf", 2,
               "node a: File= names device /dev/nvidia1 twice");
    write_file("gres.conf", "Name=gpu File=/dev/nvidia[0-31][0-31]\n");   /* 1,10 and 11,0 */
    load_fails("NodeName=a\n", "gres.conf", 1, "node a: File= names device /dev/nvidia110 twice");
    load_fails("NodeName=a Gres=gpu:1048576,gpu:1\n", "slurm.conf", 1,
               "invalid value 'gpu:1048576,gpu:1' for Gres");
}

static void test_default_path(void **state)
{
    (void)state;
    unsetenv("SLURM_CONF");
    assert_string_equal(conf_default_path(), "/etc/herd/slurm.conf");
    setenv("SLURM_CONF", "", 1);
    assert_string_equal(conf_default_path(), "/etc/herd/slurm.conf");
    setenv("SLURM_CONF", "/tmp/x/slurm.conf", 1);
    assert_string_equal(conf_default_path(), "/tmp/x/slurm.conf");
    unsetenv("SLURM_CONF");
}

static void test_expand_node(void **state)
{
    (void)state;
    const struct {
        const char *pat, *node, *want;
    } cases[] = {
        { "/var/spool/%n", "n1", "/var/spool/n1" },
        { "%n-%n.log", "gpu01", "gpu01-gpu01.log" },
        { "/plain", "n1", "/plain" },
        { "100%", "n1", "100%" },
        { "%N%%n", "x", "%N%x" },
        { "%n", NULL, "" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *s = conf_expand_node(cases[i].pat, cases[i].node);
        assert_string_equal(s, cases[i].want);
        free(s);
    }
    assert_null(conf_expand_node(NULL, "n"));
}

/* PrologFlags: Contain, or X11 which implies it, gives jobs an extern step;
 * Slurm refuses a flag it does not know. */
/* Preemption's keys: values kept, defaults, and each bad value named. */
static void test_preempt_keys(void **state)
{
    (void)state;
    struct conf *c = load("NodeName=n1\nPartitionName=lo Nodes=n1\n"
                          "PartitionName=hi Nodes=n1 PriorityTier=2 GraceTime=30 "
                          "PreemptMode=CANCEL\n");
    assert_non_null(c);
    assert_int_equal(c->preempt_type, CONF_PT_NONE);
    assert_int_equal(c->preempt_mode, CONF_PM_OFF);
    assert_true(c->job_requeue);
    assert_int_equal(c->suspend_grace_s, 2);
    assert_int_equal(c->parts[0].priority_tier, 1);
    assert_int_equal(c->parts[0].preempt_mode, CONF_PM_UNSET);
    assert_int_equal(c->parts[1].priority_tier, 2);
    assert_int_equal(c->parts[1].grace_time, 30);
    assert_int_equal(c->parts[1].preempt_mode, CONF_PM_CANCEL);
    conf_destroy(c);
    c = load("PreemptType=preempt/qos\nPreemptMode=suspend,gang\nPreemptExemptTime=1:30\n"
             "PreemptParameters=youngest_first,send_user_signal,suspend_grace_time=5\n"
             "JobRequeue=0\n");
    assert_non_null(c);
    assert_int_equal(c->preempt_type, CONF_PT_QOS);
    assert_int_equal(c->preempt_mode, CONF_PM_SUSPEND | CONF_PM_GANG);
    assert_int_equal(c->preempt_exempt_s, 90);
    assert_int_equal(c->preempt_flags, CONF_PP_YOUNGEST_FIRST | CONF_PP_SEND_USER_SIGNAL);
    assert_int_equal(c->suspend_grace_s, 5);
    assert_false(c->job_requeue);
    char buf[64];
    conf_preempt_mode_name(c->preempt_mode, false, buf, sizeof buf);
    assert_string_equal(buf, "GANG,SUSPEND");
    conf_destroy(c);
    load_fails("PreemptType=preempt/bogus\n", "slurm.conf", 1,
               "invalid value 'preempt/bogus' for PreemptType (preempt/none, preempt/qos, "
               "preempt/partition_prio)");
    load_fails("PreemptMode=requeue,cancel\n", "slurm.conf", 1,
               "invalid value 'requeue,cancel' for PreemptMode: PreemptMode 'requeue,cancel' "
               "names more than one of OFF, CANCEL, REQUEUE and SUSPEND");
    load_fails("PreemptMode=priority\n", "slurm.conf", 1,
               "invalid value 'priority' for PreemptMode: PreemptMode=PRIORITY is not "
               "supported by Herd");
    load_fails("PreemptParameters=nope\n", "slurm.conf", 1,
               "invalid value 'nope' for PreemptParameters: invalid PreemptParameters option "
               "'nope' (youngest_first, strict_order, send_user_signal, suspend_grace_time=N, "
               "min_exempt_priority=N)");
    load_fails("PreemptExemptTime=soon\n", "slurm.conf", 1,
               "invalid value 'soon' for PreemptExemptTime");
    load_fails("NodeName=n1\nPartitionName=p Nodes=n1 PriorityTier=x\n", "slurm.conf", 2,
               "invalid value 'x' for PriorityTier");
    c = load("PreemptType=preempt/qos\n");
    assert_null(c);
    assert_non_null(strstr(fx->err, "PreemptType=preempt/qos needs a PreemptMode other than OFF"));
}

static void test_prolog_flags(void **state)
{
    (void)state;
    const struct { const char *line; bool contain; } cases[] = {
        { "", false }, { "PrologFlags=Alloc\n", false }, { "PrologFlags=Contain\n", true },
        { "PrologFlags=alloc,contain,NoHold\n", true }, { "PrologFlags=X11\n", true },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct conf *c = load(cases[i].line);
        assert_non_null(c);
        assert_int_equal(c->prolog_contain, cases[i].contain);
        conf_destroy(c);
    }
    load_fails("PrologFlags=Contain,Sometimes\n", "slurm.conf", 1,
               "invalid value 'Contain,Sometimes' for PrologFlags");
}

/* The Metrics* keys Slurm 25.11 reads: kept as written; a plugin or a
 * parameter Herd does not have is refused by name. */
static void test_metrics_keys(void **state)
{
    (void)state;
    struct conf *c = load("MetricsType=metrics/openmetrics\nMetricsAuthUsers=alice,bob\n"
                          "MetricsParameters=ignore_private_data\nPrivateData=jobs\n");
    assert_non_null(c);
    assert_string_equal(c->metrics_type, "metrics/openmetrics");
    assert_string_equal(c->metrics_auth_users, "alice,bob");
    assert_string_equal(c->metrics_params, "ignore_private_data");
    assert_string_equal(c->private_data, "jobs");
    conf_destroy(c);
    c = load("ClusterName=c\n");
    assert_non_null(c);
    assert_null(c->metrics_type);
    assert_null(c->metrics_auth_users);
    conf_destroy(c);
    load_fails("MetricsType=metrics/prometheus\n", "slurm.conf", 1,
               "invalid value 'metrics/prometheus' for MetricsType (the one metrics plugin is "
               "metrics/openmetrics)");
    load_fails("MetricsParameters=ignore_private_data,fast\n", "slurm.conf", 1,
               "unknown word 'fast' in MetricsParameters (known: ignore_private_data)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_defaults, setup, teardown),
        cmocka_unit_test_setup_teardown(test_full, setup, teardown),
        cmocka_unit_test_setup_teardown(test_syntax, setup, teardown),
        cmocka_unit_test_setup_teardown(test_legacy_ctld, setup, teardown),
        cmocka_unit_test_setup_teardown(test_include, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_key, setup, teardown),
        cmocka_unit_test_setup_teardown(test_defaults_inherit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gres, setup, teardown),
        cmocka_unit_test_setup_teardown(test_gres_repeated, setup, teardown),
        cmocka_unit_test_setup_teardown(test_prolog_flags, setup, teardown),
        cmocka_unit_test_setup_teardown(test_preempt_keys, setup, teardown),
        cmocka_unit_test_setup_teardown(test_metrics_keys, setup, teardown),
        cmocka_unit_test(test_default_path),
        cmocka_unit_test(test_expand_node),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
