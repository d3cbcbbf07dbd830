/* herd doctor: the MUNGE key file and munged. A key that differs from the
 * controller's is found by doctor_ctld.c (the controller cannot decode this
 * host's credentials): two hosts cannot compare keys any other way without
 * sending one. */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/doctor.h"
#include "common/auth.h"

#define MUNGE_KEY_MIN 32   /* munged refuses a shorter key */

static void key_file(struct doctor *d)
{
    struct stat st;
    const char *k = d->munge_key;
    if (stat(k, &st) < 0) {
        if (errno == EACCES)
            doctor_say(d, DOC_WARN, "munge key", "%s: cannot look at it as this user; run "
                       "herd doctor as root to check it", k);
        else
            doctor_say(d, DOC_FAIL, "munge key", "%s is missing: copy it from the controller "
                       "(owner munge, mode 0400), then restart munge", k);
        return;
    }
    struct passwd *pw = getpwnam("munge");
    if (st.st_mode & 077)
        doctor_say(d, DOC_FAIL, "munge key", "%s is open to others (mode %04o); munged "
                   "refuses it: chmod 0400 %s", k, (unsigned)(st.st_mode & 07777), k);
    else if (pw && st.st_uid != pw->pw_uid)
        doctor_say(d, DOC_FAIL, "munge key", "%s belongs to uid %u, not munge; munged refuses "
                   "it: chown munge:munge %s", k, (unsigned)st.st_uid, k);
    else if (st.st_size < MUNGE_KEY_MIN)
        doctor_say(d, DOC_FAIL, "munge key", "%s has %lld bytes; munged wants at least %d",
                   k, (long long)st.st_size, MUNGE_KEY_MIN);
    else
        doctor_say(d, DOC_OK, "munge key", "%s: %lld bytes, mode %04o", k,
                   (long long)st.st_size, (unsigned)(st.st_mode & 07777));
}

static void munged(struct doctor *d)
{
    char err[256];
    char *cred = auth_munge_encode(d->munge_socket, err, sizeof err);
    const char *where = d->munge_socket ? d->munge_socket : "its default socket";
    if (!cred)
        doctor_say(d, DOC_FAIL, "munged", "does not answer at %s (%s): start it "
                   "(systemctl start munge)", where, err);
    else
        doctor_say(d, DOC_OK, "munged", "answers at %s", where);
    d->munged_ok = cred != NULL;
    free(cred);
}

void doctor_munge(struct doctor *d)
{
    key_file(d);
    munged(d);
}
