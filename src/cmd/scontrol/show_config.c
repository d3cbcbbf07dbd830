/*
 * show_config: `scontrol show config` in Slurm 22.05's layout. Tools read
 * keys from it by name (Toil stops at start-up without SchedulerTimeSlice
 * and AcctGatherNodeFreq), so every key Slurm prints is printed, in its
 * order, from the table in config_keys.def: Herd's value where Herd has
 * one, else what slurm.conf says, else Slurm's default.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "client/client.h"
#include "client/clock.h"
#include "client/paths.h"
#include "client/version.h"
#include "cmd/scontrol/scontrol.h"
#include "cmd/scontrol/slurm_file.h"
#include "common/conf.h"
#include "common/timefmt.h"
#include "common/xmalloc.h"

#define PROG SCONTROL_PROG

struct cfgctx {
    const struct conf *c;
    long long next_job_id;     /* from the controller's ping; 0 unknown */
    long long boot_time;
    const char *key;           /* a getter may print another key (DefMemPerCPU) */
};

typedef const char *(*getter)(struct cfgctx *x, char *buf, size_t n);

static const char *fmt_int(char *buf, size_t n, long long v, const char *unit)
{
    snprintf(buf, n, "%lld%s", v, unit);
    return buf;
}

static const char *str_or_null(const char *s)
{
    return s && *s ? s : "(null)";
}

