/*
 * The daemon's scheduling policy, chosen once at start-up (--policy or $ACCELOS_POLICY).
 *
 *   fifo  programs are built natively and launches are forwarded untouched: the device runs
 *         kernels in arrival order, the first one taking every compute unit.
 *   fair  programs built from source also get a JIT-rewritten elastic twin, and launches of its
 *         kernels run over a virtual NDRange on a share of the compute units (launch.c).
 */
#ifndef ACCELOSD_POLICY_H
#define ACCELOSD_POLICY_H

#include <stdbool.h>

enum aos_policy {
    AOS_POLICY_FIFO = 0,
    AOS_POLICY_FAIR = 1,
};

#define AOS_POLICY_DEFAULT AOS_POLICY_FAIR

/* Parses "fifo" or "fair". Returns 0, or -EINVAL for anything else. */
int aos_policy_parse(const char *name, enum aos_policy *out);
const char *aos_policy_name(enum aos_policy policy);

/* Set once before the server starts; read from any thread afterwards. */
void aos_policy_set(enum aos_policy policy);
enum aos_policy aos_policy_get(void);

static inline bool aos_policy_is_fair(void)
{
    return aos_policy_get() == AOS_POLICY_FAIR;
}

#endif
