/*
 * Solo launches (policy fair, `solo_native_us`): a short launch of a client that has the device to
 * itself runs natively on the application's queue, without the gate, user event and wave of a
 * logical launch. Nobody waits for it: no other client connected has launched on the device,
 * none has a logical launch in flight there, and the solo launches in flight are expected to take
 * no longer than a lone wave together (lone_slice_ms, at least solo_native_us), as long as a
 * client that arrives would wait for the running wave of a launch alone. docs/scheduler.md §6, *Solo
 * launches*.
 */
#ifndef ACCELOSD_SOLO_H
#define ACCELOSD_SOLO_H

#include <stdbool.h>
#include <stdint.h>

#include "native.h"

struct aos_solo_claim;

/* The outcome a solo launch's application event reports beside its real events: reference
 * counted, held by the launch until it ends and by the application's event id. */
struct aos_solo_fate;

/* A launch of s's on device of virtual_groups groups, of the code behind code_key (the scheduler's
 * estimate key), expected to take expected_ns, may run natively now: returns the claim it holds
 * until aos_solo_started(), else NULL. Code whose solo launches ran far past their estimate twice
 * never runs solo again (accelos/code_strikes.h). A launch that had the device to itself, with
 * nothing of its client's ahead of it, tells the scheduler the code's speed alone
 * (aos_device_sched_solo_alone). It counts against the client's in-flight limit
 * (max_inflight_per_client) and holds a reference to s. Service thread of s. */
struct aos_session;
struct aos_solo_claim *aos_solo_claim(struct aos_session *s, uint32_t device, uint64_t code_key, uint64_t virtual_groups,
                                      uint64_t expected_ns);

/* The claimed launch was enqueued as ev (the claim ends when ev completes), or failed to enqueue
 * (ev NULL: the claim ends now). user (one reference, taken over; NULL when ev is) is the user
 * event the application's waits go to: it completes with ev, or fails with CL_OUT_OF_RESOURCES
 * when the launch runs past allowance_ns (0: no limit; the runaway rule, docs/scheduler.md §6),
 * which also keeps its code from running solo again. cold: the launch may also time the device's
 * compile, so running far past its estimate is no strike against its code. Returns the
 * launch's fate (one reference) for the application's event, NULL without ev or memory. Frees
 * the claim. */
struct aos_solo_fate *aos_solo_started(struct aos_solo_claim *claim, cl_event ev, cl_event user,
                                       uint64_t allowance_ns, bool cold);

/* The error the launch was aborted with (CL_OUT_OF_RESOURCES), else 0: its kernel command's own
 * status is then the application event's. */
cl_int aos_solo_fate_failed(const struct aos_solo_fate *f);
void aos_solo_fate_unref(struct aos_solo_fate *f);

/* A logical launch of s (client) on device was submitted / ended: the device is contended
 * meanwhile for every other client (s also counts as present there until it has gone). */
void aos_solo_logical_begin(struct aos_session *s, uint32_t device);
void aos_solo_logical_end(uint32_t device, uint64_t client);

/* The client whose solo launches are in flight on device, 0 when none. No other client's wave
 * starts until they end (the last one to end nudges the device's scheduler), so a client
 * arriving meanwhile cannot put a whole-device wave in front of them; the owner's own launches
 * go on, since its solo launches may wait behind them on its queue. At most the expected time of
 * the solo launches in flight (solo_native_us at least) after the owner's last solo claim: a solo
 * launch held back on its queue (behind a user event, say) cannot keep the others waiting (the
 * scheduler thread re-plans on its poll). */
uint64_t aos_solo_owner(uint32_t device);

/* The client's session ended: it no longer makes the devices it launched on contended. */
void aos_solo_client_gone(struct aos_session *s);

#endif
