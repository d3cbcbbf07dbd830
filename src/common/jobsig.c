#include "common/jobsig.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct {
    const char *name;
    int sig;
} names[] = {
    { "HUP", SIGHUP }, { "INT", SIGINT }, { "QUIT", SIGQUIT }, { "ABRT", SIGABRT },
    { "KILL", SIGKILL }, { "ALRM", SIGALRM }, { "TERM", SIGTERM }, { "USR1", SIGUSR1 },
    { "USR2", SIGUSR2 }, { "CONT", SIGCONT }, { "STOP", SIGSTOP }, { "TSTP", SIGTSTP },
    { "TTIN", SIGTTIN }, { "TTOU", SIGTTOU }, { "URG", SIGURG }, { "XCPU", SIGXCPU },
    { "XFSZ", SIGXFSZ }, { "VTALRM", SIGVTALRM }, { "PROF", SIGPROF }, { "WINCH", SIGWINCH },
    { "PIPE", SIGPIPE },
};

int jobsig_number(const char *name)
{
    if (!name || !*name)
        return -1;
    char *end;
    long v = strtol(name, &end, 10);
    if (end != name)
        return *end == '\0' && v > 0 && v < NSIG ? (int)v : -1;
    if (strncasecmp(name, "SIG", 3) == 0)
        name += 3;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcasecmp(names[i].name, name) == 0)
            return names[i].sig;
    return -1;
}

/* "B:", "R:", "BR:" or "RB:" before the signal. */
static const char *parse_flags(const char *s, bool *batch)
{
    const char *colon = strchr(s, ':');
    if (!colon)
        return s;
    for (const char *p = s; p < colon; p++) {
        if (*p == 'B' || *p == 'b')
            *batch = true;
        else if (*p != 'R' && *p != 'r')
            return NULL;
    }
    return colon + 1;
}

int jobsig_parse(const char *spec, struct jobsig_warn *w)
{
    *w = (struct jobsig_warn){ 0, 60, false };
    if (!spec || !*spec)
        return 0;
    bool batch = false;
    const char *s = parse_flags(spec, &batch);
    if (!s)
        return -1;
    char name[32];
    size_t n = strcspn(s, "@");
    if (n == 0 || n >= sizeof name)
        return -1;
    memcpy(name, s, n);
    name[n] = '\0';
    int sig = jobsig_number(name);
    long before = 60;
    if (s[n] == '@') {
        char *end;
        before = strtol(s + n + 1, &end, 10);
        if (end == s + n + 1 || *end || before < 0 || before > 65535)
            return -1;
    }
    if (sig < 0)
        return -1;
    *w = (struct jobsig_warn){ sig, (int)before, batch };
    return 0;
}
