/* Unit tests of sbatch's option and directive parsing and its job spec. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "client/sbatch_opts.h"

static char err[1024];

/* Parses a NULL-terminated command line (without the program name). */
static int parse_cli(struct sbatch_opts *o, int *idx, ...)
{
    char *argv[64] = { "sbatch" };
    int argc = 1, dummy;
    va_list ap;

    va_start(ap, idx);
    while ((argv[argc] = va_arg(ap, char *)) != NULL)
        argc++;
    va_end(ap);
    err[0] = '\0';
    return sbatch_opts_parse_argv(o, argc, argv, idx ? idx : &dummy, err, sizeof(err));
}

static int parse_script(struct sbatch_opts *o, const char *script)
{
    err[0] = '\0';
    return sbatch_opts_parse_script(o, script, err, sizeof(err));
}

/* One option alone on a fresh struct; the caller frees. */
#define ONE(o, ...) do { sbatch_opts_init(o); assert_int_equal(parse_cli(o, NULL, __VA_ARGS__, NULL), 0); } while (0)
#define BAD_RC(rc, msg, ...) do { \
        struct sbatch_opts b_; \
        sbatch_opts_init(&b_); \
        assert_int_equal(parse_cli(&b_, NULL, __VA_ARGS__, NULL), rc); \
        assert_string_equal(err, msg); \
        sbatch_opts_free(&b_); \
    } while (0)
#define BAD(msg, ...) BAD_RC(-1, msg, __VA_ARGS__)
/* Errors Slurm's sbatch exits 255 on. */
#define FATAL(msg, ...) BAD_RC(SBATCH_OPT_FATAL, msg, __VA_ARGS__)
#define TRY "\nTry \"sbatch --help\" for more information"

static void test_directives_stop_at_command(void **state)
{
    struct sbatch_opts o;
    (void)state;

    sbatch_opts_init(&o);
    assert_int_equal(parse_script(&o,
        "#!/bin/bash\n"
        "#SBATCH -J first\n"
        "\n"
        "# a comment\n"
        "   # an indented comment\n"
        "#SBATCH --partition=gpu   # trailing comment\n"
        "# SBATCH -n 9\n"
        "#SBATCH-x node1\n"
        "  #SBATCH -c 7\n"
        "#SBATCH\t--comment \"two words\" -o 'a b.out'\n"
        "#SBATCH\n"
        "echo hello\n"
        "#SBATCH -N 5\n"), 0);
    assert_string_equal(o.job_name, "first");
    assert_string_equal(o.partition, "gpu");
    assert_string_equal(o.comment, "two words");
    assert_string_equal(o.out, "a b.out");
    assert_int_equal(o.ntasks, SBATCH_UNSET);
    assert_int_equal(o.cpus_per_task, SBATCH_UNSET);
    assert_int_equal(o.nodes, SBATCH_UNSET);
    assert_null(o.exclude);
    sbatch_opts_free(&o);
}

static void test_directive_quotes_inside_word(void **state)
{
    struct sbatch_opts o;
    (void)state;

    sbatch_opts_init(&o);
    assert_int_equal(parse_script(&o, "#!/bin/sh\n#SBATCH --job-name=\"my job\" --comment=a#b\n"), 0);
    assert_string_equal(o.job_name, "my job");
    assert_string_equal(o.comment, "a#b");
    sbatch_opts_free(&o);
}

