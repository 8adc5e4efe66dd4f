/*
 * accelOS scheduling core (scheduler/, static library accelos_sched).
 *
 * Pure arithmetic: nothing here calls OpenCL. The daemon reads the numbers
 * (clGetDeviceInfo, clGetKernelWorkGroupInfo, measured event times), feeds
 * them in, and launches what comes back. That keeps every decision testable
 * with tables, without a device. Design and equations: docs/scheduler.md.
 *
 * Units, everywhere in this header:
 *   threads    work-items (rounded up to the device's thread granule, e.g.
 *              a warp of 32 on NVIDIA, when counted against residency);
 *   local mem  bytes;
 *   registers  32-bit registers;
 *   groups     work-groups (physical unless named "virtual");
 *   time       nanoseconds, except the *_ms configuration values.
 * Device-wide totals are compute units x per-compute-unit residency
 * (aos_sched_device_totals()); the share solver works on those totals, as
 * §3 of the accelOS paper does.
 *
 * Ownership: aos_sched_vt_new() returns an object the caller frees with
 * aos_sched_vt_destroy(). Everything else works on caller-owned structs and
 * allocates nothing. Functions returning int return 0 or a negative errno.
 */
#ifndef ACCELOS_SCHED_H
#define ACCELOS_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Resource model (scheduler/resource_model.c)                              */
/* ------------------------------------------------------------------------ */

/* CL_DEVICE_TYPE bits, repeated so this header needs no CL headers (a unit
 * test checks they equal CL/cl.h's). */
#define AOS_SCHED_CL_TYPE_CPU (UINT64_C(1) << 1)
#define AOS_SCHED_CL_TYPE_GPU (UINT64_C(1) << 2)
#define AOS_SCHED_CL_TYPE_ACCELERATOR (UINT64_C(1) << 3)

enum aos_sched_dev_kind {
	AOS_SCHED_DEV_OTHER = 0,
	AOS_SCHED_DEV_CPU = 1,
	AOS_SCHED_DEV_GPU = 2,
	AOS_SCHED_DEV_ACCELERATOR = 3,
};

/* What the daemon reads from the device; zero / NULL means "not reported". */
struct aos_sched_device_info {
	uint64_t type;                /* CL_DEVICE_TYPE bits */
	const char *vendor;           /* CL_DEVICE_VENDOR */
	const char *name;             /* CL_DEVICE_NAME (informational) */
	uint32_t compute_units;       /* CL_DEVICE_MAX_COMPUTE_UNITS */
	uint64_t local_mem_size;      /* CL_DEVICE_LOCAL_MEM_SIZE, bytes per work-group */
	uint64_t max_work_group_size; /* CL_DEVICE_MAX_WORK_GROUP_SIZE, work-items */
	/* cl_nv_device_attribute_query; all 0 when the extension is absent. */
	uint32_t nv_cc_major;         /* CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV */
	uint32_t nv_cc_minor;         /* CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV */
	uint32_t nv_regs_per_block;   /* CL_DEVICE_REGISTERS_PER_BLOCK_NV */
	uint32_t nv_warp_size;        /* CL_DEVICE_WARP_SIZE_NV */
};

/*
 * The device as the solver sees it. Residency (cu_*) is what one compute unit
 * holds at once, summed over all work-groups resident on it; the wg_* limits
 * are what a single work-group may ask for. OpenCL reports only the latter,
 * so residency comes from the architecture table (or a conservative guess).
 */
struct aos_sched_device {
	enum aos_sched_dev_kind kind;
	uint32_t compute_units;
	uint32_t cu_threads;       /* resident work-items per CU */
	uint32_t cu_groups;        /* resident work-groups per CU */
	uint64_t cu_local_mem;     /* local memory per CU, bytes */
	uint32_t cu_registers;     /* registers per CU; 0 = unknown (registers never bind) */
	uint32_t wg_max_threads;   /* CL_DEVICE_MAX_WORK_GROUP_SIZE */
	uint64_t wg_max_local_mem; /* CL_DEVICE_LOCAL_MEM_SIZE */
	uint32_t wg_max_registers; /* registers one work-group may use; 0 = unknown */
	uint32_t thread_granule;   /* threads are allocated in units of this (warp size; 1 = none) */
	uint32_t reg_granule;      /* registers per thread granule are rounded up to this (1 = none) */
	char arch[16];             /* table row used ("sm_80", "cpu", "gpu-generic", ...) */
	int arch_exact;            /* 1: the row matches the device exactly; 0: nearest row or a guess */
};

