/*
 * spool_pool: the directories of finished jobs, kept under SPOOL/.free/N
 * with their files for the next jobs to take, so that a job's records
 * reuse inodes instead of making and deleting five or six each. On ext4
 * without a journal, making an inode skips every one deleted in the last
 * minute (recently_deleted), so that churn cost grew with the job rate.
 * Files are rewritten in place (spool_write). A slot holds no result and
 * no pids; its script is rewritten in place only for the same user (a
 * user may hold an open descriptor of it), else made anew. A slot is
 * filled where it lies and only then renamed to the job's name, so that a
 * job's directory never shows the job before it.
 */
#include "noded/spool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/xmalloc.h"

#define POOL_MAX 256

static const char *const known[] = { SPOOL_JOB_JSON, SPOOL_SCRIPT, SPOOL_SUP_PID, SPOOL_PGID,
                                     SPOOL_RESULT };

static bool is_known(const char *name)
{
    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return true;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(name, known[i]) == 0)
            return true;
    return false;
}

/* Only our own files, so that a slot never carries anything else over. */
static bool only_known(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return false;
    bool ok = true;
    struct dirent *e;
    while (ok && (e = readdir(d)))
        ok = is_known(e->d_name);
    closedir(d);
    return ok;
}

/* Empties the files that say a job started or ended (keeping their inodes). */
static int clear_state(const char *dir)
{
    const char *names[] = { SPOOL_RESULT, SPOOL_SUP_PID, SPOOL_PGID };
    for (size_t i = 0; i < 3; i++) {
        char *path = xasprintf("%s/%s", dir, names[i]);
        int fd = open(path, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
        free(path);
        if (fd < 0 && errno != ENOENT)
            return -1;
        if (fd >= 0)
            close(fd);
    }
    return 0;
}

static char *slot_path(const char *spool, int n)
{
    return xasprintf("%s/.free/%d", spool, n);
}

void spool_pool_reset(const char *spool, int *nfree)
{
    char *free_dir = xasprintf("%s/.free", spool);
    spool_rmtree(free_dir);
    free(free_dir);
    *nfree = 0;
}

char *spool_pool_take(const char *spool, int *nfree)
{
    if (*nfree == 0)
        return NULL;
    return slot_path(spool, --*nfree);
}

/* Renamed first, emptied after: the job's directory goes at once, its
 * result with it, and is never seen without one (a restarted herdd would
 * take that job for running). */
int spool_pool_put(const char *spool, int *nfree, const char *dir)
{
    if (*nfree >= POOL_MAX || !only_known(dir))
        return spool_rmtree(dir);
    char *free_dir = xasprintf("%s/.free", spool);
    char *slot = slot_path(spool, *nfree);
    int rc = (mkdir(free_dir, 0700) == 0 || errno == EEXIST) ? rename(dir, slot) : -1;
    if (rc < 0)
        rc = spool_rmtree(dir);
    else if (clear_state(slot) == 0)
        (*nfree)++;
    else
        rc = spool_rmtree(slot);
    free(slot);
    free(free_dir);
    return rc;
}
