/* Unit tests of the node agent through a table of its own (sysops.h):
 * fork, waitpid, a cgroup's mkdir and knob writes, kill and NVML made to
 * fail or answer as a test says, where the real ones would need root, a
 * full process table or a GPU. Each checks that the agent's function
 * reports the failure as it would on a real node. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "noded/cgroup.h"
#include "noded/detect.h"
#include "noded/jobctl.h"
#include "noded/jobspec.h"
#include "noded/sysops.h"

/* What the fakes saw, reset by each test. */
static struct {
    int forks, waits, eintr_left;
    char failing_knob[64];
    char wrote[256], wrote_val[64];
    pid_t killed[8];
    int nkilled, kill_sig;
    int dlcloses;
} seen;

static int reset(void **state)
{
    (void)state;
    memset(&seen, 0, sizeof seen);
    return 0;
}

static int restore(void **state)
{
    (void)state;
    sys_ops_set(NULL);
    return 0;
}

static pid_t fork_fails(void)
{
    seen.forks++;
    errno = EAGAIN;
    return -1;
}

static pid_t waitpid_counted(pid_t pid, int *status, int options)
{
    seen.waits++;
    return waitpid(pid, status, options);
}

static struct job_spec script_job(void)
{
    return (struct job_spec){ .job_id = 7, .name = "j", .partition = "p", .node_name = "n1",
                              .node_list = "", .user_name = "u", .cluster_name = "c",
                              .account = "", .array_task_id = -1 };
}

/* A Prolog when the node can fork no more: -1 (the job is not run), no
 * wait for a child that does not exist. */
static void test_script_fork_fails(void **state)
{
    (void)state;
    struct sys_ops ops = sys_ops_default;
    ops.fork = fork_fails;
    ops.waitpid = waitpid_counted;
    sys_ops_set(&ops);
    struct job_spec js = script_job();
    assert_int_equal(jobctl_script("/bin/true", "prolog_slurmd", &js, NULL), -1);
    assert_int_equal(seen.forks, 1);
    assert_int_equal(seen.waits, 0);
}

static pid_t waitpid_interrupted(pid_t pid, int *status, int options)
{
    seen.waits++;
    if (seen.eintr_left-- > 0)
        return errno = EINTR, -1;
    return waitpid(pid, status, options);
}

static pid_t waitpid_echild(pid_t pid, int *status, int options)
{
    waitpid(pid, status, options);      /* reaped, but the caller is told ECHILD */
    seen.waits++;
    return errno = ECHILD, -1;
}

/* A signal during the wait is waited through; a lost child is -1, never
 * an exit status read from nothing. */
static void test_script_wait(void **state)
{
    (void)state;
    char dir[] = "/tmp/herd-sysops-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/prolog", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("#!/bin/sh\nexit 3\n", f);
    fclose(f);
    assert_int_equal(chmod(path, 0700), 0);
    struct job_spec js = script_job();
    struct sys_ops ops = sys_ops_default;
    ops.waitpid = waitpid_interrupted;
    seen.eintr_left = 2;
    sys_ops_set(&ops);
    assert_int_equal(jobctl_script(path, "prolog_slurmd", &js, NULL), 3);
    assert_int_equal(seen.waits, 3);
    ops.waitpid = waitpid_echild;
    assert_int_equal(jobctl_script(path, "epilog_slurmd", &js, NULL), -1);
    unlink(path);
    rmdir(dir);
}

/* A directory standing for a cgroup v2 mount: cgroup.controllers is what
 * jobcg_version looks for. */
static void fake_mount(char *dir)
{
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/cgroup.controllers", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("cpu memory pids\n", f);
    fclose(f);
}

/* Removes what fake_mount made and a test's groups under it (a group that
 * is already gone is no error); the mount itself must then be empty. */
static void drop_mount(const char *mount, const char *node)
{
    char path[128];
    snprintf(path, sizeof path, "%s/herd/%s", mount, node);
    rmdir(path);
    snprintf(path, sizeof path, "%s/herd", mount);
    rmdir(path);
    snprintf(path, sizeof path, "%s/cgroup.controllers", mount);
    unlink(path);
    assert_int_equal(rmdir(mount), 0);
}

static int mkdir_denied(const char *path, mode_t mode)
{
    (void)path;
    (void)mode;
    errno = EACCES;
    return -1;
}

/* The group cannot be made: NULL and Slurm-like words on why, which the
 * supervisor logs before it runs the job with process tracking only. */