/* Device-wide totals the share equations use: compute units x per-CU values. */
struct aos_sched_totals {
	uint64_t threads;   /* T */
	uint64_t local_mem; /* L, bytes */
	uint64_t registers; /* R; 0 = unknown */
	uint64_t groups;    /* G, resident work-groups */
};

/*
 * Fills `dev` from what the device reports plus the architecture table:
 * NVIDIA with a compute capability: that sm's residency (nearest lower minor
 * of the same major when the exact one is not in the table); CPU and
 * accelerator devices (PoCL): one resident work-group per compute unit;
 * other GPUs: a conservative guess (arch "gpu-generic", arch_exact 0).
 * -EINVAL when info is NULL or reports no compute units / work-group size.
 */
int aos_sched_device_from_info(const struct aos_sched_device_info *info, struct aos_sched_device *dev);

/* A device model straight from a table row ("sm_35", "sm_90", "cpu") and a
 * CU count, for tests and offline what-if runs. -ENOENT if the row is unknown. */
int aos_sched_device_from_arch(const char *arch, uint32_t compute_units, struct aos_sched_device *dev);

/* 0 if the model is usable by the solver (non-zero residency, granules >= 1,
 * values small enough that no product overflows), else -EINVAL. */
int aos_sched_device_check(const struct aos_sched_device *dev);

void aos_sched_device_totals(const struct aos_sched_device *dev, struct aos_sched_totals *t);

/* Name of the architecture table's row i, NULL past the end (for help output). */
const char *aos_sched_arch_name(size_t i);

/* ------------------------------------------------------------------------ */
/* Share solver (scheduler/share.c)                                         */
/* ------------------------------------------------------------------------ */

/* One kernel launch competing for the device. */
struct aos_sched_kernel {
	uint32_t wg_threads;      /* work-items per work-group (product of the local size) */
	uint64_t local_mem;       /* bytes per work-group: static __local plus __local arguments */
	uint32_t regs_per_thread; /* 0 = unknown: registers do not bind for this kernel */
	uint64_t total_groups;    /* virtual groups still to run; physical groups never exceed it */
	double weight;            /* client weight; <= 0 (or NaN) means 1, i.e. equal shares */
	uint64_t arrival;         /* arrival sequence number: FIFO order and fair ties */
	double vtime;             /* the client's virtual time (aos_sched_vt_get): fair order */
};

/* Which resource bounded a kernel (eq_limit, limit) or cannot hold one of its
 * work-groups (UNFIT). */
enum aos_sched_limit {
	AOS_SCHED_LIMIT_NONE = 0,
	AOS_SCHED_LIMIT_THREADS = 1,   /* resident work-items */
	AOS_SCHED_LIMIT_LOCAL_MEM = 2, /* local memory */
	AOS_SCHED_LIMIT_REGISTERS = 3, /* register file */
	AOS_SCHED_LIMIT_GROUPS = 4,    /* resident work-groups */
	AOS_SCHED_LIMIT_WG_SIZE = 5,   /* work-group larger than CL_DEVICE_MAX_WORK_GROUP_SIZE */
	AOS_SCHED_LIMIT_VGROUPS = 6,   /* the kernel has no more virtual groups to give */
};
const char *aos_sched_limit_name(enum aos_sched_limit l);

enum aos_sched_status {
	AOS_SCHED_RUN = 0,   /* launch now with `groups` physical work-groups */
	AOS_SCHED_WAIT = 1,  /* device full at one work-group per kernel: wait for a later round */
	AOS_SCHED_UNFIT = 2, /* one work-group can never fit this device (limit says why) */
};
const char *aos_sched_status_name(enum aos_sched_status s);

struct aos_sched_share {
	enum aos_sched_status status;
	uint64_t groups;              /* physical work-groups to launch; 0 unless RUN */
	uint64_t eq_groups;           /* min(x, y, z, g) of the §3 equations, before clamping and fill */
	enum aos_sched_limit eq_limit;/* the term that gave eq_groups */
	enum aos_sched_limit limit;   /* RUN: why it got no more; UNFIT: what cannot hold one group;
				       * WAIT: the resource that is full (NONE: it would fit but
				       * waits behind an earlier kernel) */
	double share;                 /* dominant fraction of the device held, 0..1 (for vt_charge) */
};