static void test_directive_errors(void **state)
{
    struct sbatch_opts o;
    (void)state;

    sbatch_opts_init(&o);
    assert_int_equal(parse_script(&o, "#!/bin/sh\n#SBATCH -J x\n#SBATCH --bogus=1\n"),
                     SBATCH_OPT_FATAL);
    assert_string_equal(err, "sbatch: unrecognized option '--bogus=1' (batch script line 3)" TRY);
    assert_int_equal(parse_script(&o, "#!/bin/sh\n#SBATCH --time=abc\n"), SBATCH_OPT_FATAL);
    assert_string_equal(err, "sbatch: error: Invalid --time specification (batch script line 2)");
    assert_int_equal(parse_script(&o, "#!/bin/sh\n#SBATCH --nice 0\n"), -1);
    assert_string_equal(err, "sbatch: error: Invalid directive found in batch script: 0 (batch script line 2)");
    assert_int_equal(parse_script(&o, "#!/bin/sh\n#SBATCH -J \"open\n"), -1);
    assert_string_equal(err, "sbatch: error: Unmatched quote in #SBATCH directive (batch script line 2)");
    assert_int_equal(parse_script(&o, "#!/bin/sh\n\n#SBATCH -t\n"), SBATCH_OPT_FATAL);
    assert_string_equal(err, "sbatch: option requires an argument -- 't' (batch script line 3)" TRY);
    assert_int_equal(parse_script(&o, "#!/bin/sh\n#SBATCH --array=3-1\n"), -1);
    assert_string_equal(err, "sbatch: error: Invalid job array specification (batch script line 2)");
    sbatch_opts_free(&o);
}

static void test_cli_overrides_directives(void **state)
{
    struct sbatch_opts o;
    int idx;
    (void)state;

    sbatch_opts_init(&o);
    assert_int_equal(parse_script(&o, "#!/bin/sh\n#SBATCH -J inscript -p debug -n 4 -t 10\n"), 0);
    assert_int_equal(parse_cli(&o, &idx, "-p", "gpu", "--time=1:00:00", "job.sh", "-J", "arg", NULL), 0);
    assert_int_equal(idx, 4);
    assert_string_equal(o.job_name, "inscript");   /* -J after the script is the script's */
    assert_string_equal(o.partition, "gpu");
    assert_int_equal(o.ntasks, 4);
    assert_int_equal(o.time_limit, 60);
    sbatch_opts_free(&o);
}

static void test_script_index(void **state)
{
    struct sbatch_opts o;
    int idx;
    (void)state;

    sbatch_opts_init(&o);
    assert_int_equal(parse_cli(&o, &idx, "-n", "2", NULL), 0);
    assert_int_equal(idx, 3);
    assert_int_equal(parse_cli(&o, &idx, "--", "x.sh", NULL), 0);
    assert_int_equal(idx, 2);
    sbatch_opts_free(&o);
}

static void test_string_options(void **state)
{
    static const struct { const char *opt; size_t off; } t[] = {
        { "-J", offsetof(struct sbatch_opts, job_name) },
        { "--job-name", offsetof(struct sbatch_opts, job_name) },
        { "-p", offsetof(struct sbatch_opts, partition) },
        { "-o", offsetof(struct sbatch_opts, out) },
        { "--output", offsetof(struct sbatch_opts, out) },
        { "-e", offsetof(struct sbatch_opts, err) },
        { "-i", offsetof(struct sbatch_opts, in) },
        { "-D", offsetof(struct sbatch_opts, chdir) },
        { "--chdir", offsetof(struct sbatch_opts, chdir) },
        { "-w", offsetof(struct sbatch_opts, nodelist) },
        { "-x", offsetof(struct sbatch_opts, exclude) },
        { "-A", offsetof(struct sbatch_opts, account) },
        { "--qos", offsetof(struct sbatch_opts, qos) },
        { "--comment", offsetof(struct sbatch_opts, comment) },
        { "-C", offsetof(struct sbatch_opts, constraint) },
        { "--signal", offsetof(struct sbatch_opts, signal) },
        { "--mail-user", offsetof(struct sbatch_opts, mail_user) },
        { "--export", offsetof(struct sbatch_opts, export_env) },
        { "--wrap", offsetof(struct sbatch_opts, wrap) },
    };
    (void)state;

    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        struct sbatch_opts o;

        ONE(&o, t[i].opt, "value-x");
        assert_string_equal(*(char **)((char *)&o + t[i].off), "value-x");
        sbatch_opts_free(&o);
    }
}

