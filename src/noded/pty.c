/*
 * pty: opening a pseudo terminal and handing it to a task. See pty.h.
 */
#include "noded/pty.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "noded/sysops.h"

int pty_open(int *master, int *slave)
{
    char name[64];
    int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (m < 0)
        return -1;
    if (grantpt(m) < 0 || unlockpt(m) < 0 || ptsname_r(m, name, sizeof name) != 0) {
        close(m);
        return -1;
    }
    int s = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (s < 0) {
        close(m);
        return -1;
    }
    *master = m;
    *slave = s;
    return 0;
}

void pty_set_size(int master, json_t *size)
{
    json_int_t rows = json_integer_value(json_object_get(size, "rows"));
    json_int_t cols = json_integer_value(json_object_get(size, "cols"));
    if (rows <= 0 || cols <= 0 || rows > 10000 || cols > 10000)
        return;
    struct winsize ws = { .ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols };
    ioctl(master, TIOCSWINSZ, &ws);
}

int pty_take(int slave)
{
    if (sys->setsid() < 0 || ioctl(slave, TIOCSCTTY, 0) < 0)
        return -1;
    return 0;
}
