#include "noded/detect.h"

#include <ctype.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "noded/nvml.h"
#include "noded/sysops.h"

void detect_gpu_type(char *name)
{
    for (char *p = name; *p; p++)
        *p = *p == ' ' ? '_' : (char)tolower((unsigned char)*p);
}

static void detect_gpus(struct detect *d)
{
    struct nvml n;
    if (nvml_open(&n) < 0)
        return;
    unsigned int count = 0;
    if (n.count(&count) != NVML_SUCCESS || count > 1024)
        count = 0;
    d->gpu_types = xcalloc(count + 1, sizeof *d->gpu_types);
    d->gpu_uuids = xcalloc(count + 1, sizeof *d->gpu_uuids);
    d->gpu_minors = xcalloc(count + 1, sizeof *d->gpu_minors);
    for (unsigned int i = 0; i < count; i++) {
        nvml_device dev = NULL;
        char name[NVML_NAME_LEN] = "", uuid[NVML_NAME_LEN] = "";
        unsigned int mnr = 0;
        bool have = n.handle(i, &dev) == NVML_SUCCESS;
        if (!have || n.name(dev, name, sizeof name) != NVML_SUCCESS)
            snprintf(name, sizeof name, "gpu");
        if (!have || !n.uuid || n.uuid(dev, uuid, sizeof uuid) != NVML_SUCCESS)
            uuid[0] = '\0';
        name[sizeof name - 1] = uuid[sizeof uuid - 1] = '\0';
        detect_gpu_type(name);
        d->gpu_uuids[d->ngpus] = xstrdup(uuid);
        d->gpu_minors[d->ngpus] = have && n.minor_number && n.minor_number(dev, &mnr) == NVML_SUCCESS
                                  && mnr < 1u << 20 ? (int)mnr : -1;
        d->gpu_types[d->ngpus++] = xstrdup(name);
    }
    nvml_close(&n);
}

void detect_run(struct detect *d)
{
    memset(d, 0, sizeof *d);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    d->cpus = cpus > 0 ? (int)cpus : 1;
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && psize > 0)
        d->mem_mb = (uint64_t)pages * (uint64_t)psize / (1024 * 1024);
    struct sysinfo si;
    if (sysinfo(&si) == 0)
        d->uptime_s = si.uptime;
    detect_gpus(d);
}

void detect_clear(struct detect *d)
{
    for (size_t i = 0; i < d->ngpus; i++) {
        free(d->gpu_types[i]);
        if (d->gpu_uuids)
            free(d->gpu_uuids[i]);
    }
    free(d->gpu_types);
    free(d->gpu_uuids);
    free(d->gpu_minors);
    memset(d, 0, sizeof *d);
}

/* " Gres=gpu:a:2,gpu:b:1": consecutive GPUs of one type fold together. */
static void print_gres(FILE *out, const struct detect *d)
{
    const char *sep = " Gres=";
    for (size_t i = 0; i < d->ngpus;) {
        size_t j = i;
        while (j < d->ngpus && strcmp(d->gpu_types[j], d->gpu_types[i]) == 0)
            j++;
        fprintf(out, "%sgpu:%s:%zu", sep, d->gpu_types[i], j - i);
        sep = ",";
        i = j;
    }
}

void detect_print(FILE *out, const char *node_name, const struct detect *d)
{
    fprintf(out, "NodeName=%s CPUs=%d Boards=1 SocketsPerBoard=1 CoresPerSocket=%d "
            "ThreadsPerCore=1 RealMemory=%" PRIu64, node_name, d->cpus, d->cpus, d->mem_mb);
    print_gres(out, d);
    int64_t up = d->uptime_s;
    fprintf(out, "\nUpTime=%" PRId64 "-%02d:%02d:%02d\n", up / 86400, (int)(up / 3600 % 24),
            (int)(up / 60 % 60), (int)(up % 60));
}

char **detect_gpu_devs(const struct conf_node *n, const struct detect *d)
{
    size_t count = n->gpus > 0 ? (size_t)n->gpus : 0;
    char **v = xcalloc(count + 1, sizeof *v);
    for (size_t i = 0; i < count; i++) {
        struct stat st;
        if (n->gpu_files && n->gpu_files[i]) {
            if (stat(n->gpu_files[i], &st) == 0 && S_ISCHR(st.st_mode))
                v[i] = xasprintf("c %u:%u", major(st.st_rdev), minor(st.st_rdev));
            else {
                log_warnx("GPU %zu: %s is not a character device; not constrained", i,
                          n->gpu_files[i]);
                v[i] = xstrdup("");
            }
        } else if (i < d->ngpus && d->gpu_minors && d->gpu_minors[i] >= 0) {
            v[i] = xasprintf("c %d:%d", DETECT_NVIDIA_MAJOR, d->gpu_minors[i]);
        } else {
            v[i] = xasprintf("c %d:%zu", DETECT_NVIDIA_MAJOR, i);
        }
    }
    return v;
}

void detect_check(const struct conf_node *n, const struct detect *d)
{
    for (size_t i = 0; i < d->ngpus; i++)
        log_info("GPU %zu: %s uuid=%s minor=%d", i, d->gpu_types[i],
                 d->gpu_uuids && d->gpu_uuids[i][0] ? d->gpu_uuids[i] : "?",
                 d->gpu_minors ? d->gpu_minors[i] : -1);
    if (d->ngpus == 0 && n->gpus > 0 && !n->gpu_files)
        log_info("node %s: %d GPU(s) declared, none found by NVML (none needed)", n->name,
                 n->gpus);
    else if (d->ngpus > 0 && (size_t)n->gpus != d->ngpus)
        log_warnx("node %s: slurm.conf declares %d GPU(s), NVML finds %zu", n->name, n->gpus,
                  d->ngpus);
    else if (d->ngpus > 0 && n->gpu_type && strcmp(n->gpu_type, d->gpu_types[0]) != 0)
        log_warnx("node %s: slurm.conf says GPU type %s, NVML says %s", n->name, n->gpu_type,
                  d->gpu_types[0]);
}