/* Slurm takes a list in which one word at least is a mail type. */
static void test_mail_type(void **state)
{
    static const char *const ok[] = { "END", "end,FAIL", "NONE", "BEGIN,bogus",
                                      "TIME_LIMIT_90,ARRAY_TASKS" };
    (void)state;

    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        struct sbatch_opts o;

        ONE(&o, "--mail-type", ok[i]);
        assert_string_equal(o.mail_type, ok[i]);
        sbatch_opts_free(&o);
    }
}

static void test_numeric_and_flags(void **state)
{
    struct sbatch_opts o;
    (void)state;

    ONE(&o, "-N", "2", "-n", "8", "-c", "4", "--ntasks-per-node=4", "--parsable", "-H",
        "--exclusive", "--requeue", "-Q", "-v", "-v", "--wait", "--nice", "--open-mode=a");
    assert_int_equal(o.nodes, 2);
    assert_int_equal(o.ntasks, 8);
    assert_int_equal(o.cpus_per_task, 4);
    assert_int_equal(o.ntasks_per_node, 4);
    assert_true(o.parsable && o.hold && o.exclusive && o.quiet && o.wait);
    assert_int_equal(o.requeue, 1);
    assert_int_equal(o.verbose, 2);
    assert_string_equal(o.nice, "100");
    assert_string_equal(o.open_mode, "append");
    sbatch_opts_free(&o);

    ONE(&o, "--nodes=2-4", "--no-requeue", "--exclusive=user", "--nice=-5", "--open-mode", "truncate");
    assert_int_equal(o.nodes, 2);
    assert_int_equal(o.requeue, 0);
    assert_true(o.exclusive);
    assert_string_equal(o.nice, "-5");
    assert_string_equal(o.open_mode, "truncate");
    sbatch_opts_free(&o);

    ONE(&o, "--ntasks", "3", "--cpus-per-task", "2", "--part=abbrev");
    assert_int_equal(o.ntasks, 3);
    assert_int_equal(o.cpus_per_task, 2);
    assert_string_equal(o.partition, "abbrev");
    sbatch_opts_free(&o);
}

static void test_time_formats(void **state)
{
    static const struct { const char *s; int64_t min; } t[] = {
        { "10", 10 }, { "1:30", 2 }, { "2:00:00", 120 }, { "1-0", 1440 },
        { "1-2:30", 1590 }, { "1-00:00:30", 1441 }, { "UNLIMITED", -1 }, { "0", -1 },
    };
    (void)state;

    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        struct sbatch_opts o;

        ONE(&o, "-t", t[i].s);
        assert_int_equal(o.time_limit, t[i].min);
        assert_true(o.time_set);
        sbatch_opts_free(&o);
    }
    FATAL("sbatch: error: Invalid --time specification", "--time=abc");
    FATAL("sbatch: error: Invalid --time specification", "-t", "1:2:3:4");
}

static void test_gres_and_gpus(void **state)
{
    static const struct { const char *opt; int64_t gpus, per_node; const char *type; } t[] = {
        { "--gres=gpu", -1, 1, NULL },
        { "--gres=gpu:2", -1, 2, NULL },
        { "--gres=gpu:a100:2", -1, 2, "a100" },
        { "--gres=gpu:a100", -1, 1, "a100" },
        { "--gres=gres/gpu:4", -1, 4, NULL },
        { "--gres=gpu:1,gpu:2", -1, 3, NULL },
        { "--gpus=h100:8", 8, -1, "h100" },
        { "-G", 2, -1, NULL },
        { "--gpus-per-node=4", -1, 4, NULL },
        { "--gpus-per-node=v100:1", -1, 1, "v100" },
    };
    (void)state;

    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        struct sbatch_opts o;

        if (strcmp(t[i].opt, "-G") == 0)
            ONE(&o, "-G", "2");
        else
            ONE(&o, t[i].opt);
        assert_int_equal(o.gpus, t[i].gpus);
        assert_int_equal(o.gpus_per_node, t[i].per_node);
        if (t[i].type)
            assert_string_equal(o.gpu_type, t[i].type);
        else
            assert_null(o.gpu_type);
        sbatch_opts_free(&o);
    }
    BAD("sbatch: error: Invalid generic resource (gres) specification", "--gres=mps:100");
    BAD("sbatch: error: Invalid generic resource (gres) specification", "--gres=gpu:");
    BAD("sbatch: error: Invalid generic resource (gres) specification", "--gres=gpu:a:1,gpu:b:1");
    BAD("sbatch: error: Invalid generic resource (gres) specification", "--gres=gpux:1");
    BAD("sbatch: error: Invalid generic resource (gres) specification", "--gres=gpu:a:b:1");
    BAD("sbatch: error: Invalid --gpus specification", "--gpus=abc");
    BAD("sbatch: error: Invalid --gpus-per-node specification", "--gpus-per-node=:2");
}

