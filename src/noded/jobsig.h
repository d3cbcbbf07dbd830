/*
 * jobsig: moved to common/jobsig.h, since the controller reads --signal too
 * (PreemptParameters=send_user_signal).
 */
#ifndef HERD_NODED_JOBSIG_H
#define HERD_NODED_JOBSIG_H

#include "common/jobsig.h"

#endif
