/*
 * The device scheduler's own state and the functions its files share (accelosd/dsched_*.c and
 * device_sched.c); nothing outside the device scheduler includes this. Which file does what:
 * docs/scheduler.md, section 6 (*Where it lives*).
 *
 * Scheduling state is owned by whoever holds a device's step_lock (device_sched.c): every
 * function below that takes a struct device_sched runs under it, unless it says "any thread".
 */
#ifndef ACCELOSD_DSCHED_H
#define ACCELOSD_DSCHED_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "accelos/estimates.h"
#include "accelos/sched.h"
#include "device_sched.h"
#include "event_park.h"
#include "logical.h"

#define COMPILE_SLOWDOWN 4.0      /* a new kernel's wave this much slower than its code's record: a compile */
#define COMPILE_WAVES 2u            /* at most so many per launch (the origin box, the first one off it) */
#define COMPILE_ALLOWANCE_NS 10000000000ull /* the watchdog's extra time for a wave that may compile */
#define WAVE_GROWTH 4u               /* a wave hands out at most this many times the last one's groups */
#define RECENT_ENDS 8u               /* clients whose last launch ended lately */
#define RUNAWAY_STATUS CL_OUT_OF_RESOURCES
#define CANCELLED_STATUS CL_OUT_OF_RESOURCES

struct run_queue {
    struct run_queue *next;
    cl_context context;
    cl_command_queue queue;
};

/* A command of client's enqueued at ns while a wave ran (aos_device_sched_command_waits). */
struct command_note {
    uint64_t client, ns;
};

struct recent_end {
    uint64_t client, ns;
    bool lingering; /* still active in virtual time: its next launch is expected (anticipation) */
    uint64_t hold_ns;  /* while lingering: how long after ns the device may wait for it */
    uint64_t think_ns; /* smoothed gap from its launches' ends to its next arrivals; 0 = unknown */
    uint64_t waves_at_end;  /* the device's wave count at ns: another client's wave in the gap changes it */
    uint32_t unclear_gaps;  /* gaps in a row that another client's wave ran in */
    uint64_t launch_ns;     /* its launches' device time (waves summed), halved toward each new one */
    uint64_t command_ns;    /* its last command enqueued while a wave ran here: it waits for waves too */
};

/* A solo launch of a client the device was held for (aos_device_sched_held_solo_ended). */
struct held_solo_end {
    uint64_t client, claimed_ns, ended_ns, ran_ns;
};
#define HELD_SOLO_ENDS 16u

/* A client whose session ended: forgotten once none of its launches is left on the device. */
struct gone_client {
    struct gone_client *next;
    uint64_t client;
};

/* One device's scheduler: its inbox (any thread, under lock) and its scheduling state (under
 * step_lock). */
struct device_sched {
    uint32_t index;
    const struct aos_device *dev;
    pthread_t thread;
    bool started;
    /* Held while stepping: owns every field below "Stepper only". */
    pthread_mutex_t step_lock;
    /* Inbox, under lock. */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    struct aos_logical_node *inbox, *inbox_tail;
    struct aos_logical *incoming;
    struct gone_client *gone;
    struct held_solo_end solo_ends[HELD_SOLO_ENDS];
    uint32_t solo_ends_n;
    bool poked, stopping;
    _Atomic bool has_launches; /* the stepper's list is not empty: the thread polls */
    /* Stepper only. */
    struct aos_logical *launches;
    struct run_queue *idle_queues;
    struct aos_sched_vt *vt;
    struct aos_sched_device model;
    bool have_model;
    uint64_t next_arrival;
    uint64_t waves_started;
    uint64_t waves_cuttable; /* waves started of a cuttable twin (dsched_wave_may_be_cut) */
    uint64_t waves_cut; /* waves told to stop early (cut) */
    uint64_t holds, held_ns; /* anticipation: holds started, and the time they kept the device */
    uint64_t held_charged_ns; /* the whole-device time charged for it (hold_charge_pct) */
    _Atomic uint64_t alone_measures_waves, alone_measures_solo; /* dsched_estimate_put_alone's, by source */
    _Atomic uint64_t cut_wave_client; /* client of the running cuttable wave; 0: none */
    _Atomic uint32_t waves_running;   /* waves enqueued and not ended, cuttable or not */
    _Atomic uint64_t cut_check_at_ns; /* the scheduler thread steps by then (cut_check_by); 0: no need */
    uint64_t cut_wanted_by;           /* under lock: a client whose command waits (dsched_cut_for_command) */
    struct command_note command_notes[RECENT_ENDS]; /* under lock: commands come, for recent_end */
    uint32_t command_notes_n;
    uint64_t cut_after_end; /* a client whose launch just ended with a command of its behind it */
    uint64_t cut_command_client;      /* a client whose command waits, not behind enough yet ... */
    const struct aos_logical *cut_command_wave; /* ... behind this wave's launch (identity only) */
    uint64_t compile_seen_ns; /* the last step that saw a wave running that may compile its code */
    /* Per kernel: the time per virtual group, and the speed alone from waves that started with no
     * other client present and from solo launches (accelos/estimates.h). Any thread, under
     * estimates_lock. */
    struct aos_estimates estimates;
    pthread_mutex_t estimates_lock;
    struct recent_end recent[RECENT_ENDS];
    uint32_t recent_next;
    struct gone_client *gone_pending; /* still has launches here */
    /* Anticipation: the device is held for this client's next launch until hold_until_ns. */
    uint64_t hold_client, hold_start_ns, hold_until_ns;
    _Atomic uint64_t wake_at_ns; /* the scheduler thread steps by then (0 = no hold) */
    /* The hold, published for solo claims (aos_device_sched_held_for): its client (0 = none), its
     * end, and how long a launch of the client may run natively meanwhile. */
    _Atomic uint64_t held_client, held_until_ns, held_solo_ns;
    struct aos_event_park parked; /* failed user events and gates (event_park.h) */
};