static void test_gpus_per_task(void **state)
{
    struct sbatch_opts o;
    (void)state;

    ONE(&o, "-n2", "--gpus-per-task=a100:2", "--cpus-per-gpu=3", "--gpu-bind=closest");
    assert_int_equal(sbatch_opts_finish(&o, err, sizeof(err)), 0);
    assert_int_equal(o.gpus_per_task, 2);
    assert_int_equal(o.cpus_per_gpu, 3);
    assert_string_equal(o.gpu_type, "a100");
    assert_string_equal(o.gpu_bind, "closest");
    sbatch_opts_free(&o);

    /* as Slurm: per task needs tasks (or nodes, or --gpus); per GPU needs GPUs */
    ONE(&o, "--gpus-per-task=1", "-c2");
    assert_int_equal(sbatch_opts_finish(&o, err, sizeof(err)), -1);
    assert_string_equal(err, "sbatch: error: Failed to validate job spec. --gpus-per-task used "
                             "without either --gpus or -n/--ntasks is not allowed.\nsbatch: "
                             "error: Invalid generic resource (gres) specification");
    sbatch_opts_free(&o);
    ONE(&o, "--gpus-per-task=1", "-N2");
    assert_int_equal(sbatch_opts_finish(&o, err, sizeof(err)), 0);
    sbatch_opts_free(&o);
    ONE(&o, "--mem-per-gpu=10");
    assert_int_equal(sbatch_opts_finish(&o, err, sizeof(err)), -1);
    assert_string_equal(err, "sbatch: error: Requested mem_per_tres=gres:gpu:10 but did not "
                             "request any GPU.\nsbatch: error: Invalid generic resource (gres) "
                             "specification");
    sbatch_opts_free(&o);
    ONE(&o, "--mem-per-gpu=10", "--gres=gpu:1");
    assert_int_equal(sbatch_opts_finish(&o, err, sizeof(err)), 0);
    sbatch_opts_free(&o);
    ONE(&o, "--gpus-per-task=1", "--ntasks-per-gpu=2");
    assert_int_equal(sbatch_opts_finish(&o, err, sizeof(err)), -1);
    assert_string_equal(err, "sbatch: fatal: --gpus-per-task is mutually exclusive with "
                             "--ntasks-per-gpu and SLURM_NTASKS_PER_GPU");
    sbatch_opts_free(&o);
    ONE(&o, "--cpus-per-gpu=2", "-c", "2");
    assert_int_equal(sbatch_opts_finish(&o, err, sizeof(err)), -1);
    assert_string_equal(err, "sbatch: error: --cpus-per-gpu is mutually exclusive with "
                             "--cpus-per-task\nsbatch: error: Invalid generic resource (gres) "
                             "specification");
    sbatch_opts_free(&o);
    ONE(&o, "--gpus-per-socket=1");
    assert_int_equal(sbatch_opts_finish(&o, err, sizeof(err)), -1);
    sbatch_opts_free(&o);
    ONE(&o, "--gpus-per-socket=1", "--ntasks-per-gpu=1");
    assert_int_equal(sbatch_opts_finish(&o, err, sizeof(err)), -1);
    assert_string_equal(err, "sbatch: fatal: --gpus-per-socket is mutually exclusive with "
                             "--ntasks-per-gpu and SLURM_NTASKS_PER_GPU");
    sbatch_opts_free(&o);
    /* SLURM_GPUS_PER_NODE is --gpus-per-node's, not --gres's: the last one says */
    ONE(&o, "--gpus-per-node=2", "--gres=gpu:1");
    assert_int_equal(o.gpus_per_node_gres, 1);
    sbatch_opts_free(&o);
    ONE(&o, "--gres=gpu:1", "--gpus-per-node=2");
    assert_int_equal(o.gpus_per_node_gres, 0);
    sbatch_opts_free(&o);
    ONE(&o, "--gpus-per-socket=1", "--sockets-per-node=1");
    assert_int_equal(sbatch_opts_finish(&o, err, sizeof(err)), 0);
    sbatch_opts_free(&o);

    BAD("sbatch: error: Invalid generic resource (gres) specification", "--gpus-per-task=a:1:2");
    BAD("sbatch: error: Invalid --gpu-bind argument: gpu:bogus", "--gpu-bind=bogus");
    BAD("sbatch: error: Failed to validate zz, offending character is z\n"
        "sbatch: error: Invalid --gpu-bind argument: gpu:map_gpu:zz", "--gpu-bind=map_gpu:zz");
}