/*
 * Work-groups of `k` the whole device holds when it runs alone (per-CU
 * occupancy x compute units); 0 when one work-group cannot fit, with *why set
 * to the resource at fault. `why` may be NULL.
 */
uint64_t aos_sched_kernel_occupancy(const struct aos_sched_device *dev, const struct aos_sched_kernel *k,
				    enum aos_sched_limit *why);

/*
 * §3 share solver. `order` lists the n kernel indices in service order (NULL:
 * 0..n-1); out[i] is the answer for k[i].
 *   1. UNFIT kernels are set aside; the rest are admitted in order while one
 *      work-group each still fits; from the first that does not fit on, all
 *      WAIT (no overtaking, so a big kernel cannot be starved).
 *   2. For the K admitted, with f_i = weight_i / sum of weights (1/K by default):
 *      x_i = f_i T / w_i, y_i = f_i L / m_i, z_i = f_i R / r_i, g_i = f_i G;
 *      eq_groups = floor(min(...)), then at least 1, at most
 *      min(total_groups, occupancy); trimmed if the forced 1s overflow.
 *   3. Greedy fill: one group at a time to the kernel with the smallest
 *      dominant share / weight that still fits, until the device is saturated.
 * Returns 0, or -EINVAL (NULL pointers, invalid device, a kernel with zero
 * wg_threads or total_groups, or `order` not a permutation).
 */
int aos_sched_share_solve(const struct aos_sched_device *dev, const struct aos_sched_kernel *k, size_t n,
			  const size_t *order, struct aos_sched_share *out);

/* ------------------------------------------------------------------------ */
/* Virtual-time picker and slice budget (scheduler/vtime.c)                 */
/* ------------------------------------------------------------------------ */

/*
 * Fair queueing over clients (or kernels; `id` is the caller's key). Each
 * entity's virtual time grows by device_ns x share / weight when charged; the
 * next to run is the active one with the lowest virtual time, ties by arrival.
 * The system virtual time is the minimum over active entities and never goes
 * back; an entity that joins starts at max(its own, system - lag), where lag
 * is how far behind the system it was when it left, at most the rejoin credit
 * (0 unless set), so idle periods earn no credit (Neon's Disengaged Fair
 * Queueing, steps 1-2) but a short absence does not cost the lag it had; one
 * that leaves keeps its virtual time so leaving cannot shed a debt.
 */
struct aos_sched_vt;

struct aos_sched_vt *aos_sched_vt_new(void); /* NULL + errno on failure */
void aos_sched_vt_destroy(struct aos_sched_vt *vt);

/* The most lag behind the system virtual time (ns of whole-device use) an
 * entity keeps across leave and join: it rejoins as far behind the system as
 * it was when it left, up to this; a new entity starts at the system virtual
 * time. 0 (the default): none kept. -EINVAL if vt is NULL. */
int aos_sched_vt_set_rejoin_credit(struct aos_sched_vt *vt, uint64_t credit_ns);
/* Becomes active, with a new arrival number. -EEXIST if already active. */
int aos_sched_vt_join(struct aos_sched_vt *vt, uint64_t id, double weight);
/* Becomes inactive; its virtual time is remembered. -ENOENT if not active. */
int aos_sched_vt_leave(struct aos_sched_vt *vt, uint64_t id);
/* Drops all state of `id` (client disconnected). -ENOENT if unknown. */
int aos_sched_vt_forget(struct aos_sched_vt *vt, uint64_t id);
/* Weight <= 0 (or NaN) means 1. -ENOENT if unknown. */
int aos_sched_vt_set_weight(struct aos_sched_vt *vt, uint64_t id, double weight);
/* Adds device_ns x share / weight; share is the fraction of the device held
 * (aos_sched_share.share), 0..1. Inactive entities may be charged (a slice
 * that finishes after leave). -ENOENT unknown, -EINVAL share out of range. */
int aos_sched_vt_charge(struct aos_sched_vt *vt, uint64_t id, uint64_t device_ns, double share);

/* Writes up to `cap` active ids, lowest virtual time first (ties: earliest
 * arrival); returns how many are active. */
