/* clock: the PAM module's one reading of time (it links no daemon's clock):
 * a monotonic count of milliseconds, for its request's deadline. */
#ifndef HERD_PAM_CLOCK_H
#define HERD_PAM_CLOCK_H

long long pam_clock_ms(void);

#endif