static void test_memory(void **state)
{
    struct sbatch_opts o;
    (void)state;

    ONE(&o, "--mem=4G");
    assert_int_equal(sbatch_opts_finish(&o, err, sizeof(err)), 0);
    assert_int_equal(o.mem_mb[SBATCH_MEM_NODE], 4096);
    sbatch_opts_free(&o);

    ONE(&o, "--mem=100", "--mem-per-cpu=1G");
    assert_int_equal(sbatch_opts_finish(&o, err, sizeof(err)), -1);
    assert_string_equal(err, "sbatch: fatal: --mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.");
    sbatch_opts_free(&o);

    /* The command line's choice replaces the script's. */
    sbatch_opts_init(&o);
    assert_int_equal(parse_script(&o, "#!/bin/sh\n#SBATCH --mem=1G\n#SBATCH --mem-per-gpu=2G\n"), 0);
    assert_int_equal(parse_cli(&o, NULL, "--mem-per-cpu=512", NULL), 0);
    assert_int_equal(sbatch_opts_finish(&o, err, sizeof(err)), 0);
    assert_int_equal(o.mem_mb[SBATCH_MEM_NODE], SBATCH_UNSET);
    assert_int_equal(o.mem_mb[SBATCH_MEM_CPU], 512);
    assert_int_equal(o.mem_mb[SBATCH_MEM_GPU], SBATCH_UNSET);
    sbatch_opts_free(&o);

    sbatch_opts_init(&o);
    assert_int_equal(parse_script(&o, "#!/bin/sh\n#SBATCH --mem=1G --mem-per-gpu=2G\n"), 0);
    assert_int_equal(sbatch_opts_finish(&o, err, sizeof(err)), -1);
    sbatch_opts_free(&o);

    FATAL("sbatch: error: Invalid --mem specification", "--mem=lots");
    FATAL("sbatch: error: Invalid --mem-per-cpu specification", "--mem-per-cpu=1X");
}

