/*
 * setup_munge: the MUNGE key. Every host of a cluster has the same key,
 * made once on the controller; munged refuses a key that others may read
 * or that is not its own user's, so herd setup puts those right and says
 * so. A key that is there is never replaced: hosts that share it would
 * stop trusting this one.
 */
#include "cmd/setup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#define MUNGE_KEY_BYTES 1024   /* mungekey's default size */
#define MUNGE_KEY_MIN 32       /* munged refuses a shorter key */

/* munged's user, or root (said) when the munge package is not installed;
 * its name. */
static const char *munge_owner(uid_t *uid, gid_t *gid, bool say)
{
    if (setup_user_ids("munge", uid, gid) == 0)
        return "munge";
    *uid = 0;
    *gid = 0;
    if (say)
        printf("herd setup: there is no user munge (is the munge package installed?): "
               "the key is root's\n");
    return "root";
}

static int random_fill(unsigned char *buf, size_t len)
{
    for (size_t got = 0; got < len;) {
        ssize_t n = getrandom(buf + got, len - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        got += (size_t)n;
    }
    return 0;
}

int setup_munge_make(const char *path)
{
    unsigned char key[MUNGE_KEY_BYTES];
    uid_t uid;
    gid_t gid;
    if (random_fill(key, sizeof key) < 0) {
        fprintf(stderr, "herd setup: cannot read random bytes for the MUNGE key: %s\n",
                strerror(errno));
        return -1;
    }
    const char *owner = munge_owner(&uid, &gid, true);
    int rc = setup_write_file(path, key, sizeof key, 0400, uid, gid, false);
    explicit_bzero(key, sizeof key);
    if (rc == 0)
        fprintf(stderr, "herd setup: %s appeared while the key was made; it stays\n", path);
    if (rc <= 0)
        return -1;
    printf("MUNGE key: made %s (%d random bytes, owner %s, mode 0400)\n", path,
           MUNGE_KEY_BYTES, owner);
    return 0;
}

/* An open key with its owner and mode put right, each change said. */
static int munge_fix(int fd, const char *path, const struct stat *st)
{
    uid_t uid;
    gid_t gid;
    const char *owner = munge_owner(&uid, &gid, false);
    if (st->st_uid != uid || st->st_gid != gid) {
        if (fchown(fd, uid, gid) < 0) {
            fprintf(stderr, "herd setup: %s is uid %d gid %d, munged wants %s's, and that "
                    "cannot be changed: %s\n", path, (int)st->st_uid, (int)st->st_gid, owner,
                    strerror(errno));
            return -1;
        }
        printf("MUNGE key: %s was uid %d gid %d; now %s's (munged's user)\n", path,
               (int)st->st_uid, (int)st->st_gid, owner);
    }
    if (st->st_mode & 077) {
        if (fchmod(fd, 0400) < 0) {
            fprintf(stderr, "herd setup: %s has mode %04o (others may read it) and it cannot "
                    "be changed: %s\n", path, (unsigned)(st->st_mode & 07777), strerror(errno));
            return -1;
        }
        printf("MUNGE key: %s had mode %04o; now 0400 (munged refuses a key others may "
               "read)\n", path, (unsigned)(st->st_mode & 07777));
    }
    return 0;
}

int setup_munge_check(const char *path)
{
    /* O_NOFOLLOW: the key is the file itself, as munged wants it */
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0 && errno == ENOENT)
        return 1;
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        fprintf(stderr, "herd setup: cannot read the MUNGE key %s: %s\n", path,
                errno == ELOOP ? "it is a symbolic link (munged wants the file itself)"
                               : strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    int rc = 0;
    if (!S_ISREG(st.st_mode) || st.st_size < MUNGE_KEY_MIN) {
        fprintf(stderr, "herd setup: the MUNGE key %s is not a file of at least %d bytes; "
                "move it away and run herd setup controller again\n", path, MUNGE_KEY_MIN);
        rc = -1;
    } else {
        rc = munge_fix(fd, path, &st);
    }
    close(fd);
    if (rc == 0)
        printf("MUNGE key: %s is in order (%lld bytes, readable by munged's user alone)\n",
               path, (long long)st.st_size);
    return rc;
}

void setup_munge_copy_hint(const char *ctld_host, const char *path)
{
    fprintf(stderr,
            "herd setup: no MUNGE key at %s. Every host needs the controller's; as root here:\n"
            "  scp %s:%s %s\n"
            "  chown munge:munge %s\n"
            "  chmod 0400 %s\n"
            "  systemctl restart munge\n"
            "then run this command again.\n",
            path, ctld_host, SETUP_MUNGE_KEY, path, path, path);
}