/* Slurm's secs2time_str: "00:05:00", "7-00:00:00". */
static const char *fmt_secs(char *buf, size_t n, long long s)
{
    if (s >= 86400)
        snprintf(buf, n, "%lld-%02lld:%02lld:%02lld", s / 86400, s / 3600 % 24, s / 60 % 60,
                 s % 60);
    else
        snprintf(buf, n, "%02lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
    return buf;
}

#define STR_GETTER(name, expr)                                                                    \
    static const char *name(struct cfgctx *x, char *buf, size_t n)                                \
    {                                                                                             \
        (void)x, (void)buf, (void)n;                                                              \
        return str_or_null(expr);                                                                 \
    }
#define INT_GETTER(name, expr, unit)                                                              \
    static const char *name(struct cfgctx *x, char *buf, size_t n)                                \
    {                                                                                             \
        return fmt_int(buf, n, (long long)(expr), unit);                                          \
    }
#define MIN_GETTER(name, expr)                                                                    \
    static const char *name(struct cfgctx *x, char *buf, size_t n)                                \
    {                                                                                             \
        return fmt_secs(buf, n, (long long)(expr) * 60);                                          \
    }

STR_GETTER(g_cluster, x->c->cluster_name)

/* Contain (or X11) implies Alloc, which Slurm then lists first. */
static const char *g_prolog_flags(struct cfgctx *x, char *buf, size_t n)
{
    (void)buf, (void)n;
    return x->c->prolog_contain ? "Alloc,Contain" : NULL;
}
STR_GETTER(g_dep_params, x->c->dependency_params)
STR_GETTER(g_gres_types, x->c->gres_types)
STR_GETTER(g_mpi_default, x->c->mpi_default ? x->c->mpi_default : "none")
STR_GETTER(g_prio_type, x->c->priority_type)
STR_GETTER(g_sched_params, x->c->sched_params)
STR_GETTER(g_sched_type, x->c->sched_type)
STR_GETTER(g_select_type, x->c->select_type)
STR_GETTER(g_ctld_log, x->c->log_file_ctld)
STR_GETTER(g_ctld_params, x->c->ctld_params)
STR_GETTER(g_d_log, x->c->log_file_d)
STR_GETTER(g_d_params, x->c->slurmd_params)
STR_GETTER(g_d_pid, x->c->pid_file_d ? x->c->pid_file_d : "/var/run/slurmd.pid")
STR_GETTER(g_ctld_pid, x->c->pid_file_ctld ? x->c->pid_file_ctld : "/var/run/slurmctld.pid")
STR_GETTER(g_spool, x->c->spool_dir)
STR_GETTER(g_path, x->c->path)
STR_GETTER(g_version, SLURM_COMPAT_VERSION)
STR_GETTER(g_state_save, x->c->state_save)
STR_GETTER(g_prio_flags, x->c->prio_flags)
STR_GETTER(g_prio_reset, x->c->prio_usage_reset ? x->c->prio_usage_reset : "NONE")
STR_GETTER(g_prio_favor_small, x->c->prio_favor_small ? "Yes" : "No")
INT_GETTER(g_kill_wait, x->c->kill_wait, " sec")
INT_GETTER(g_max_array, x->c->max_array_size, "")
INT_GETTER(g_max_jobs, x->c->max_job_count, "")
INT_GETTER(g_node_count, x->c->nnodes, "")
INT_GETTER(g_msg_timeout, x->c->msg_timeout, " sec")
INT_GETTER(g_min_job_age, x->c->min_job_age, " sec")
INT_GETTER(g_rts, x->c->return_to_service, "")
INT_GETTER(g_ctld_port, x->c->ctld_port, "")
INT_GETTER(g_d_port, x->c->slurmd_port, "")
INT_GETTER(g_d_timeout, x->c->slurmd_timeout, " sec")
INT_GETTER(g_next_job_id, x->next_job_id > 0 ? x->next_job_id : 1, "")
/* Slurm's: twice MaxJobCount and four per node, at least 10,000 */
INT_GETTER(g_max_dbd, 2LL * x->c->max_job_count + 4LL * (long long)x->c->nnodes < 10000
                          ? 10000
                          : 2LL * x->c->max_job_count + 4LL * (long long)x->c->nnodes, "")
INT_GETTER(g_pw_age, x->c->prio_weight_age, "")
INT_GETTER(g_pw_assoc, x->c->prio_weight_assoc, "")
INT_GETTER(g_pw_fairshare, x->c->prio_weight_fairshare, "")
INT_GETTER(g_pw_job_size, x->c->prio_weight_job_size, "")
INT_GETTER(g_pw_partition, x->c->prio_weight_partition, "")
INT_GETTER(g_pw_qos, x->c->prio_weight_qos, "")
MIN_GETTER(g_prio_half_life, x->c->prio_decay_half_life_min)
MIN_GETTER(g_prio_calc, x->c->prio_calc_period_min)
MIN_GETTER(g_prio_max_age, x->c->prio_max_age_min)

INT_GETTER(g_job_requeue, x->c->job_requeue, "")
STR_GETTER(g_preempt_type, conf_preempt_type_name(x->c->preempt_type))

static const char *g_preempt_mode(struct cfgctx *x, char *buf, size_t n)
{
    conf_preempt_mode_name(x->c->preempt_mode, false, buf, n);
    return buf;
}

static const char *g_preempt_exempt(struct cfgctx *x, char *buf, size_t n)
{
    return fmt_secs(buf, n, (long long)x->c->preempt_exempt_s);
}

static const char *g_boot_time(struct cfgctx *x, char *buf, size_t n)
{
    timefmt_iso(x->boot_time, buf, n);
    return buf;
}

static const char *g_ctld_host(struct cfgctx *x, char *buf, size_t n)
{
    snprintf(buf, n, "%s(%s)", x->c->ctld_host,
             x->c->ctld_addr ? x->c->ctld_addr : x->c->ctld_host);
    return buf;
}

/* Slurm prints DefMemPerCPU in DefMemPerNode's place when it is set. */
static const char *g_def_mem(struct cfgctx *x, char *buf, size_t n)
{
    if (!x->c->def_mem_per_cpu)
        return "UNLIMITED";
    x->key = "DefMemPerCPU";
    return fmt_int(buf, n, (long long)x->c->def_mem_per_cpu, "");
}

enum section { S_MAIN, S_PRIO, S_CGROUP, S_MPI };

struct cfgkey {
    const char *name;
    getter get;
    const char *dflt;
    const char *unit;
    enum section sect;
};

static const struct cfgkey keys[] = {
#define CONF_KEY(n, g, d, u) { n, g, d, u, S_MAIN },
#define PRIO_KEY(n, g, d, u) { n, g, d, u, S_PRIO },
#define CGROUP_KEY(n, g, d, u) { n, g, d, u, S_CGROUP },
#define MPI_KEY(n, g, d, u) { n, g, d, u, S_MPI },
#include "cmd/scontrol/config_keys.def"
#undef CONF_KEY
#undef PRIO_KEY
#undef CGROUP_KEY
#undef MPI_KEY
};

/* A value from the file: the unit after a number, yes/no as Slurm prints
 * cgroup.conf's flags, a percentage with one decimal. */
static const char *file_value(const struct cfgkey *k, const char *v, char *buf, size_t n)
{
    if (!strcmp(k->unit, "%"))
        snprintf(buf, n, "%.1f%%", strtod(v, NULL));
    else if (k->sect == S_CGROUP && (!strcmp(k->dflt, "no") || !strcmp(k->dflt, "yes")))
        snprintf(buf, n, "%s", slurm_file_yes(v) ? "yes" : "no");
    else
        snprintf(buf, n, "%s%s", v, k->unit);
    return buf;
}

static void print_key(struct cfgctx *x, const struct cfgkey *k, const struct slurm_file *f)
{
    char buf[512], raw[512];
    const char *v = NULL;
    x->key = k->name;
    if (k->get)   /* NULL: Herd has nothing of its own to say; the file's, then Slurm's */
        v = k->get(x, buf, sizeof buf);
    if (v)
        ;
    else if (f && (v = slurm_file_get(f, k->name)))
        v = file_value(k, v, raw, sizeof raw);
    else if (!strcmp(k->unit, "%"))
        v = strcmp(k->dflt, "(null)") ? (snprintf(raw, sizeof raw, "%s%%", k->dflt), raw)
                                      : k->dflt;
    else
        v = strcmp(k->dflt, "(null)") && *k->dflt && *k->unit
                ? (snprintf(raw, sizeof raw, "%s%s", k->dflt, k->unit), raw)
                : k->dflt;
    printf("%-23s = %s\n", x->key, v);
}

static void print_section(struct cfgctx *x, enum section s, const char *title,
                          const struct slurm_file *f)
{
    bool multifactor = x->c->priority_type && strcmp(x->c->priority_type, "priority/basic");
    if (title)
        printf("\n%s\n", title);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const struct cfgkey *k = &keys[i];
        if (k->sect == s || (s == S_MAIN && k->sect == S_PRIO && multifactor))
            print_key(x, k, f);
    }
}