static void test_bad_cli(void **state)
{
    (void)state;
    FATAL("sbatch: unrecognized option '--bogus'" TRY, "--bogus");
    FATAL("sbatch: invalid option -- 'Z'" TRY, "-Z");
    FATAL("sbatch: option '--partition' requires an argument" TRY, "--partition");
    FATAL("sbatch: option requires an argument -- 'n'" TRY, "-n");
    FATAL("sbatch: option '--parsable' doesn't allow an argument" TRY, "--parsable=1");
    BAD("sbatch: error: Invalid numeric value \"0\" for --ntasks.", "-n", "0");
    BAD("sbatch: error: Invalid numeric value \"2x\" for --cpus-per-task.", "-c", "2x");
    FATAL("sbatch: error: \"abc\" is not a valid node count", "-N", "abc");
    FATAL("sbatch: error: Maximum node count 2 is less than minimum node count 3", "-N", "3-2");
    BAD("sbatch: error: Batch job submission failed: Node count specification invalid",
        "-N", "0");
    FATAL("sbatch: error: Invalid --open-mode specification", "--open-mode=x");
    BAD("sbatch: error: Invalid --nice value: abc", "--nice=abc");
    BAD("sbatch: error: Invalid job array specification", "--array=1-x");
    BAD("sbatch: error: Invalid job array specification", "-a", "5-1");
    FATAL("sbatch: error: Invalid --kill-on-invalid-dep specification",
          "--kill-on-invalid-dep=maybe");
    FATAL("sbatch: error: Invalid --begin specification", "--begin=soon");
    FATAL("sbatch: error: Invalid --mail-type specification", "--mail-type=SOMETIMES");
    FATAL("sbatch: error: Invalid --mail-type specification", "--mail-type=");
    BAD("sbatch: error: Invalid --export specification", "--export=");
}

static void test_script_check(void **state)
{
    const char nul[] = "#!/bin/sh\necho\0x\n";
    (void)state;

    assert_int_equal(sbatch_script_check("#!/bin/sh\n", 10, err, sizeof(err)), 0);
    assert_int_equal(sbatch_script_check("", 0, err, sizeof(err)), -1);
    assert_string_equal(err, "sbatch: error: Batch script is empty!");
    assert_int_equal(sbatch_script_check(" \n\t", 3, err, sizeof(err)), -1);
    assert_string_equal(err, "sbatch: error: Batch script contains only whitespace!");
    assert_int_equal(sbatch_script_check("echo hi\n", 8, err, sizeof(err)), -1);
    assert_string_equal(err,
        "sbatch: error: This does not look like a batch script.  The first\n"
        "sbatch: error: line must start with #! followed by the path to an interpreter.\n"
        "sbatch: error: For instance: #!/bin/sh");
    assert_int_equal(sbatch_script_check(nul, sizeof(nul) - 1, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "NULL character"));
    assert_int_equal(sbatch_script_check("#!/bin/sh\r\necho\r\n", 17, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "DOS line breaks"));
}

static void test_wrap(void **state)
{
    char *s = sbatch_wrap_script("hostname; sleep 1");
    (void)state;

    assert_string_equal(s, "#!/bin/sh\n# This script was created by sbatch --wrap.\n\nhostname; sleep 1\n");
    free(s);
}

static char *test_env[] = { "HOME=/home/u", "PATH=/bin", "B=0", "EMPTY=", NULL };

static const char *env_at(json_t *a, size_t i)
{
    return json_string_value(json_array_get(a, i));
}

static void test_export(void **state)
{
    json_t *a;
    (void)state;

    a = sbatch_export_env(NULL, test_env);
    assert_int_equal(json_array_size(a), 4);
    assert_string_equal(env_at(a, 2), "B=0");
    json_decref(a);

    a = sbatch_export_env("ALL", test_env);
    assert_int_equal(json_array_size(a), 4);
    json_decref(a);

    a = sbatch_export_env("NONE", test_env);
    assert_int_equal(json_array_size(a), 0);
    json_decref(a);

    a = sbatch_export_env("PATH,B=1,MISSING,EMPTY", test_env);
    assert_int_equal(json_array_size(a), 3);
    assert_string_equal(env_at(a, 0), "PATH=/bin");
    assert_string_equal(env_at(a, 1), "B=1");
    assert_string_equal(env_at(a, 2), "EMPTY=");
    json_decref(a);

    a = sbatch_export_env("B=1,ALL", test_env);
    assert_int_equal(json_array_size(a), 4);
    assert_string_equal(env_at(a, 0), "HOME=/home/u");
    assert_string_equal(env_at(a, 2), "B=1");
    json_decref(a);
}

