/*
 * prio: Slurm's multifactor job priority. Each factor is normalized to
 * [0, 1], weighted by its PriorityWeight*, and summed; the nice value is
 * subtracted; the result is at least 1, as in Slurm (0 would mean held).
 */
#include "sched/sched.h"

static double clamp01(double v)
{
    return v < 0.0 ? 0.0 : v > 1.0 ? 1.0 : v;
}

double sched_prio_age(int64_t age_s, int64_t max_age_s)
{
    if (max_age_s <= 0 || age_s <= 0)
        return 0.0;
    return clamp01((double)age_s / (double)max_age_s);
}

/* Slurm's job size factor: the mean of the node and the CPU fractions of
 * the cluster; PriorityFavorSmall turns both around. */
static double job_size(const struct sched_prio_weights *w, const struct sched_prio_job *j)
{
    double tn = w->cluster_nodes > 0 ? (double)w->cluster_nodes : 1.0;
    double tc = w->cluster_cpus > 0 ? (double)w->cluster_cpus : 1.0;
    double nodes = j->nodes > 0 ? (double)j->nodes : 1.0;
    double f;

    if (w->favor_small) {
        f = (tn - nodes) / tn;
        if (j->cpus > 0)
            f = (f + (tc - (double)j->cpus) / tc) / 2.0;
    } else {
        f = nodes / tn;
        if (j->cpus > 0)
            f = (f + (double)j->cpus / tc) / 2.0;
    }
    return clamp01(f);
}

void sched_prio_job(const struct sched_prio_weights *w, const struct sched_prio_job *j,
                    struct sched_prio_factors *out)
{
    double sum;

    out->age = sched_prio_age(j->age_s, w->max_age_s);
    out->assoc = clamp01(j->assoc);
    out->fairshare = clamp01(j->fairshare);
    out->job_size = job_size(w, j);
    out->partition = clamp01(j->partition);
    out->qos = clamp01(j->qos);
    out->w_age = out->age * w->age;
    out->w_assoc = out->assoc * w->assoc;
    out->w_fairshare = out->fairshare * w->fairshare;
    out->w_job_size = out->job_size * w->job_size;
    out->w_partition = out->partition * w->partition;
    out->w_qos = out->qos * w->qos;
    out->nice = j->nice;
    sum = out->w_age + out->w_assoc + out->w_fairshare + out->w_job_size + out->w_partition +
          out->w_qos - (double)j->nice;
    if (sum < 1.0)
        out->priority = 1;
    else if (sum > 4294967294.0)
        out->priority = UINT32_MAX - 1;
    else
        out->priority = (uint32_t)sum;
}
