/*
 * Which code may still run solo (accelosd/solo.c, docs/scheduler.md §6): a record of the codes
 * whose solo launches ran far past their estimate. Pure bookkeeping in caller-owned memory, no
 * locking (the caller holds its own lock), tested with tables (tests/scheduler/test_code_strikes.c).
 *
 * One overrun is a strike, not a verdict: on a busy host a 60 µs launch has been seen to take
 * 5 ms once in some 60,000 when its worker thread was preempted, and the code then ran in waves
 * for the daemon's lifetime, about 1.2x slower (bench/RESULTS.md §4, session 43). Code whose run
 * time really depends on its arguments or data overruns again soon; a host's hiccup does not.
 */
#ifndef ACCELOS_CODE_STRIKES_H
#define ACCELOS_CODE_STRIKES_H

#include <stdbool.h>
#include <stdint.h>

/* Codes remembered: a ring, the oldest record is forgotten first. */
#define AOS_CODE_STRIKES_CODES 64u
/* Overruns that make code unpredictable: it never runs solo again. */
#define AOS_CODE_STRIKES_LIMIT 2u
/* Solo launches on time that take one strike back. */
#define AOS_CODE_STRIKES_FORGIVEN_AFTER 32u

struct aos_code_strike {
	uint64_t key; /* 0: an empty record */
	uint32_t strikes;
	uint32_t on_time; /* solo launches on time since the last strike or pardon */
};

/* Zero-initialised: no code has a strike. */
struct aos_code_strikes {
	struct aos_code_strike codes[AOS_CODE_STRIKES_CODES];
	uint32_t next;
};

/* True when key's code overran AOS_CODE_STRIKES_LIMIT times (or ran away): no more solo launches. */
bool aos_code_strikes_unpredictable(const struct aos_code_strikes *t, uint64_t key);

/* A solo launch of key's code ran far past its estimate: one strike. Returns true when that
 * made the code unpredictable. */
bool aos_code_strikes_overran(struct aos_code_strikes *t, uint64_t key);

/* A launch of key's code ran past the virtual-group limit: unpredictable at once. */
void aos_code_strikes_ran_away(struct aos_code_strikes *t, uint64_t key);

/* A solo launch of key's code ended within its estimate's bounds: every
 * AOS_CODE_STRIKES_FORGIVEN_AFTER of them in a row take one strike back (not from code already
 * unpredictable). */
void aos_code_strikes_on_time(struct aos_code_strikes *t, uint64_t key);

#endif
