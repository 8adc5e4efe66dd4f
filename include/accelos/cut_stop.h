/*
 * The host's side of stopping a cut wave (docs/scheduler.md §6, *Cut waves*): the stop bit in a
 * wave's claim record (struct aos_cut, accelos/vndrange.h), and when to ask again for a cut that
 * could not be sent yet. Pure, tested with tables (tests/scheduler/test_cut_stop.c); the caller
 * owns the record's memory and its own locking.
 *
 * The stop bit is set only once the launch's claims have shown in host memory, in this wave or an
 * earlier one: where the record is a copy of the device's (no zero-copy), a stale `claimed` must
 * never say that a group did not run. A wave's first claim shows some 40 µs after its enqueue on
 * PoCL; a cut asked for before that is asked again (until session 44 it was dropped, and the
 * wave ran out, up to a slice, in front of the command or launch it was for).
 */
#ifndef ACCELOS_CUT_STOP_H
#define ACCELOS_CUT_STOP_H

#include <stdbool.h>
#include <stdint.h>

/* The first ask again, this long after the one that could not be sent. */
#define AOS_CUT_RETRY_NS 50000ull

/* Sets AOS_CUT_STOP in *claimed (atomically: the device raises it meanwhile) and returns true,
 * unless it is set already or nothing proves that claims reach the host: no claim of this wave
 * shows and *proven (a claim of the launch's showed before) is false. Any claim seen sets
 * *proven. */
bool aos_cut_stop(uint32_t *claimed, bool *proven);

/* How long after an ask that could not be sent to ask again, the wave enqueued wave_age_ns ago:
 * AOS_CUT_RETRY_NS, or a quarter of the wave's age once that is longer, so that a device whose
 * claims never show is asked a few dozen times a wave, not thousands. */
uint64_t aos_cut_retry_in_ns(uint64_t wave_age_ns);

#endif
