/*
 * accelosd scheduler configuration (scheduler/config.c).
 *
 * Format: one `key = value` per line; `#` starts a comment anywhere; blank
 * lines are ignored; keys and values are trimmed. Keys:
 *   policy = fair | fifo
 *   slice_ms = N                 1..60000, default 4
 *   max_inflight_per_client = N  0..1000000 (0 = unlimited), default 64
 *   vgroup_timeout_ms = N        0..3600000 (0 = no timeout), default 10000
 *   anticipate_us = N            0..1000000 (0 = off), default 1000: how long the device waits
 *                                for a client's next launch, queued behind its last one or
 *                                expected from its habit of sending the next at once
 *   anticipate_lead_us = N       0..1000000, default 500: a client whose next launch is already
 *                                queued behind the one that ended is waited for while at most
 *                                N us ahead of the next ready client in virtual time
 *                                (aos_sched_hold_allowed)
 *   hold_charge_pct = N          1..100, default 100: the time the idle device is held for a
 *                                client's next launch is charged to that client at N % of
 *                                whole-device time (docs/scheduler.md §6, *Anticipation*)
 *   response_floor_us = N        0..1000000 (0 = off), default 60: while other clients are
 *                                present, a wave's slice shrinks toward their shortest launch,
 *                                not below N us x other clients present (aos_sched_response_slice)
 *   lone_slice_ms = N            0..60000 (0 = off), default 16: while no other client is
 *                                present, a wave of code timed before grows to N ms
 *                                (aos_sched_lone_slice)
 *   solo_native_us = N           0..1000000 (0 = off), default 2000: a launch expected to take
 *                                at most N us runs natively while its client has the device
 *                                to itself (no other client that launched on it connected);
 *                                those in flight together at most a lone slice; also while
 *                                the device is held for it, up to its response slice
 *   rejoin_credit_us = N         0..1000000 (0 = none), default 16000: a client that comes back
 *                                to the device keeps the lag behind the others it had, up to N us
 *                                of whole-device time (aos_sched_vt_set_rejoin_credit)
 *   cut_quantum_us = N           0..1000000 (0 = off), default 1000: a direct wave of a kernel
 *                                whose groups take at least AOS_CUT_MIN_GROUP_NS is cut at a
 *                                group boundary once another client's ready launch is N us of
 *                                device time behind it; while others are present such waves
 *                                are sized to at least N us (docs/scheduler.md §6, *Cut waves*)
 *   wave_shape = auto | loop | direct   how elastic waves run (docs/scheduler.md);
 *                                auto (default): direct on CPU devices, loop elsewhere
 *   cpu_loop_align = N           0, or a power of two from 16 to 128; default 32: innermost
 *                                loops of the kernels CPU devices compile in the daemon (PoCL)
 *                                start at N-byte boundaries; 0 keeps LLVM's own (16 on x86)
 *                                (aos_jit_set_host_loop_align, accelos/jit.h)
 *   weight.<uid or client name> = N   1..1000 (unlisted clients weigh 1)
 * Each key may appear once (each weight.<client> once).
 *
 * The daemon refuses to start on any error and prints every one: the parser
 * does not stop at the first bad line, it records up to
 * AOS_SCHED_CONFIG_MAX_ERRORS of them with their line numbers.
 *
 * Ownership: the config owns its weight table; release it with
 * aos_sched_config_release(). A failed parse leaves the config untouched.
 */
#ifndef ACCELOS_SCHED_CONFIG_H
#define ACCELOS_SCHED_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "accelos/sched.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AOS_SCHED_CONFIG_MAX_ERRORS 16
#define AOS_SCHED_CONFIG_MAX_CLIENT 64 /* bytes of a client name, NUL included */

struct aos_sched_config_weight {
	char client[AOS_SCHED_CONFIG_MAX_CLIENT]; /* all digits: a uid; otherwise a client name */
	uint32_t weight;
	unsigned line;                             /* where it was set, for messages */
};

/* Solo launches up to 2 ms (docs/scheduler.md §6): an application alone pays what it pays
 * natively for its short launches, and a client that arrives waits at most that long. */
#define AOS_SCHED_SOLO_NATIVE_US_DEFAULT 2000u

/* Waves of a launch alone up to 16 ms (docs/scheduler.md §6, *Lone waves*): 4 ms waves cost a
 * lone long kernel about 10 % on PoCL (a hand-off each); a client that arrives waits at most that. */
#define AOS_SCHED_LONE_SLICE_MS_DEFAULT 16u

/* A returning client keeps up to 16 ms of lag (docs/scheduler.md §3, *Rejoin credit*): a client
 * that leaves between launches for host work keeps its place; a client back from idling may run
 * at most that long before the others get a turn. */
#define AOS_SCHED_REJOIN_CREDIT_US_DEFAULT 16000u

