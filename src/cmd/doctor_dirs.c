/* herd doctor: what a daemon of this host needs of its directories and its
 * port. The controller's StateSaveLocation belongs to SlurmUser (herdctld
 * runs as that user and keeps the job database there); a node's
 * SlurmdSpoolDir to root. Neither may be writable by others: both hold
 * what jobs run as. */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/doctor.h"
#include "common/conf.h"

static void dir_owned(struct doctor *d, const char *what, const char *dir, const char *user)
{
    struct stat st;
    struct passwd *pw = getpwnam(user);
    if (stat(dir, &st) < 0) {
        doctor_say(d, DOC_OK, what, "%s does not exist yet; the daemon makes it at start", dir);
    } else if (!S_ISDIR(st.st_mode)) {
        doctor_say(d, DOC_FAIL, what, "%s is not a directory", dir);
    } else if (!pw) {
        doctor_say(d, DOC_FAIL, what, "the user %s that should own %s does not exist "
                   "(SlurmUser; the package makes herd)", user, dir);
    } else if (st.st_uid != pw->pw_uid) {
        doctor_say(d, DOC_FAIL, what, "%s belongs to uid %u, not %s, who runs the daemon "
                   "there: chown -R %s: %s", dir, (unsigned)st.st_uid, user, user, dir);
    } else if (st.st_mode & 022) {
        doctor_say(d, DOC_FAIL, what, "%s is writable by others (mode %04o); it holds what "
                   "jobs run as: chmod go-w %s", dir, (unsigned)(st.st_mode & 07777), dir);
    } else {
        doctor_say(d, DOC_OK, what, "%s: owned by %s, mode %04o", dir, user,
                   (unsigned)(st.st_mode & 07777));
    }
}

static void port_used(struct doctor *d, const char *key, int port, const char *daemon)
{
    const char *who = doctor_port_holder(port);
    if (!who)
        doctor_say(d, DOC_WARN, "port", "%d (%s) is taken by a process this user cannot see; "
                   "run herd doctor as root", port, key);
    else if (!who[0])
        doctor_say(d, DOC_WARN, "port", "nothing listens on %d (%s): %s is not running "
                   "(systemctl start %s)", port, key, daemon, daemon);
    else if (!strncmp(who, daemon, strlen(daemon)))
        doctor_say(d, DOC_OK, "port", "%s listens on %d (%s)", who, port, key);
    else
        doctor_say(d, DOC_FAIL, "port", "%d (%s) is taken by %s, not %s: stop it, or give "
                   "%s another port in slurm.conf", port, key, who, daemon, key);
}

void doctor_ctld_host(struct doctor *d)
{
    if (!d->conf)
        return;
    const char *user = d->conf->slurm_user ? d->conf->slurm_user : "root";
    dir_owned(d, "state dir", d->conf->state_save, user);
    port_used(d, "SlurmctldPort", d->conf->ctld_port, "herdctld");
}

void doctor_node_host(struct doctor *d)
{
    if (!d->conf)
        return;
    const struct conf_node *n = conf_node_find(d->conf, d->node);
    if (!n) {
        doctor_say(d, DOC_FAIL, "node", "slurm.conf has no node %s: add its line "
                   "(herdd -C prints it) on the controller and restart herdctld", d->node);
        return;
    }
    char *spool = conf_expand_node(d->conf->spool_dir, n->name);
    dir_owned(d, "spool dir", spool, "root");
    free(spool);
    port_used(d, "SlurmdPort", n->port ? n->port : d->conf->slurmd_port, "herdd");
}