static struct sbatch_env spec_env(char **argv, int argc)
{
    return (struct sbatch_env){
        .script = "#!/bin/sh\necho\n", .default_name = "job.sh",
        .script_argv = argv, .script_argc = argc, .environ = test_env,
        .cwd = "/home/u/sub", .host = "login1", .umask = 022,
    };
}

static void test_json_minimal(void **state)
{
    struct sbatch_opts o;
    struct sbatch_env env = spec_env(NULL, 0);
    json_t *j;
    (void)state;

    sbatch_opts_init(&o);
    j = sbatch_opts_to_json(&o, &env);
    assert_string_equal(json_string_value(json_object_get(j, "name")), "job.sh");
    assert_string_equal(json_string_value(json_object_get(j, "script")), env.script);
    assert_string_equal(json_string_value(json_object_get(j, "work_dir")), "/home/u/sub");
    assert_string_equal(json_string_value(json_object_get(j, "submit_dir")), "/home/u/sub");
    assert_string_equal(json_string_value(json_object_get(j, "submit_host")), "login1");
    assert_int_equal(json_integer_value(json_object_get(j, "umask")), 18);
    assert_int_equal(json_array_size(json_object_get(j, "argv")), 0);
    assert_int_equal(json_array_size(json_object_get(j, "environment")), 4);
    /* Nothing that was not given. */
    static const char *absent[] = { "partition", "nodes", "ntasks", "cpus_per_task",
        "cpus_per_task_set", "ntasks_per_node", "mem_per_node_mb", "mem_per_cpu_mb",
        "mem_per_gpu_mb", "gpus", "gpus_per_node", "gpu_type", "time_limit", "req_nodes",
        "exc_nodes", "exclusive", "hold", "requeue", "stdout", "stderr", "stdin",
        "account", "qos", "comment", "constraint", "signal", "open_mode", "nice", NULL };
    for (int i = 0; absent[i]; i++)
        assert_null(json_object_get(j, absent[i]));
    json_decref(j);
    sbatch_opts_free(&o);
}

