/*
 * sdnotify: systemd's readiness protocol (sd_notify(3)) without libsystemd.
 * A unit of Type=notify learns from these datagrams when herdctld or herdd
 * serves, reloads and stops, so that `systemctl start` returns only once
 * the daemon answers and dependants start after it. Outside systemd
 * ($NOTIFY_SOCKET unset) every call does nothing.
 */
#ifndef HERD_SDNOTIFY_H
#define HERD_SDNOTIFY_H

/* Sends state ("READY=1", "STOPPING=1", ...) to $NOTIFY_SOCKET: a path, or
 * an abstract socket when it starts with '@'. 1 sent, 0 no socket named,
 * -1 it could not be sent (errno set). The variable stays set, for the
 * reload and stop messages; systemd (NotifyAccess=main) heeds only the
 * main process, so what herdd's supervisors inherit of it is harmless. */
int sd_notify_state(const char *state);

#endif