static void test_cgroup_mkdir_fails(void **state)
{
    (void)state;
    char mount[] = "/tmp/herd-cgroot-XXXXXX";
    fake_mount(mount);
    struct jobcg_want w = { .node = "n1-00000001", .job_id = 7 };
    char err[512] = "";
    struct sys_ops ops = sys_ops_default;
    ops.mkdir = mkdir_denied;
    sys_ops_set(&ops);
    assert_null(jobcg_create(mount, &w, err, sizeof err));
    char want[256];
    snprintf(want, sizeof want, "cannot set up the job's cgroup herd/n1-00000001/job_7 under %s: "
             "Permission denied", mount);
    assert_string_equal(err, want);

    sys_ops_set(NULL);                  /* the real mkdir makes it in the fake mount */
    struct jobcg *cg = jobcg_create(mount, &w, err, sizeof err);
    assert_non_null(cg);
    char job[128];
    snprintf(job, sizeof job, "%s/herd/n1-00000001/job_7", mount);
    struct stat st;
    assert_int_equal(stat(job, &st), 0);
    jobcg_destroy(cg);
    assert_int_equal(stat(job, &st), -1);
    drop_mount(mount, "n1");
}

static int knob_write(const char *path, const char *val)
{
    const char *knob = strrchr(path, '/') + 1;
    if (strcmp(knob, seen.failing_knob) == 0) {
        snprintf(seen.wrote, sizeof seen.wrote, "%s", path);
        snprintf(seen.wrote_val, sizeof seen.wrote_val, "%s", val);
        return errno = EACCES, -1;
    }
    return 0;
}

/* A host without swap accounting has no memory.swap.max: its ENOENT must
 * not stand for the memory limit's own failure. */
static int no_swap_knob_write(const char *path, const char *val)
{
    (void)val;
    const char *knob = strrchr(path, '/') + 1;
    if (strcmp(knob, "memory.max") == 0)
        return errno = EACCES, -1;
    if (strcmp(knob, "memory.swap.max") == 0)
        return errno = ENOENT, -1;
    return 0;
}

static void test_cgroup_limit_error_is_the_limits(void **state)
{
    (void)state;
    char mount[] = "/tmp/herd-cgroot-XXXXXX";
    fake_mount(mount);
    struct jobcg_want w = { .node = "n1", .job_id = 9, .mem_bytes = 1 << 20 };
    char err[512] = "";
    struct sys_ops ops = sys_ops_default;
    ops.cg_write = no_swap_knob_write;
    sys_ops_set(&ops);
    assert_null(jobcg_create(mount, &w, err, sizeof err));
    assert_non_null(strstr(err, "Permission denied"));
    assert_null(strstr(err, "No such file"));
    drop_mount(mount, "n1");
}

/* The memory limit cannot be set: no group (a job over its memory would
 * not be held to it), the one made removed, and the error says so. */
static void test_cgroup_limit_fails(void **state)
{
    (void)state;
    char mount[] = "/tmp/herd-cgroot-XXXXXX";
    fake_mount(mount);
    struct jobcg_want w = { .node = "n1", .job_id = 8, .mem_bytes = 1 << 20 };
    char err[512] = "";
    struct sys_ops ops = sys_ops_default;
    ops.cg_write = knob_write;
    snprintf(seen.failing_knob, sizeof seen.failing_knob, "memory.max");
    sys_ops_set(&ops);
    assert_null(jobcg_create(mount, &w, err, sizeof err));
    assert_non_null(strstr(err, "cannot set up the job's cgroup herd/n1/job_8"));
    assert_non_null(strstr(err, "Permission denied"));
    char job[128];
    snprintf(job, sizeof job, "%s/herd/n1/job_8", mount);
    char want[160];
    snprintf(want, sizeof want, "%s/memory.max", job);
    assert_string_equal(seen.wrote, want);
    assert_string_equal(seen.wrote_val, "1048576");
    struct stat st;
    assert_int_equal(stat(job, &st), -1);

    seen.failing_knob[0] = '\0';        /* every knob written: the group stands */
    struct jobcg *cg = jobcg_create(mount, &w, err, sizeof err);
    assert_non_null(cg);
    assert_int_equal(stat(job, &st), 0);
    jobcg_destroy(cg);
    drop_mount(mount, "n1");
}

static int kill_recorded(pid_t pid, int sig)
{
    if (seen.nkilled < 8)
        seen.killed[seen.nkilled++] = pid;
    seen.kill_sig = sig;
    return pid == 4343 ? (errno = ESRCH, -1) : 0;
}

/* A job's processes are what its cgroup.procs lists (never init); one that
 * is gone by the time it is signalled is not counted. */