static void test_json_full(void **state)
{
    char *args[] = { "a1", "a 2" };
    struct sbatch_env env = spec_env(args, 2);
    struct sbatch_opts o;
    json_t *j;
    (void)state;

    ONE(&o, "-J", "train", "-p", "gpu", "-N", "2", "-n", "16", "-c", "4", "--ntasks-per-node=8",
        "--mem=64G", "--gres=gpu:a100:4", "--gpus=8", "-t", "2-00:00:00", "-o", "out-%j.txt",
        "-e", "/tmp/err", "-i", "in.txt", "-D", "rel/dir", "--export=NONE", "-H", "-w",
        "node[1-2]", "-x", "node3", "--exclusive", "--no-requeue", "-A", "proj", "--qos=high",
        "--comment=hi", "-C", "ib", "--signal=B:USR1@60", "--open-mode=append", "--nice=10");
    assert_int_equal(sbatch_opts_finish(&o, err, sizeof(err)), 0);
    j = sbatch_opts_to_json(&o, &env);
    assert_string_equal(json_string_value(json_object_get(j, "name")), "train");
    assert_string_equal(json_string_value(json_object_get(j, "partition")), "gpu");
    assert_int_equal(json_integer_value(json_object_get(j, "nodes")), 2);
    assert_int_equal(json_integer_value(json_object_get(j, "ntasks")), 16);
    assert_int_equal(json_integer_value(json_object_get(j, "cpus_per_task")), 4);
    assert_true(json_is_true(json_object_get(j, "cpus_per_task_set")));
    assert_int_equal(json_integer_value(json_object_get(j, "ntasks_per_node")), 8);
    assert_int_equal(json_integer_value(json_object_get(j, "mem_per_node_mb")), 65536);
    assert_int_equal(json_integer_value(json_object_get(j, "gpus_per_node")), 4);
    assert_int_equal(json_integer_value(json_object_get(j, "gpus")), 8);
    assert_string_equal(json_string_value(json_object_get(j, "gpu_type")), "a100");
    assert_int_equal(json_integer_value(json_object_get(j, "time_limit")), 2880);
    assert_string_equal(json_string_value(json_object_get(j, "stdout")), "out-%j.txt");
    assert_string_equal(json_string_value(json_object_get(j, "stderr")), "/tmp/err");
    assert_string_equal(json_string_value(json_object_get(j, "stdin")), "in.txt");
    assert_string_equal(json_string_value(json_object_get(j, "work_dir")), "/home/u/sub/rel/dir");
    assert_string_equal(json_string_value(json_object_get(j, "submit_dir")), "/home/u/sub");
    assert_int_equal(json_array_size(json_object_get(j, "environment")), 0);
    assert_string_equal(json_string_value(json_array_get(json_object_get(j, "argv"), 1)), "a 2");
    assert_true(json_is_true(json_object_get(j, "hold")));
    assert_true(json_is_true(json_object_get(j, "exclusive")));
    assert_true(json_is_false(json_object_get(j, "requeue")));
    assert_string_equal(json_string_value(json_object_get(j, "req_nodes")), "node[1-2]");
    assert_string_equal(json_string_value(json_object_get(j, "exc_nodes")), "node3");
    assert_string_equal(json_string_value(json_object_get(j, "account")), "proj");
    assert_string_equal(json_string_value(json_object_get(j, "qos")), "high");
    assert_string_equal(json_string_value(json_object_get(j, "comment")), "hi");
    assert_string_equal(json_string_value(json_object_get(j, "constraint")), "ib");
    assert_string_equal(json_string_value(json_object_get(j, "signal")), "B:USR1@60");
    assert_string_equal(json_string_value(json_object_get(j, "open_mode")), "append");
    assert_string_equal(json_string_value(json_object_get(j, "nice")), "10");
    json_decref(j);
    sbatch_opts_free(&o);

    ONE(&o, "-d", "afterok:12:13?singleton", "--kill-on-invalid-dep=yes");
    j = sbatch_opts_to_json(&o, &env);
    assert_string_equal(json_string_value(json_object_get(j, "dependency")),
                        "afterok:12:13?singleton");
    assert_true(json_is_true(json_object_get(j, "kill_on_invalid_dep")));
    json_decref(j);
    sbatch_opts_free(&o);

    ONE(&o, "-D", "/abs", "-t", "UNLIMITED");
    j = sbatch_opts_to_json(&o, &env);
    assert_null(json_object_get(j, "dependency"));
    assert_string_equal(json_string_value(json_object_get(j, "work_dir")), "/abs");
    assert_int_equal(json_integer_value(json_object_get(j, "time_limit")), -1);
    json_decref(j);
    sbatch_opts_free(&o);
}

static void test_repeated_option_frees(void **state)
{
    struct sbatch_opts o;
    (void)state;

    ONE(&o, "-J", "a", "-J", "b", "--gpus=x:1", "--gpus=y:2", "--open-mode=a", "--open-mode=t");
    assert_string_equal(o.job_name, "b");
    assert_string_equal(o.gpu_type, "y");
    assert_string_equal(o.open_mode, "truncate");
    sbatch_opts_free(&o);
    sbatch_opts_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_directives_stop_at_command),
        cmocka_unit_test(test_directive_quotes_inside_word),
        cmocka_unit_test(test_directive_errors),
        cmocka_unit_test(test_cli_overrides_directives),
        cmocka_unit_test(test_script_index),
        cmocka_unit_test(test_string_options),
        cmocka_unit_test(test_numeric_and_flags),
        cmocka_unit_test(test_mail_type),
        cmocka_unit_test(test_time_formats),
        cmocka_unit_test(test_gres_and_gpus),
        cmocka_unit_test(test_memory),
        cmocka_unit_test(test_bad_cli),
        cmocka_unit_test(test_script_check),
        cmocka_unit_test(test_wrap),
        cmocka_unit_test(test_export),
        cmocka_unit_test(test_json_minimal),
        cmocka_unit_test(test_json_full),
        cmocka_unit_test(test_repeated_option_frees),
        cmocka_unit_test(test_gpus_per_task),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