struct aos_session;

/* ---- device_sched.c: the thread, posting, launch ends, shared helpers ---------------------- */

/* The device's scheduler, NULL when it never started (nothing ever ran there). Any thread. */
struct device_sched *dsched_started(uint32_t device);
/* Wakes the device's scheduler thread to look at its inbox and timers again. Any thread. */
void dsched_wake_thread(struct device_sched *d);
/* A wave's completion callback (aos_event_when_done): posts it to the scheduler. Any thread. */
void dsched_wave_ended(cl_int status, void *data);
/* The per-kernel estimates (accelos/estimates.h), under estimates_lock. Any thread. */
double dsched_estimate_get(struct device_sched *d, uint64_t key);
void dsched_estimate_put_alone(struct device_sched *d, uint64_t key, double v, bool solo);
double dsched_estimate_alone(struct device_sched *d, uint64_t key, uint32_t *measures);
/* What a launch of virtual_groups groups of estimate_key's code takes on the whole device, and its
 * time per virtual group on one compute unit (*one); 0 when not measured yet. Any thread. */
/* Groups of a launch over virtual_groups that run at once on the whole device (one per compute
 * unit, at most virtual_groups). */
uint64_t dsched_range_width(const struct device_sched *d, uint64_t virtual_groups);
double dsched_expected_on(const struct aos_device *dev, uint64_t estimate_key, uint64_t virtual_groups, double *one);
/* A profiling queue of the scheduler's own on ctx, from the idle pool or new; NULL on failure. */
cl_command_queue dsched_queue_take(struct device_sched *d, cl_context ctx);
void dsched_queue_give_back(struct device_sched *d, cl_context ctx, cl_command_queue q);
bool dsched_is_active(const struct aos_logical *l); /* ready or running */
bool dsched_client_has_active(struct device_sched *d, const struct aos_logical *except, uint64_t client);
bool dsched_client_has_gated(struct device_sched *d, uint64_t client);
/* Completes the application's event (status CL_COMPLETE or an error) and stops scheduling l. */
void dsched_launch_end(struct device_sched *d, struct aos_logical *l, cl_int status);

/* ---- dsched_admit.c: the per-client in-flight limit ------------------------------------- */

/* s has one launch more (+1) or fewer (-1) ready or running on a device. */
void dsched_admit_active(struct aos_session *s, int delta);
/* One of s's launches has ended (was_active: it was ready or running). */
void dsched_admit_ended(struct aos_session *s, bool was_active);
/* Wakes every admission that waits, to look at its client again. Any thread. */
void dsched_admit_wake_all(void);

/* ---- dsched_presence.c: which clients were here lately ------------------------------------ */

struct recent_end *dsched_recent_of(struct device_sched *d, uint64_t client);
struct recent_end *dsched_recent_end_set(struct device_sched *d, uint64_t client, uint64_t ended_ns, uint64_t hold_ns);
bool dsched_others_present(struct device_sched *d, const struct aos_logical *l, uint64_t slice_ns);
uint64_t dsched_response_slice(struct device_sched *d, uint64_t client, uint64_t slice_ns);
uint64_t dsched_launch_ns_toward(uint64_t before, uint64_t ns);
uint64_t dsched_launch_ns_after(uint64_t before, const struct aos_logical *l);

/* ---- dsched_hold.c: anticipation (holding the device for a client's next launch) ----------- */

void dsched_think_note(struct device_sched *d, const struct aos_logical *l);
struct recent_end *dsched_end_note(struct device_sched *d, uint64_t client, uint64_t ended_ns);
void dsched_hold_start(struct device_sched *d, uint64_t client, uint64_t until_ns);
void dsched_hold_release(struct device_sched *d, uint64_t now, const char *why);
uint64_t dsched_hold_expire(struct device_sched *d);
bool dsched_hold_for_expected(struct device_sched *d, double next_vtime);
void dsched_on_held_solo_end(struct device_sched *d, const struct held_solo_end *h);

/* ---- dsched_wave.c: starting waves and taking their ends ---------------------------------- */

uint32_t dsched_direct_width(const struct device_sched *d);
bool dsched_direct_is_narrow(const struct device_sched *d, const struct aos_logical *l);
bool dsched_wave_start(struct device_sched *d, struct aos_logical *l, uint32_t groups, double share);
void dsched_on_wave(struct device_sched *d, struct aos_logical *l, cl_int status, uint64_t ended_ns);

/* ---- dsched_cut.c: cut waves ------------------------------------------------------------- */

uint64_t dsched_cut_quantum_ns(void); /* 0: waves are never cut */
bool dsched_wave_may_be_cut(const struct aos_logical *l, bool narrow, bool others);
void dsched_cut_arm(struct aos_logical *l, uint32_t groups);
struct aos_logical *dsched_cut_candidate(struct device_sched *d);
void dsched_cut_check_due(struct device_sched *d);
void dsched_cut_for_ready(struct device_sched *d, struct aos_logical **ls, const struct aos_sched_share *out,
                          const size_t *order, size_t n, uint64_t came);
void dsched_cut_for_command(struct device_sched *d, uint64_t client);
void dsched_cut_for_gated(struct device_sched *d);

/* ---- dsched_watchdog.c, dsched_plan.c -------------------------------------------------------- */

/* Aborts launches whose virtual groups run past the limit, and ready launches of dead clients. */
void dsched_watch(struct device_sched *d);
/* Decides who runs next and starts their waves. */
void dsched_plan(struct device_sched *d);

#endif