size_t aos_sched_vt_order(const struct aos_sched_vt *vt, uint64_t *ids, size_t cap);
/* The next to run. -ENOENT if nothing is active. */
int aos_sched_vt_pick(const struct aos_sched_vt *vt, uint64_t *id);
/* Virtual time and arrival of `id` (either may be NULL). -ENOENT if unknown. */
int aos_sched_vt_get(const struct aos_sched_vt *vt, uint64_t id, double *vtime, uint64_t *arrival);
/* The virtual time `id` has, or would have if it joined now (a newcomer: the system's). For a
 * client whose next launch has not become ready yet. */
double aos_sched_vt_joining(const struct aos_sched_vt *vt, uint64_t id);
/* System virtual time (ns of whole-device use per unit weight). */
double aos_sched_vt_now(const struct aos_sched_vt *vt);
/* Entities remembered, active or not (each until forget). */
size_t aos_sched_vt_count(const struct aos_sched_vt *vt);

/*
 * Neon's denial rule for time slicing: a kernel whose virtual time (vtime) is
 * more than `window` above the lowest among the n kernels is held back from
 * the next round, so every backlogged client's service follows its weight
 * over time (without the rule, a heavy client on a device that holds fewer
 * kernels than are active could never take more than one kernel's place).
 * Kernels with running[i] set are never held: they occupy the device until
 * their slice ends. Sets held[i]; returns how many are held. `running` may be
 * NULL; a negative or NaN window is 0.
 */
size_t aos_sched_hold_ahead(const struct aos_sched_kernel *k, size_t n, const bool *running, double window,
			    bool *held);

/*
 * A round of the fair policy (scheduler/fair_round.c):
 * aos_sched_share_solve() over the kernels aos_sched_hold_ahead() does not
 * hold back; held kernels get AOS_SCHED_WAIT (limit NONE). When every kernel left is short of virtual
 * groups rather than of room, all n are solved instead, so the rule never
 * idles the device. Same arguments and errors as aos_sched_share_solve(),
 * plus -ENOMEM.
 */
int aos_sched_fair_round(const struct aos_sched_device *dev, const struct aos_sched_kernel *k, size_t n,
			 const size_t *order, const bool *running, double window, struct aos_sched_share *out);

#define AOS_SCHED_SLICE_MS_DEFAULT 4u

/*
 * Virtual groups to hand out for the next slice: slice_ns / ns_per_vgroup,
 * at least 1 and at most `remaining` (0 only when remaining is 0).
 * ns_per_vgroup is measured throughput with the current physical group count
 * (device time of the last slice / virtual groups it completed); when it is
 * unknown (<= 0, NaN, inf), `probe` groups are handed out (at least 1) so
 * the first slice measures it. Set the launch's vndrange budget to
 * next + this value.
 */
uint64_t aos_sched_slice_vgroups(double ns_per_vgroup, uint64_t slice_ns, uint64_t remaining, uint64_t probe);

/*
 * A wave's virtual groups rounded up to whole rounds of its `groups` physical
 * groups (compute units for a direct wave), at most `remaining`. V virtual
 * groups of about equal cost on G groups take ceil(V/G) rounds, so the rest of
 * the last round is free: 3 groups of 8 ms on 2 compute units take 16 ms, as
 * 4 do, and left one unit idle for 8 ms (mri-q's ComputeQ_GPU alone ran 1.25x
 * slower than natively in such waves). groups 0 or 1: vgroups unchanged.
 */
uint64_t aos_sched_whole_rounds(uint64_t vgroups, uint64_t groups, uint64_t remaining);

/*
 * A wave's virtual groups with the launch's tail taken along: when what would be left after the
 * wave is at most 1/AOS_SCHED_TAIL_DIV of it, the wave takes all `remaining`. A short last wave
 * costs a whole hand-off and a turn of every other client before it, and the launch's end (its
 * client's next host step) waits for them; taken now, it keeps the others waiting at most that
 * fraction of a wave longer (bench/RESULTS.md §4, session 46).
 */
#define AOS_SCHED_TAIL_DIV 2u
uint64_t aos_sched_with_tail(uint64_t vgroups, uint64_t remaining);

/*
 * Device time to charge to virtual time for a wave of device_ns that ran `ran`
 * virtual groups, `together` at a time, of a kernel whose virtual group takes
 * alone_one ns on one compute unit while no other client is present (0:
 * unknown): what the wave would have taken alone, at least half of device_ns
 * and at most all of it. On a CPU device the host's load slows the device, and
 * some kernels much more than others (2x for some beside seven clients); equal
 * device time is then not equal progress (bench/RESULTS.md §4, session 42).
 */
