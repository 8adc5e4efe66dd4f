/*
 * The round-trip floor of ProxyCL's handshake on this machine, with no OpenCL at all.
 *
 * ProxyCL and accelosd hand a blocking call over like this: the client publishes the request and
 * wakes the daemon's service thread if it sleeps; the service thread polls its ring for 50 us
 * (AOS_SERVICE_SPIN_NS) before sleeping on a futex; the client polls its reply slot for 20 us
 * (REPLY_SPIN_NS) before sleeping on a futex, and the daemon wakes it if it sleeps. pb_floor runs
 * that same handshake between two bare threads of this process, so the table can show which part
 * of a round trip is the machine's (futex wake-ups, vCPU wake-up latency, two threads sharing one
 * CPU) rather than ProxyCL's.
 */
#ifndef PB_FLOOR_H
#define PB_FLOOR_H

#include <stdint.h>

#include "pb_util.h"

#define PB_FLOOR_CLIENT_SPIN_NS 20000 /* proxycl/conn.c REPLY_SPIN_NS */
#define PB_FLOOR_SERVER_SPIN_NS 50000 /* accelosd/session.c AOS_SERVICE_SPIN_NS */

/* Median round trip in microseconds over n calls (samples holds n), with gap_us of pause before
 * each call when asleep or busy; busy adds a third thread that pokes the server every ~25 us, as
 * the busy rows' helper does. Returns a negative value when a thread could not be started. */
double pb_floor_measure(enum pb_regime regime, int n, int gap_us, double *samples);

#endif