static void test_cgroup_signal(void **state)
{
    (void)state;
    char mount[] = "/tmp/herd-cgroot-XXXXXX";
    fake_mount(mount);
    char job[128], path[160];
    snprintf(job, sizeof job, "%s/herd", mount);
    assert_int_equal(mkdir(job, 0755), 0);
    snprintf(job, sizeof job, "%s/herd/n1", mount);
    assert_int_equal(mkdir(job, 0755), 0);
    snprintf(job, sizeof job, "%s/herd/n1/job_9", mount);
    assert_int_equal(mkdir(job, 0755), 0);
    snprintf(path, sizeof path, "%s/cgroup.procs", job);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("1\n4242\n4343\n", f);
    fclose(f);
    struct sys_ops ops = sys_ops_default;
    ops.kill = kill_recorded;
    sys_ops_set(&ops);
    struct jobcg *cg = jobcg_open(mount, "n1", 9);
    assert_non_null(cg);
    assert_int_equal(jobcg_signal(cg, SIGUSR1), 1);
    assert_int_equal(seen.nkilled, 2);
    assert_int_equal(seen.killed[0], 4242);
    assert_int_equal(seen.killed[1], 4343);
    assert_int_equal(seen.kill_sig, SIGUSR1);
    jobcg_close(cg);
    unlink(path);
    rmdir(job);
    drop_mount(mount, "n1");
}

/* ---- NVML: a library of two H200s that exists only in this table ---- */

static int fake_lib;

static int nv_ok(void) { return 0; }
static int nv_count(unsigned int *n) { *n = 2; return 0; }
static int nv_handle(unsigned int i, void **dev) { *dev = (void *)(uintptr_t)(i + 1); return 0; }
static int nv_name(void *dev, char *buf, unsigned int len)
{
    (void)dev;
    snprintf(buf, len, "NVIDIA H200");
    return 0;
}
static int nv_uuid(void *dev, char *buf, unsigned int len)
{
    snprintf(buf, len, "GPU-%u", (unsigned)(uintptr_t)dev);
    return 0;
}
static int nv_minor(void *dev, unsigned int *m) { *m = 10 + (unsigned)(uintptr_t)dev; return 0; }

static void *fake_dlopen(const char *file, int flags)
{
    (void)flags;
    return strcmp(file, "libnvidia-ml.so.1") == 0 ? &fake_lib : NULL;
}

static void *fake_dlsym(void *lib, const char *name)
{
    static const struct { const char *name; void *fn; } syms[] = {
        { "nvmlInit_v2", (void *)nv_ok }, { "nvmlShutdown", (void *)nv_ok },
        { "nvmlDeviceGetCount_v2", (void *)nv_count },
        { "nvmlDeviceGetHandleByIndex_v2", (void *)nv_handle },
        { "nvmlDeviceGetName", (void *)nv_name }, { "nvmlDeviceGetUUID", (void *)nv_uuid },
        { "nvmlDeviceGetMinorNumber", (void *)nv_minor },
    };
    assert_ptr_equal(lib, &fake_lib);
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++)
        if (strcmp(syms[i].name, name) == 0)
            return syms[i].fn;
    return NULL;
}

static int fake_dlclose(void *lib)
{
    assert_ptr_equal(lib, &fake_lib);
    seen.dlcloses++;
    return 0;
}

static void test_nvml_table(void **state)
{
    (void)state;
    unsetenv("HERD_NVML_LIBRARY");
    struct sys_ops ops = sys_ops_default;
    ops.dlopen = fake_dlopen;
    ops.dlsym = fake_dlsym;
    ops.dlclose = fake_dlclose;
    sys_ops_set(&ops);
    struct detect d;
    detect_run(&d);
    assert_int_equal(d.ngpus, 2);
    assert_string_equal(d.gpu_types[0], "nvidia_h200");
    assert_string_equal(d.gpu_uuids[1], "GPU-2");
    assert_int_equal(d.gpu_minors[0], 11);
    assert_int_equal(seen.dlcloses, 1);
    detect_clear(&d);

    setenv("HERD_NVML_LIBRARY", "/elsewhere/libnvidia-ml.so", 1);   /* not loaded: no GPU */
    detect_run(&d);
    assert_int_equal(d.ngpus, 0);
    detect_clear(&d);
    unsetenv("HERD_NVML_LIBRARY");
}

static void test_set_restores(void **state)
{
    (void)state;
    struct sys_ops ops = sys_ops_default;
    assert_ptr_equal(sys_ops_set(&ops), &sys_ops_default);
    assert_ptr_equal(sys, &ops);
    assert_ptr_equal(sys_ops_set(NULL), &ops);
    assert_ptr_equal(sys, &sys_ops_default);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_script_fork_fails, reset, restore),
        cmocka_unit_test_setup_teardown(test_script_wait, reset, restore),
        cmocka_unit_test_setup_teardown(test_cgroup_mkdir_fails, reset, restore),
        cmocka_unit_test_setup_teardown(test_cgroup_limit_fails, reset, restore),
        cmocka_unit_test_setup_teardown(test_cgroup_limit_error_is_the_limits, reset, restore),
        cmocka_unit_test_setup_teardown(test_cgroup_signal, reset, restore),
        cmocka_unit_test_setup_teardown(test_nvml_table, reset, restore),
        cmocka_unit_test_setup_teardown(test_set_restores, reset, restore),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