/* The controller's answer to ping: whether it is up, its next job id and
 * when it started. */
static int ping(struct cfgctx *x)
{
    json_t *resp = NULL;
    char err[256];
    int st = client_call(PROG, "GET", PATH_PING, NULL, &resp, err, sizeof err);
    if (st == 200) {
        x->next_job_id = json_integer_value(json_object_get(resp, "next_job_id"));
        x->boot_time = json_integer_value(json_object_get(resp, "boot_time"));
    }
    json_decref(resp);
    return st;
}

int scontrol_show_config(void)
{
    struct cfgctx x = { .c = client_conf(PROG) };
    int st = ping(&x);
    char t[64];
    timefmt_iso(client_now(), t, sizeof t);
    printf("Configuration data as of %s\n", t);
    struct slurm_file *main_f = slurm_file_load(x.c->path);
    print_section(&x, S_MAIN, NULL, main_f);
    char *cg_path = slurm_file_beside(x.c->path, "cgroup.conf");
    struct slurm_file *cg = slurm_file_load(cg_path);
    if (cg)
        print_section(&x, S_CGROUP, "Cgroup Support Configuration:", cg);
    print_section(&x, S_MPI, "MPI Plugins Configuration:", NULL);
    printf("\nSlurmctld(primary) at %s is %s\n", x.c->ctld_host, st == 200 ? "UP" : "DOWN");
    slurm_file_destroy(cg);
    free(cg_path);
    slurm_file_destroy(main_f);
    return 0;
}
