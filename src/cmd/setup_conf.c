/*
 * setup_conf: the slurm.conf that `herd setup controller` starts a lab
 * with: the shape of packaging/examples/slurm.conf, configless (the nodes
 * and login hosts fetch it from the controller, so it lives on one host),
 * and one partition over all nodes, so that adding a node is adding its
 * NodeName line. Each line says why it is there, for the administrator
 * who edits it next.
 */
#include "cmd/setup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/xmalloc.h"

char *setup_conf_node_name(const char *line)
{
    if (strncasecmp(line, "NodeName=", 9) != 0 || strpbrk(line, "\n\r"))
        return NULL;
    size_t n = strcspn(line + 9, " \t");
    return n ? xstrndup(line + 9, n) : NULL;
}

static void conf_head(FILE *f, const struct setup_conf *sc)
{
    fprintf(f,
            "# slurm.conf of the %s cluster, written by `herd setup controller` on %s.\n"
            "# Configless: the nodes (herdd --conf-server %s:%d) and login hosts\n"
            "# (herd conf-fetch) fetch this file from the controller; edit it here only.\n"
            "# After adding or removing a node: systemctl restart herdctld (a reconfigure\n"
            "# does not add nodes). Syntax: Slurm's (man slurm.conf).\n\n"
            "ClusterName=%s\n"
            "# the host that runs herdctld; SlurmctldHost=%s(ADDRESS) if DNS is not enough\n"
            "SlurmctldHost=%s\n"
            "SlurmctldPort=%d\n"
            "SlurmdPort=6818\n"
            "# herdctld runs as this user (herdctld.service: User=herd); herdd runs as root\n"
            "SlurmUser=%s\n"
            "AuthType=auth/munge\n"
            "# the nodes and login hosts fetch this file (and gres.conf, cgroup.conf)\n"
            "SlurmctldParameters=enable_configless\n\n",
            sc->cluster, sc->host, sc->host, sc->port, sc->cluster, sc->host, sc->host,
            sc->port, sc->user);
}

static void conf_paths(FILE *f)
{
    fputs("# The controller's state: the job and accounting database (SQLite). Keep it\n"
          "# on a local disk that is backed up; owned by SlurmUser.\n"
          "StateSaveLocation=/var/spool/herd/ctld\n"
          "# Each node's job scripts and records, owned by root\n"
          "SlurmdSpoolDir=/var/spool/herd/d\n"
          "# Logs (rotated by /etc/logrotate.d/herd). Leave a line out to log to the\n"
          "# journal instead.\n"
          "SlurmctldLogFile=/var/log/herd/herdctld.log\n"
          "SlurmdLogFile=/var/log/herd/herdd.log\n"
          "# /run/herd is made for SlurmUser by herdctld.service\n"
          "SlurmctldPidFile=/run/herd/herdctld.pid\n"
          "SlurmdPidFile=/run/herdd.pid\n\n",
          f);
}

static void conf_policy(FILE *f)
{
    fputs("# Jobs in cgroups (limits in cgroup.conf), GPUs as GRES\n"
          "ProctrackType=proctrack/cgroup\n"
          "TaskPlugin=task/cgroup,task/affinity\n"
          "GresTypes=gpu\n"
          "SelectType=select/cons_tres\n\n"
          "# a node that was DOWN for not answering comes back when it registers\n"
          "ReturnToService=1\n"
          "# Scheduling: priority by fair share, age and size; backfill\n"
          "SchedulerType=sched/backfill\n"
          "PriorityType=priority/multifactor\n"
          "PriorityWeightFairshare=10000\n"
          "PriorityWeightAge=1000\n"
          "PriorityWeightJobSize=100\n\n",
          f);
}

static void conf_nodes(FILE *f, const struct setup_conf *sc)
{
    fputs("# The nodes, as `herdd -C` (or `herd setup node`) prints each one's line:\n"
          "# CPUs, RealMemory in MB, GPUs in Gres=. Keep some memory back for the\n"
          "# system by lowering RealMemory.\n",
          f);
    for (size_t i = 0; i < sc->nnodes; i++)
        fprintf(f, "%s\n", sc->nodes[i]);
    fputs("\n# One partition over every node (Nodes=ALL takes in nodes added above)\n"
          "PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n",
          f);
}

char *setup_conf_text(const struct setup_conf *sc)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    conf_head(f, sc);
    conf_paths(f);
    conf_policy(f);
    conf_nodes(f, sc);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}