uint64_t aos_sched_progress_charge(uint64_t device_ns, double alone_one, uint64_t ran, uint64_t together);

/*
 * Compute units a direct wave may hold (the direct shape runs one work-group per
 * virtual group, and the device hands a free compute unit to whichever kernel
 * has work-groups left). Normally all of them: waves take the device in turns.
 * When one virtual group takes longer than a slice on one compute unit
 * (ns_per_vgroup_one > slice_ns) and other clients are present, a turn would
 * make them wait more than a slice, so the wave leaves one compute unit free
 * and theirs run beside it. Never more than `remaining`, at least 1 while any
 * remains.
 */
uint32_t aos_sched_direct_width(uint32_t compute_units, double ns_per_vgroup_one, uint64_t slice_ns,
				bool others_present, uint64_t remaining);

/*
 * The slice a wave is sized to while `others` other clients are present: about
 * the device time of the shortest of their launches (`shortest_ns`), so that
 * a client of short launches, which waits for the running wave to end, waits
 * no longer than its own launch runs; never below floor_one_ns x others
 * (each wave costs a hand-off, and every present client's wave comes between
 * two of this one's: with short launches running natively while the device
 * is held for them, three others at 0.75 ms measured fairer than at 2.25 ms),
 * never above slice_ns.
 * slice_ns when others is 0, shortest_ns is 0 (unknown) or floor_one_ns is 0
 * (off).
 */
uint64_t aos_sched_response_slice(uint64_t slice_ns, uint64_t shortest_ns, uint32_t others,
				  uint64_t floor_one_ns);

/*
 * The slice a wave is sized to while no other client is present: lone_ns.
 * Nobody waits for such a wave, and each wave costs a hand-off (on PoCL's CPU
 * device about 0.3 ms: the workers idle while the end is seen and the next
 * wave enqueued), so a launch alone runs in fewer, longer waves; a client
 * that arrives waits at most lone_ns for the running one. Never below
 * slice_ns; slice_ns when lone_ns is 0 (off).
 */
uint64_t aos_sched_lone_slice(uint64_t slice_ns, uint64_t lone_ns);

/*
 * Anticipation: whether the device may stay idle for a client's expected
 * launch, given its virtual time and that of the next ready client. Only
 * while it is not ahead, so holding cannot take the device from a client that
 * is owed it; but when its next launch is already queued behind the one that
 * just ended, while at most lead_ns ahead: that launch is ready within
 * microseconds, and without the hold it waits a whole wave of the other
 * client's after every launch of its own that put it just ahead (4 and 8
 * kernel mixes on the CPU device, bench/RESULTS.md §4 session 26).
 */
bool aos_sched_hold_allowed(double client_vtime, double next_vtime, bool next_queued, uint64_t lead_ns);

/* ------------------------------------------------------------------------ */
/* Policies (scheduler/policy.c)                                            */
/* ------------------------------------------------------------------------ */

/* Numbered explicitly: configuration and logs refer to them. A priority
 * policy would be a new id whose plan orders by class first, then vtime. */
enum aos_sched_policy_id {
	AOS_SCHED_POLICY_FAIR = 0, /* default: elastic kernels, §3 shares, virtual-time order */
	AOS_SCHED_POLICY_FIFO = 1, /* no transformation: native request, arrival order */
};

struct aos_sched_policy {
	enum aos_sched_policy_id id;
	const char *name;
	int elastic; /* 1: launches go through the JIT rewrite and get solver shares */
	/* Fills order[0..n-1] with kernel indices in service order and out[i] per
	 * kernel. Same return values as aos_sched_share_solve(). */
	int (*plan)(const struct aos_sched_device *dev, const struct aos_sched_kernel *k, size_t n,
		    size_t *order, struct aos_sched_share *out);
};

/* NULL if the name / id is unknown. Names are lowercase ("fair", "fifo"). */
const struct aos_sched_policy *aos_sched_policy_by_name(const char *name);
const struct aos_sched_policy *aos_sched_policy_get(enum aos_sched_policy_id id);
/* "fair, fifo": for error messages and --help. */
const char *aos_sched_policy_names(void);

#ifdef __cplusplus
}
#endif
#endif