/* Cut waves (docs/scheduler.md §6): a client a millisecond behind the running direct wave's
 * client takes the device at the wave's next group boundary; the wave is sized to at least that. */
#define AOS_SCHED_CUT_QUANTUM_US_DEFAULT 1000u

/* A hold of the idle device is charged in full (docs/scheduler.md §6, *Anticipation*): holding
 * cannot idle the device for free. Half made 2-kernel mixes fairer and 4-kernel mixes less fair
 * (bench/RESULTS.md §4, session 52), so it is the operator's choice, not the default. */
#define AOS_SCHED_HOLD_CHARGE_PCT_DEFAULT 100u

/* How the waves of an elastic launch run on a device. */
enum aos_wave_shape {
	AOS_WAVE_SHAPE_AUTO,   /* direct on CPU devices, loop elsewhere */
	AOS_WAVE_SHAPE_LOOP,   /* persistent loop: each physical group dequeues virtual groups */
	AOS_WAVE_SHAPE_DIRECT, /* direct kernel: one virtual group per physical group, whole-device waves */
};

/* Whether launches under `shape` run in the direct shape on a device that is (is_cpu) or is not a
 * CPU. auto: direct on CPU devices, where the persistent loop's dequeue and barrier stop the
 * device compiler from vectorizing across work-items; the loop elsewhere, where kernels run side
 * by side. The daemon (accelosd/launch.c) and the JIT benchmark both ask here. */
static inline int aos_wave_shape_runs_direct(enum aos_wave_shape shape, int is_cpu)
{
	return shape == AOS_WAVE_SHAPE_DIRECT || (shape == AOS_WAVE_SHAPE_AUTO && is_cpu);
}

struct aos_sched_config {
	enum aos_sched_policy_id policy;
	enum aos_wave_shape wave_shape;
	uint32_t slice_ms;
	uint32_t max_inflight_per_client; /* 0 = unlimited */
	uint32_t vgroup_timeout_ms;       /* 0 = no timeout */
	uint32_t anticipate_us;           /* 0 = off */
	uint32_t anticipate_lead_us;      /* 0: only while not ahead */
	uint32_t hold_charge_pct;         /* 1..100 */
	uint32_t response_floor_us;       /* 0 = off */
	uint32_t lone_slice_ms;           /* 0 = off: slice_ms */
	uint32_t solo_native_us;          /* 0 = off */
	uint32_t rejoin_credit_us;        /* 0 = none */
	uint32_t cpu_loop_align;          /* bytes; 0 = LLVM's own */
	uint32_t cut_quantum_us;          /* 0 = off: direct waves are never cut */
	struct aos_sched_config_weight *weights; /* owned; n_weights entries */
	size_t n_weights;
};

struct aos_sched_config_error {
	unsigned line;    /* 1-based; 0 = the file as a whole (cannot open, too large) */
	char reason[160];
};

struct aos_sched_config_errors {
	size_t count; /* errors found; only the first AOS_SCHED_CONFIG_MAX_ERRORS are stored */
	struct aos_sched_config_error e[AOS_SCHED_CONFIG_MAX_ERRORS];
};

/* Defaults: fair, 4 ms slices, 64 in flight per client, 10 s virtual-group timeout, 1 ms
 * anticipation with a 500 us lead for queued launches, 60 us response floor, 16 ms lone slices,
 * solo launches up to 2 ms, 16 ms of lag kept on rejoining, 32-byte loops on CPU devices, no
 * weights. */
void aos_sched_config_init(struct aos_sched_config *cfg);
void aos_sched_config_release(struct aos_sched_config *cfg);

/* The lone slice of cfg in ns (aos_sched_lone_slice of its slice_ms and lone_slice_ms): the
 * longest a client that arrives waits for what a client alone has on the device. */
uint64_t aos_sched_config_lone_ns(const struct aos_sched_config *cfg);

/*
 * Parses `len` bytes of `text` (need not be NUL-terminated) over the values
 * already in cfg. Returns 0; -EINVAL with errs filled (count >= 1) on any
 * bad line, leaving cfg unchanged; -ENOMEM. `errs` may be NULL.
 */
int aos_sched_config_parse(struct aos_sched_config *cfg, const char *text, size_t len,
			   struct aos_sched_config_errors *errs);
/* Reads and parses a file (at most 1 MiB). As parse, plus -errno when the file
 * cannot be read (reported as line 0). */
int aos_sched_config_load(struct aos_sched_config *cfg, const char *path, struct aos_sched_config_errors *errs);

/* Weight of a client: weight.<uid> if set, else weight.<name>, else 1. `name` may be NULL. */
uint32_t aos_sched_config_weight(const struct aos_sched_config *cfg, uint32_t uid, const char *name);

#ifdef __cplusplus
}
#endif
#endif
