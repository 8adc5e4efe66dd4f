/*
 * The device scheduler: one thread per device runs every logical launch (logical.h) in waves.
 *
 * A wave is one physical launch of the launch's kernel clone on a scheduler-owned queue, with
 * `groups` physical work-groups and a budget of virtual groups (the record's stop/budget field):
 * the kernel ends once the budget is handed out, at a virtual-group boundary. Between waves the
 * scheduler may give the launch more or fewer groups (grow, shrink) or none (time slicing), and
 * the next wave resumes on the same record where the last one stopped.
 *
 * At every decision point (a launch becomes ready, a wave ends) the scheduler orders the ready and
 * running launches by their client's fair virtual time (Neon's fair queueing, charged with
 * measured device time x share held), asks the share solver (CGO'16 §3, with client weights) for
 * each one's physical groups, and starts a wave for every ready launch the solver lets run, once
 * the running waves hold no more than their new share. The solver makes the rest wait when the
 * device cannot hold one group of each: they run in later waves, so 8 kernels on 2 cores rotate.
 * A wave's budget is slice_ms of measured device time per virtual group (remembered per kernel
 * across launches), so a newcomer waits at most about one slice for its share; while no other client
 * is present, lone_slice_ms instead (nobody waits, and every wave costs a hand-off).
 *
 * Scheduling state is owned by whoever holds step_lock. Other threads post: new launches, and
 * inbox nodes from real-event callbacks (which may run on a driver thread, or synchronously
 * inside clSetEventCallback, so they must never wait for the scheduler). A poster that finds
 * step_lock free runs the step itself (kick): on a small CPU device the wake-up of the
 * scheduler thread costs as much as a short kernel, twice per launch. Only a poster that finds
 * the lock taken wakes the scheduler thread, which picks up what the holder's step left.
 *
 * PoCL frees failed events in ways that make a later release unsafe (ops_event.c), so an event
 * that ended in failure is parked until shutdown instead of released (event_park.h).
 */
#include "device_sched.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "accelos/cut_stop.h"
#include "accelos/estimates.h"
#include "accelos/futex.h"
#include "accelos/log.h"
#include "accelos/sched_config.h"
#include "accelos/wire_core.h"
#include "daemon_config.h"
#include "event_park.h"
#include "ops.h"
#include "session.h"
#include "mono_cond.h"
#include "solo.h"
#include "trace.h"

#define POLL_NS 20000000ull          /* re-check runaways and dead clients this often while busy */
#define ADMIT_POLL_NS 20000000ull
#define ADMIT_GRACE_NS 200000000ull  /* in flight but none on the device this long: let through */
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
    uint64_t waves_cuttable; /* waves started of a cuttable twin (wave_may_be_cut) */
    uint64_t waves_cut; /* waves told to stop early (cut) */
    uint64_t holds, held_ns; /* anticipation: holds started, and the time they kept the device */
    _Atomic uint64_t alone_measures_waves, alone_measures_solo; /* estimate_put_alone's, by source */
    _Atomic uint64_t cut_wave_client; /* client of the running cuttable wave; 0: none */
    _Atomic uint32_t waves_running;   /* waves enqueued and not ended, cuttable or not */
    _Atomic uint64_t cut_check_at_ns; /* the scheduler thread steps by then (cut_check_by); 0: no need */
    uint64_t cut_wanted_by;           /* under lock: a client whose command waits (cut_for_command) */
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

static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
static struct device_sched scheds[AOS_MAX_DEVICES];

static pthread_mutex_t admit_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t admit_cond;
static bool admit_cond_ready;

/* ---- Admission (per-client in-flight limit) ------------------------------------------------ */

static void admit_init_locked(void)
{
    if (!admit_cond_ready) {
        aos_cond_init_monotonic(&admit_cond);
        admit_cond_ready = true;
    }
}

void aos_device_sched_admit(struct aos_session *s)
{
    uint32_t limit = aos_daemon_config_get()->max_inflight_per_client;
    pthread_mutex_lock(&admit_lock);
    admit_init_locked();
    uint64_t idle_since = 0;
    while (limit && s->launches_inflight >= limit && !atomic_load(&s->dead)) {
        uint64_t now = aos_now_ns();
        if (s->launches_active)
            idle_since = 0;
        else if (!idle_since)
            idle_since = now;
        else if (now - idle_since >= ADMIT_GRACE_NS)
            break; /* everything in flight waits on something else: blocking could deadlock */
        struct timespec ts;
        aos_deadline_in(&ts, ADMIT_POLL_NS);
        pthread_cond_timedwait(&admit_cond, &admit_lock, &ts);
    }
    s->launches_inflight++;
    pthread_mutex_unlock(&admit_lock);
}

bool aos_device_sched_try_admit(struct aos_session *s)
{
    uint32_t limit = aos_daemon_config_get()->max_inflight_per_client;
    pthread_mutex_lock(&admit_lock);
    admit_init_locked();
    bool ok = !limit || s->launches_inflight < limit;
    if (ok)
        s->launches_inflight++;
    pthread_mutex_unlock(&admit_lock);
    return ok;
}

void aos_device_sched_unadmit(struct aos_session *s)
{
    pthread_mutex_lock(&admit_lock);
    admit_init_locked();
    s->launches_inflight--;
    pthread_cond_broadcast(&admit_cond);
    pthread_mutex_unlock(&admit_lock);
}

static void admit_active(struct aos_session *s, int delta)
{
    pthread_mutex_lock(&admit_lock);
    s->launches_active = (uint32_t)((int)s->launches_active + delta);
    pthread_mutex_unlock(&admit_lock);
}

/* ---- Posting (any thread) ----------------------------------------------------------------- */

static void kick(struct device_sched *d);

/* Wakes the device's scheduler thread to look at its inbox and timers again. */
static void wake_thread(struct device_sched *d)
{
    pthread_mutex_lock(&d->lock);
    pthread_cond_signal(&d->cond);
    pthread_mutex_unlock(&d->lock);
}

static void post(struct aos_logical_node *n)
{
    if (atomic_exchange(&n->posted, true))
        return;
    struct device_sched *d = &scheds[n->launch->device];
    n->next = NULL;
    pthread_mutex_lock(&d->lock);
    if (d->inbox_tail)
        d->inbox_tail->next = n;
    else
        d->inbox = n;
    d->inbox_tail = n;
    pthread_mutex_unlock(&d->lock);
    kick(d);
}

static void gate_ended(cl_int status, void *data)
{
    struct aos_logical *l = data;
    l->gate_node.status = status;
    post(&l->gate_node);
}

static void wave_ended(cl_int status, void *data)
{
    struct aos_logical *l = data;
    l->wave_node.status = status;
    l->wave_node.ns = aos_now_ns();
    post(&l->wave_node);
}

/* ---- Small helpers (scheduler thread) ----------------------------------------------------- */


static double estimate_get(struct device_sched *d, uint64_t key)
{
    pthread_mutex_lock(&d->estimates_lock);
    double v = aos_estimates_one(&d->estimates, key);
    pthread_mutex_unlock(&d->estimates_lock);
    return v;
}

static void estimate_put(struct device_sched *d, uint64_t key, double v)
{
    pthread_mutex_lock(&d->estimates_lock);
    aos_estimates_put(&d->estimates, key, v);
    pthread_mutex_unlock(&d->estimates_lock);
}

static void estimate_put_alone(struct device_sched *d, uint64_t key, double v, bool solo)
{
    pthread_mutex_lock(&d->estimates_lock);
    aos_estimates_put_alone(&d->estimates, key, v);
    pthread_mutex_unlock(&d->estimates_lock);
    atomic_fetch_add(solo ? &d->alone_measures_solo : &d->alone_measures_waves, 1);
}

/* key's speed alone once trusted, else 0; *measures: how many set it (for the log). */
static double estimate_alone(struct device_sched *d, uint64_t key, uint32_t *measures)
{
    pthread_mutex_lock(&d->estimates_lock);
    double v = aos_estimates_alone(&d->estimates, key);
    if (measures)
        *measures = aos_estimates_alone_measures(&d->estimates, key);
    pthread_mutex_unlock(&d->estimates_lock);
    return v;
}

static cl_command_queue queue_take(struct device_sched *d, cl_context ctx)
{
    for (struct run_queue **p = &d->idle_queues; *p; p = &(*p)->next)
        if ((*p)->context == ctx) {
            struct run_queue *r = *p;
            *p = r->next;
            cl_command_queue q = r->queue;
            free(r);
            return q;
        }
    cl_int err = CL_SUCCESS;
    cl_command_queue q;
    if (NATIVE(ctx, clCreateCommandQueueWithProperties)) {
        cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
        q = NATIVE(ctx, clCreateCommandQueueWithProperties)(ctx, d->dev->device, props, &err);
    } else {
        q = NATIVE(ctx, clCreateCommandQueue)(ctx, d->dev->device, CL_QUEUE_PROFILING_ENABLE, &err);
    }
    return err == CL_SUCCESS ? q : NULL;
}

static void queue_give_back(struct device_sched *d, cl_context ctx, cl_command_queue q)
{
    struct run_queue *r = malloc(sizeof(*r));
    if (!r) {
        NATIVE(q, clReleaseCommandQueue)(q);
        return;
    }
    *r = (struct run_queue){.next = d->idle_queues, .context = ctx, .queue = q};
    d->idle_queues = r;
}

static bool is_active(const struct aos_logical *l)
{
    return l->state == AOS_LOGICAL_READY || l->state == AOS_LOGICAL_RUNNING;
}

static bool client_has_active(struct device_sched *d, const struct aos_logical *except, uint64_t client)
{
    for (struct aos_logical *o = d->launches; o; o = o->next)
        if (o != except && o->client == client && is_active(o))
            return true;
    return false;
}

static bool client_has_gated(struct device_sched *d, uint64_t client)
{
    for (struct aos_logical *o = d->launches; o; o = o->next)
        if (o->client == client && o->state == AOS_LOGICAL_GATED)
            return true;
    return false;
}

/* Whether r's client was here lately for l's next wave: a launch of it ended, or a command of it
 * came, within the last slice or during l's last wave (up to a slice long itself, so that a client
 * whose command waited through that wave is not taken for gone). l: NULL for any launch. */
static bool recently_present(const struct recent_end *r, const struct aos_logical *l, uint64_t now, uint64_t slice_ns)
{
    uint64_t last = r->ns > r->command_ns ? r->ns : r->command_ns;
    return last && (now - last < slice_ns || (l && l->waves && last >= l->wave_submit_host_ns));
}

/* The slice l's next wave is sized to: shorter while clients of short launches are present, which
 * wait for the running wave (aos_sched_response_slice). Present: an active launch, or an end
 * within the last slice. */
static uint64_t response_slice(struct device_sched *d, uint64_t client, uint64_t slice_ns)
{
    uint64_t floor_ns = (uint64_t)aos_daemon_config_get()->response_floor_us * 1000u;
    uint64_t now = aos_now_ns(), shortest = 0;
    uint32_t others = 0;
    for (uint32_t i = 0; floor_ns && i < RECENT_ENDS; i++) {
        const struct recent_end *r = &d->recent[i];
        if (!r->ns || r->client == client || !r->launch_ns ||
            (!recently_present(r, NULL, now, slice_ns) && !client_has_active(d, NULL, r->client)))
            continue;
        others++;
        shortest = shortest && shortest < r->launch_ns ? shortest : r->launch_ns;
    }
    return aos_sched_response_slice(slice_ns, shortest, others, floor_ns);
}

/* Whether another client has a launch (one still gated too: it waits for the wave to be handed
 * out), or was here lately (recently_present): a client that runs launch after launch has none
 * between its launches, for a host round trip each time. */
static bool others_present(struct device_sched *d, const struct aos_logical *l, uint64_t slice_ns)
{
    for (struct aos_logical *o = d->launches; o; o = o->next)
        if (o->client != l->client && (is_active(o) || o->state == AOS_LOGICAL_GATED))
            return true;
    uint64_t now = aos_now_ns();
    for (uint32_t i = 0; i < RECENT_ENDS; i++)
        if (d->recent[i].client != l->client && recently_present(&d->recent[i], l, now, slice_ns))
            return true;
    return false;
}

static struct recent_end *recent_of(struct device_sched *d, uint64_t client)
{
    for (uint32_t i = 0; i < RECENT_ENDS; i++)
        if (d->recent[i].ns && d->recent[i].client == client)
            return &d->recent[i];
    return NULL;
}

/* A client's remembered launch length after a launch of ns: halfway toward it. */
static uint64_t launch_ns_toward(uint64_t before, uint64_t ns)
{
    return before ? (before + ns) / 2 : ns;
}

/* The same after l ended, except when l's waves also timed the device's compile of its code (its
 * first launch anywhere, or a compile seen in its waves): that is not how long its launches take. */
static uint64_t launch_ns_after(uint64_t before, const struct aos_logical *l)
{
    if (l->cold && (l->remembered_one <= 0 || l->compile_waves > 0))
        return before;
    return launch_ns_toward(before, l->device_ns);
}

/* Notes the end of a launch of client's at ended_ns; the device may hold for its next launch for
 * hold_ns (0: not at all). Returns the entry, whose launch_ns the caller updates. */
static struct recent_end *recent_end_set(struct device_sched *d, uint64_t client, uint64_t ended_ns, uint64_t hold_ns)
{
    struct recent_end *slot = recent_of(d, client);
    bool same = slot != NULL;
    if (!slot) { /* the oldest entry goes */
        slot = &d->recent[d->recent_next];
        d->recent_next = (d->recent_next + 1) % RECENT_ENDS;
        if (slot->lingering && !client_has_active(d, NULL, slot->client))
            aos_sched_vt_leave(d->vt, slot->client); /* pushed out: stop expecting it */
    }
    *slot = (struct recent_end){.client = client, .ns = ended_ns, .lingering = hold_ns > 0,
                                .hold_ns = hold_ns, .think_ns = same ? slot->think_ns : 0,
                                .waves_at_end = d->waves_started, .unclear_gaps = same ? slot->unclear_gaps : 0,
                                .launch_ns = same ? slot->launch_ns : 0};
    return slot;
}

static void history_note(struct aos_logical *l, uint64_t t, uint32_t groups)
{
    if (l->history_n && l->history[l->history_n - 1].groups == groups)
        return;
    if (l->history_n == AOS_LOGICAL_HISTORY)
        return;
    l->history[l->history_n].t_ns = t;
    l->history[l->history_n].groups = groups;
    l->history_n++;
}

/* ---- Anticipation ------------------------------------------------------------------------ */

/*
 * A client whose launch has just ended and whose next launch already waits behind it on its queue
 * (gated) would lose its turn if the device went straight on with another client's wave: with
 * whole-device waves, a client of many short launches would wait a slice per launch. So the device
 * is held for it, up to anticipate_us after its end (anticipatory scheduling, after Iyer and
 * Druschel's for disks), while its virtual time is not ahead of the next ready client's, and its
 * launch runs first when it comes. The wait is charged to its virtual time as whole-device use:
 * holding cannot idle the device for free. Until then it stays active in virtual time, so it keeps
 * its place instead of rejoining (which keeps at most the rejoin credit of its lag). A client whose
 * next launch is already queued is also held for while at most anticipate_lead_us ahead
 * (aos_sched_hold_allowed): the launch is ready within microseconds. (Holding for any expected
 * client while up to a slice ahead, the denial rule's margin, measured worse: bench/RESULTS.md §4,
 * sessions 12 and 16.)
 */
static uint64_t anticipate_ns(void)
{
    return (uint64_t)aos_daemon_config_get()->anticipate_us * 1000ull;
}

/*
 * The same for a client that has nothing queued but, by its habit, comes back at once: an
 * application that waits for each launch (clFinish, a blocking read) and then sends the next,
 * after host work shorter than the window. A gap is only measured while nothing else ran: with
 * another client's wave in it, the client's own reads may have waited behind that wave (PoCL runs
 * a copy when a worker is free). The hold must cover its slower gaps, not its usual one: a longer
 * gap counts at once, a shorter one an eighth; none counts for more than twice the window; after a
 * hold that ran out the gap is measured again with the whole window, or, if that was the whole
 * window, taken as longer than it. The client is expected when that gap is within
 * the window, for twice the gap plus a margin for the wake-up, at most the window; and, for the
 * whole window, while its gap is unknown (from its second launch on: many clients send only one,
 * and after a few unmeasurable gaps in a row), to measure one.
 */
#define THINK_MARGIN_NS 50000ull
#define THINK_UNCLEAR_MAX 4u

static void think_gap(struct device_sched *d, uint64_t client, uint64_t arrival_ns)
{
    struct recent_end *e = recent_of(d, client);
    uint64_t window = anticipate_ns();
    if (!e || !window || arrival_ns <= e->ns)
        return;
    if (d->waves_started != e->waves_at_end) {
        /* Another client's wave ran in the gap: the client's own reads may have waited behind it,
         * so the gap says nothing, except that it was longer than a hold that ran out. After a
         * hold shorter than the window, the next is the whole window, to measure the gap (on a
         * loaded host a round trip can outgrow the estimate many times over; growing the hold a
         * step at a time lost the device once per step); after the whole window, the gap is
         * longer than it and no hold is given. After a few such gaps in a row, wait once more to
         * measure. */
        if (e->hold_ns)
            e->think_ns = e->hold_ns >= window ? 2 * window : 0;
        if (++e->unclear_gaps >= THINK_UNCLEAR_MAX) {
            e->think_ns = 0;
            e->unclear_gaps = 0;
        }
        return;
    }
    e->unclear_gaps = 0;
    uint64_t gap = arrival_ns - e->ns;
    if (gap > 2 * window)
        gap = 2 * window;
    if (gap >= e->think_ns)
        e->think_ns = gap;
    else
        e->think_ns -= (e->think_ns - gap) / 8;
}

/* The gap before l's arrival, unless l came behind another launch of its client's. */
static void think_note(struct device_sched *d, const struct aos_logical *l)
{
    if (client_has_active(d, NULL, l->client) || client_has_gated(d, l->client))
        return; /* launches in a row: not a gap */
    think_gap(d, l->client, l->arrival_host_ns);
}

/* How long to hold the device for client after its launch ended, 0 for not at all. */
static uint64_t expected_hold_ns(struct device_sched *d, uint64_t client)
{
    uint64_t window = anticipate_ns();
    if (!window)
        return 0;
    if (client_has_gated(d, client))
        return window;
    const struct recent_end *e = recent_of(d, client);
    if (!e)
        return 0; /* its first launch: many clients send only one */
    if (!e->think_ns)
        return window; /* unknown, and without a hold it would be measured a wave long */
    if (e->think_ns > window)
        return 0;
    uint64_t hold = 2 * e->think_ns + THINK_MARGIN_NS;
    return hold < window ? hold : window;
}

/* Notes the end of a launch of client's at ended_ns (logical or held solo): the device may hold
 * for its next launch, or, when none is expected, the client leaves virtual time. Returns its
 * entry, whose launch_ns the caller updates. */
static struct recent_end *end_note(struct device_sched *d, uint64_t client, uint64_t ended_ns)
{
    /* A client whose next launch is expected soon stays active (anticipation). */
    bool active = client_has_active(d, NULL, client);
    uint64_t hold_ns = active ? 0 : expected_hold_ns(d, client);
    struct recent_end *e = recent_end_set(d, client, ended_ns, hold_ns);
    if (!active && !hold_ns)
        aos_sched_vt_leave(d->vt, client);
    return e;
}

/* Ends the hold, charging its client for the time held; why is for the debug log. */
static void hold_release(struct device_sched *d, uint64_t now, const char *why)
{
    uint64_t end = now < d->hold_until_ns ? now : d->hold_until_ns;
    uint64_t held = end > d->hold_start_ns ? end - d->hold_start_ns : 0;
    if (held) {
        aos_sched_vt_charge(d->vt, d->hold_client, held, 1.0);
        d->held_ns += held;
    }
    aos_log(AOS_LOG_DEBUG, "sched", "client %llu: hold ended after %.3f ms (%s)", (unsigned long long)d->hold_client,
            (double)held / 1e6, why);
    d->hold_client = 0;
    d->hold_until_ns = 0;
    atomic_store(&d->held_client, 0);
    atomic_store(&d->wake_at_ns, 0);
}

/* Ends the hold once its client's launch is ready (returns that client, to be served first) or its
 * time is up. Clients whose next launch came stop lingering; those whose time is up leave virtual
 * time. */
static uint64_t hold_expire(struct device_sched *d)
{
    uint64_t now = aos_now_ns(), came = 0;
    for (uint32_t i = 0; i < RECENT_ENDS; i++) {
        struct recent_end *e = &d->recent[i];
        if (!e->lingering)
            continue;
        bool active = client_has_active(d, NULL, e->client);
        if (!active && now - e->ns < e->hold_ns)
            continue;
        e->lingering = false;
        if (!active)
            aos_sched_vt_leave(d->vt, e->client);
    }
    if (!d->hold_client)
        return 0;
    if (client_has_active(d, NULL, d->hold_client))
        came = d->hold_client;
    if (came || now >= d->hold_until_ns)
        hold_release(d, now, came ? "its launch came" : "time up");
    return came;
}

/* Waves running on any device: while none does, enqueues need not look for one. */
static _Atomic uint32_t all_waves_running;

/* Counts a wave of d's enqueued (+1) or ended (-1). */
static void wave_running(struct device_sched *d, int delta)
{
    atomic_fetch_add(&d->waves_running, (uint32_t)delta);
    atomic_fetch_add(&all_waves_running, (uint32_t)delta);
}

/* Notes whose cuttable wave runs on d (0: none), for aos_device_sched_command_waits. */
static void cut_wave_running(struct device_sched *d, uint64_t client)
{
    atomic_store(&d->cut_wave_client, client);
}

/* Holds the device for client's next launch until until_ns (or until it is ready: hold_expire). */
static void hold_start(struct device_sched *d, uint64_t client, uint64_t until_ns)
{
    d->hold_client = client;
    d->hold_start_ns = aos_now_ns();
    d->holds++;
    d->hold_until_ns = until_ns;
    uint64_t slice_ns = (uint64_t)aos_daemon_config_get()->slice_ms * 1000000ull;
    atomic_store(&d->held_solo_ns, response_slice(d, client, slice_ns));
    atomic_store(&d->held_until_ns, d->hold_until_ns);
    atomic_store(&d->held_client, client);
    atomic_store(&d->wake_at_ns, d->hold_until_ns);
    wake_thread(d); /* it may be asleep for longer than the hold */
}

/* Whether the device, idle, waits for an expected launch instead of starting a wave of the next
 * ready client (virtual time next_vtime). */
static bool hold_for_expected(struct device_sched *d, double next_vtime)
{
    if (d->hold_client)
        return true;
    uint64_t lead_ns = (uint64_t)aos_daemon_config_get()->anticipate_lead_us * 1000ull;
    for (uint32_t i = 0; i < RECENT_ENDS; i++) {
        const struct recent_end *e = &d->recent[i];
        double vtime = 0;
        if (!e->lingering || aos_sched_vt_get(d->vt, e->client, &vtime, NULL) != 0 ||
            !aos_sched_hold_allowed(vtime, next_vtime, client_has_gated(d, e->client), lead_ns))
            continue;
        hold_start(d, e->client, e->ns + e->hold_ns);
        aos_log(AOS_LOG_DEBUG, "sched", "client %llu: device held up to %.3f ms for its next launch",
                (unsigned long long)e->client, (double)e->hold_ns / 1e6);
        return true;
    }
    return false;
}

/* ---- Held solo launches ------------------------------------------------------------------- */

/*
 * While the device is held for a client, a short launch of that client's runs natively on its
 * queue (solo.c), without the gate, user event and wave of a logical launch: they cost a short
 * kernel more than the kernel itself (Parboil's uniformAdd, 10-50 us: 1.9x its time alone as
 * logical launches), and nobody else runs meanwhile anyway. It may take at most the response slice
 * its wave would have had. Its end is an end as a logical launch's is: the hold is charged up to
 * it, the gap before it is measured, and the device may be held again for the next.
 */
static void on_held_solo_end(struct device_sched *d, const struct held_solo_end *h)
{
    uint64_t now = aos_now_ns();
    if (d->hold_client == h->client) {
        if (d->hold_until_ns < now)
            d->hold_until_ns = now; /* the device was the client's until now */
        hold_release(d, now, "its solo launch ended");
    } else {
        aos_sched_vt_charge(d->vt, h->client, h->ran_ns ? h->ran_ns : now - h->claimed_ns, 1.0);
    }
    think_gap(d, h->client, h->claimed_ns);
    struct recent_end *e = end_note(d, h->client, h->ended_ns);
    if (h->ran_ns)
        e->launch_ns = launch_ns_toward(e->launch_ns, h->ran_ns);
}

/* ---- Ending a launch ---------------------------------------------------------------------- */

static void trace_end(const struct aos_logical *l)
{
    if (!aos_trace_enabled())
        return;
    struct aos_trace_launch t = {.client = l->client, .pid = l->s ? l->s->pid : 0, .kernel = l->kernel_name,
                                 .ok = l->end_status == CL_COMPLETE, .status = l->end_status,
                                 .queued_ns = l->queued_ns, .start_ns = l->start_ns, .end_ns = l->end_ns,
                                 .device_ns = l->device_ns, .charged_ns = l->charged_ns, .waves = l->waves,
                                 .virtual_groups = l->host.total_groups, .virtual_groups_done = l->host.budget,
                                 .chunk = l->max_chunk,
                                 .admitted_host_ns = l->arrival_host_ns, .ended_host_ns = l->ended_host_ns,
                                 .history_n = l->history_n};
    for (uint32_t i = 0; i < l->history_n; i++) {
        t.history[i].t_ns = l->history[i].t_ns;
        t.history[i].groups = l->history[i].groups;
    }
    t.physical_groups = l->history_n ? l->history[0].groups : 0;
    if (!l->profiling || !l->start_ns) {
        /* Host times: the application's queue has no profiling, or no wave ever ran. */
        t.queued_ns = l->arrival_host_ns;
        t.start_ns = l->first_wave_host_ns ? l->first_wave_host_ns : l->ended_host_ns;
        t.end_ns = l->ended_host_ns;
    }
    aos_trace_launch(&t);
}

/* Completes the application's event (status CL_COMPLETE or an error) and stops scheduling l. */
static void launch_end(struct device_sched *d, struct aos_logical *l, cl_int status)
{
    if (l->state == AOS_LOGICAL_ENDED)
        return;
    bool was_active = is_active(l);
    l->end_status = status;
    l->ended_host_ns = aos_now_ns();
    if (status != CL_COMPLETE)
        atomic_store(&l->failed_status, status < 0 ? status : CANCELLED_STATUS);
    if (status == CL_COMPLETE) {
        if (!l->queued_ns)
            l->queued_ns = l->submit_ns = l->start_ns;
        atomic_store(&l->timed, true); /* before the event completes: the client may ask at once */
    } else {
        aos_log(AOS_LOG_INFO, "sched", "client %llu: launch of %s ended with error %d",
                (unsigned long long)l->client, l->kernel_name, status);
    }
    l->state = AOS_LOGICAL_ENDED; /* no longer active: end_note looks past it */
    /* A command the client enqueued behind this launch (its results' read) becomes ready only now,
     * and on PoCL it may reach the device after the next wave, then waits for all of it: that wave
     * is cut for it as for a command that came while it runs. */
    const struct recent_end *was = recent_of(d, l->client);
    if (status == CL_COMPLETE && was && was->command_ns >= l->arrival_host_ns)
        d->cut_after_end = l->client;
    struct recent_end *e = end_note(d, l->client, l->ended_host_ns);
    e->launch_ns = launch_ns_after(e->launch_ns, l);
    aos_solo_logical_end(d->index, l->client);
    if (l->estimate_key && l->ns_per_vgroup_one > 0)
        estimate_put(d, l->estimate_key, l->ns_per_vgroup_one);
    if (l->estimate_key && l->ns_per_vgroup_one > 0 && aos_log_level() >= AOS_LOG_DEBUG) {
        uint32_t measures = 0;
        double alone = estimate_alone(d, l->estimate_key, &measures);
        aos_log(AOS_LOG_DEBUG, "sched",
                "client %llu: %s ended: %.0f ns per virtual group, %.0f alone (%u measures), charged %.2f of its "
                "device time",
                (unsigned long long)l->client, l->kernel_name, l->ns_per_vgroup_one, alone, measures,
                l->device_ns ? (double)l->charged_ns / (double)l->device_ns : 1.0);
    }
    trace_end(l);
    cl_int user_status = status == CL_COMPLETE ? CL_COMPLETE : atomic_load(&l->failed_status);
    /* Nobody can see a dead client's events, and its queues may already be released: PoCL 3.1
     * propagating a failure into a released queue's marker aborts the daemon (a destroyed mutex).
     * Ending normally lets the marker retire through PoCL's ordinary path. */
    if (atomic_load(&l->s->dead))
        user_status = CL_COMPLETE;
    /* When the gate failed, whatever failed it may have failed the application's event too: the
     * command before both on an in-order queue, or a barrier before both on an out-of-order one.
     * PoCL 3.1 then frees that event once released while it still waits on the user event, and
     * any status set on the user event reaches freed memory and aborts the daemon (test_fair_queue,
     * found by test_fuzz). The user event stays unset, parked. */
    bool app_failed = l->gate_failed && (l->in_order || (l->app && aos_event_failed(l->app)));
    if (app_failed)
        aos_event_release_or_park(&d->parked, l->user);
    else if (user_status == CL_COMPLETE)
        aos_status_apply(l->user, CL_COMPLETE, &d->parked);
    else /* a failure spreads at once: only the client's service thread may start one */
        aos_session_fail_user_event(l->s, l->user, user_status, &d->parked);
    l->user = NULL;
    if (l->app && app_failed)
        aos_event_release_or_park(&d->parked, l->app); /* failed: kept, like the user event */
    else if (l->app)
        NATIVE(l->app, clReleaseEvent)(l->app);
    l->app = NULL;
    pthread_mutex_lock(&admit_lock);
    admit_init_locked();
    if (was_active)
        l->s->launches_active--;
    l->s->launches_inflight--;
    pthread_cond_broadcast(&admit_cond);
    pthread_mutex_unlock(&admit_lock);
}

/* Frees the launches that have ended and left the device. */
static void reap(struct device_sched *d)
{
    for (struct aos_logical **p = &d->launches; *p;) {
        struct aos_logical *l = *p;
        if (l->state != AOS_LOGICAL_ENDED || l->wave || l->gate) {
            p = &l->next;
            continue;
        }
        *p = l->next;
        if (l->run_queue)
            queue_give_back(d, l->context, l->run_queue);
        l->run_queue = NULL;
        aos_logical_drop_run_state(l); /* before the application releases its event */
        aos_session_unref(l->s);
        l->s = NULL;
        aos_logical_unref(l);
    }
}

/* ---- Events from the device --------------------------------------------------------------- */

static void on_gate(struct device_sched *d, struct aos_logical *l, cl_int status)
{
    cl_event gate = l->gate;
    l->gate = NULL;
    if (l->profiling && status >= 0) {
        aos_event_profiled(gate, CL_PROFILING_COMMAND_QUEUED, &l->queued_ns);
        aos_event_profiled(gate, CL_PROFILING_COMMAND_SUBMIT, &l->submit_ns);
    }
    aos_event_release_or_park(&d->parked, gate);
    if (l->state == AOS_LOGICAL_ENDED)
        return;
    if (status < 0) {
        l->gate_failed = true;
        launch_end(d, l, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
        return;
    }
    if (!client_has_active(d, l, l->client))
        aos_sched_vt_join(d->vt, l->client, l->weight);
    l->state = AOS_LOGICAL_READY;
    l->arrival = d->next_arrival++;
    admit_active(l->s, +1);
}

/* How long the wave's command waited on the device before it started (its QUEUED to START): on
 * PoCL the compile of a kernel for a new shape (its first launch, the first off the origin, each
 * local size) falls there, tens to hundreds of milliseconds, and none of it runs the wave. */
static uint64_t wave_wait_ns(cl_event ev, uint64_t start)
{
    uint64_t queued = 0;
    if (!start || !aos_event_profiled(ev, CL_PROFILING_COMMAND_QUEUED, &queued) || queued > start)
        return 0;
    return start - queued;
}

/* ended_ns: host time the wave's end was seen. The scheduler measures waves on the host clock
 * (PoCL's kernel profiling times cover only part of a command), less the time the device kept the
 * command before starting it, so that neither virtual time nor the groups' estimate counts a
 * compile; the application's profiling keeps the device's times of the first and last wave. */
static void on_wave(struct device_sched *d, struct aos_logical *l, cl_int status, uint64_t ended_ns)
{
    cl_event ev = l->wave;
    l->wave = NULL;
    uint64_t start = 0, end = 0, waited = 0;
    if (status >= 0 && aos_event_profiled(ev, CL_PROFILING_COMMAND_START, &start) &&
        aos_event_profiled(ev, CL_PROFILING_COMMAND_END, &end) && end >= start) {
        if (!l->start_ns)
            l->start_ns = start;
        l->end_ns = end;
        waited = wave_wait_ns(ev, start);
    }
    uint64_t since = l->wave_submit_host_ns;
    uint64_t device_ns = ended_ns > since ? ended_ns - since : 1;
    device_ns = waited < device_ns ? device_ns - waited : 1;
    aos_event_release_or_park(&d->parked, ev);
    bool was_cut = false;
    aos_u32 ran = l->wave_vgroups;
    wave_running(d, -1);
    if (l->wave_cuttable)
        cut_wave_running(d, 0);
    if (l->wave_cuttable && status >= 0) {
        aos_u32 seen = __atomic_load_n(&l->cut_host->claimed, __ATOMIC_SEQ_CST);
        if (!(seen & AOS_CUT_STOP) && seen >= l->wave_vgroups)
            l->cut_proven = true; /* the device's claims reach the host's memory */
        aos_u32 claimed = seen & ~AOS_CUT_STOP;
        if (l->cut_sent && claimed < l->wave_vgroups) { /* it ran its box's first `claimed` groups */
            l->host.budget -= l->wave_vgroups - claimed;
            was_cut = true;
            ran = claimed;
        }
    }
    l->device_ns += device_ns;
    /* Charged at the kernel's speed alone, when known (aos_sched_progress_charge). */
    double alone = status >= 0 && l->estimate_key ? estimate_alone(d, l->estimate_key, NULL) : 0;
    uint32_t together = l->wave_groups < ran ? l->wave_groups : ran;
    uint64_t charged = aos_sched_progress_charge(device_ns, alone, ran, together);
    l->charged_ns += charged;
    aos_sched_vt_charge(d->vt, l->client, charged, l->wave_share);
    /* A cut wave's time is mostly the cut's: not a measure of its groups. */
    if (status >= 0 && l->wave_vgroups && !was_cut) {
        /* A wave of fewer virtual groups than groups (a direct box's row tail) ran them all at once. */
        uint32_t ran_together = l->wave_groups < l->wave_vgroups ? l->wave_groups : l->wave_vgroups;
        double measured = (double)device_ns * ran_together / l->wave_vgroups;
        /* A device without profiling times, or one that compiles after it starts the command,
         * still shows a compile in the first waves of a new kernel object (on PoCL one for each
         * new program of each process, again for the first box off the origin): a wave far
         * slower than the same code's remembered time is a compile. At most COMPILE_WAVES of
         * them: a launch really that slow is measured from then on. */
        bool compiling = l->cold && l->remembered_one > 0 && measured > COMPILE_SLOWDOWN * l->remembered_one &&
                         l->compile_waves < COMPILE_WAVES;
        l->compile_waves += compiling;
        /* Smoothed: one wave delayed or sped up by the host must not size the next ones. */
        if (!compiling)
            l->ns_per_vgroup_one = l->ns_per_vgroup_one > 0 ? 0.5 * l->ns_per_vgroup_one + 0.5 * measured : measured;
        if (!compiling && !l->cold && l->wave_alone && l->estimate_key)
            estimate_put_alone(d, l->estimate_key, measured, false);
    }
    if (l->state == AOS_LOGICAL_ENDED)
        return; /* a runaway whose wave has finally left */
    if (status < 0)
        launch_end(d, l, status);
    else if (l->host.budget >= l->host.total_groups)
        launch_end(d, l, CL_COMPLETE);
    else if (atomic_load(&l->s->dead))
        launch_end(d, l, CANCELLED_STATUS);
    else
        l->state = AOS_LOGICAL_READY;
}

static void take_inbox(struct device_sched *d, struct aos_logical_node *n)
{
    while (n) {
        struct aos_logical_node *next = n->next;
        struct aos_logical *l = n->launch;
        atomic_store(&n->posted, false);
        if (n->kind == AOS_LOGICAL_MSG_GATE)
            on_gate(d, l, n->status);
        else if (n->kind == AOS_LOGICAL_MSG_WAVE)
            on_wave(d, l, n->status, n->ns);
        n = next;
    }
}

static void take_incoming(struct device_sched *d, struct aos_logical *l)
{
    while (l) {
        struct aos_logical *next = l->next;
        think_note(d, l);
        l->state = AOS_LOGICAL_GATED;
        l->gate_node = (struct aos_logical_node){.launch = l, .kind = AOS_LOGICAL_MSG_GATE};
        l->wave_node = (struct aos_logical_node){.launch = l, .kind = AOS_LOGICAL_MSG_WAVE};
        l->next = d->launches;
        d->launches = l;
        if (aos_event_when_done(l->gate, gate_ended, l) != CL_SUCCESS)
            gate_ended(CL_OUT_OF_HOST_MEMORY, l);
        l = next;
    }
}

/* ---- Watchdog ----------------------------------------------------------------------------- */

/*
 * How long l's running wave may take before one of its virtual groups counts as past the limit.
 * Each physical group runs about vgroups/groups virtual groups (one more for the spread), each
 * allowed the limit. When the kernel's time per virtual group is known, a wave that runs the
 * limit past twice its expected length has a group that did: long waves of short groups then
 * do not stretch the allowance to many limits.
 */
/* The runaway rule's allowance for a run of per_unit - 1 virtual groups one after another on a
 * compute unit, expected to take expected_ns (0: unknown): the limit per virtual group plus one,
 * or twice the expected time plus one limit, whichever is less. cold: on PoCL the first waves of a
 * new kernel object also time the device's compile of its code, after the compiles of other new
 * kernels queued before it (one at a time): four new kernels launched at once took 300-400 ms
 * each in a sanitizer build. */
static uint64_t runaway_allowance_ns(uint64_t limit_ns, uint64_t per_unit, double expected_ns, bool cold)
{
    uint64_t allowance = per_unit > UINT64_MAX / limit_ns ? UINT64_MAX : limit_ns * per_unit;
    if (expected_ns > 0) {
        double bounded = 2.0 * expected_ns + (double)limit_ns;
        if (bounded < (double)allowance)
            allowance = (uint64_t)bounded;
    }
    if (cold)
        allowance += COMPILE_ALLOWANCE_NS;
    return allowance;
}

/* A wave of l's that may time the device's compile of its code. */
static bool wave_may_compile(const struct aos_logical *l)
{
    return l->cold && l->waves <= COMPILE_WAVES;
}

/* l's running wave gets the compile allowance when it may compile, and also when another wave that
 * may compile ran beside it: PoCL's compile holds a core, and the waves beside it run on the rest
 * (a warm wave ran 40.2 ms against a 40 ms allowance while five new kernels compiled). */
static uint64_t wave_allowance_ns(const struct device_sched *d, const struct aos_logical *l, uint64_t limit_ns)
{
    uint64_t per_group = (l->wave_vgroups + l->wave_groups - 1) / l->wave_groups + 1;
    double expected = l->ns_per_vgroup_one > 0 ? l->ns_per_vgroup_one * (double)per_group : 0;
    bool beside_compile = d->compile_seen_ns >= l->wave_running_ns;
    return runaway_allowance_ns(limit_ns, per_group, expected, wave_may_compile(l) || beside_compile);
}

/* Tells a running loop wave to take no more virtual groups: its record's `stop` field, written on a
 * queue of its own (the run queue is busy behind the wave; a write from another queue lands while a
 * kernel runs, on PoCL too). The groups in flight end; the ones not yet taken never run, so an
 * aborted launch leaves the device within a chunk per physical group. A direct wave has no
 * dequeue: its groups run out. */
static void wave_stop(struct device_sched *d, struct aos_logical *l)
{
    static const aos_u32 stop = 1;
    if (l->direct || !l->record || !l->wave)
        return;
    cl_command_queue q = queue_take(d, l->context);
    if (!q)
        return;
    if (NATIVE(q, clEnqueueWriteBuffer)(q, l->record, CL_FALSE, offsetof(struct aos_vndrange, stop), sizeof(stop),
                                        &stop, 0, NULL, NULL) == CL_SUCCESS)
        NATIVE(q, clFlush)(q);
    queue_give_back(d, l->context, q);
}

static void watch(struct device_sched *d)
{
    uint64_t limit_ns = (uint64_t)aos_daemon_config_get()->vgroup_timeout_ms * 1000000ull;
    uint64_t now = aos_now_ns();
    for (struct aos_logical *l = d->launches; l; l = l->next)
        if (l->state == AOS_LOGICAL_RUNNING && wave_may_compile(l))
            d->compile_seen_ns = now;
    for (struct aos_logical *l = d->launches; l; l = l->next) {
        if (l->state == AOS_LOGICAL_READY && atomic_load(&l->s->dead)) {
            launch_end(d, l, CANCELLED_STATUS);
            continue;
        }
        if (l->state != AOS_LOGICAL_RUNNING)
            continue;
        if (!l->wave_running_ns) {
            cl_int st = CL_QUEUED;
            NATIVE(l->wave, clGetEventInfo)(l->wave, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL);
            if (st <= CL_RUNNING)
                l->wave_running_ns = now;
        }
        if (!limit_ns || !l->wave_running_ns)
            continue;
        uint64_t allowance = wave_allowance_ns(d, l, limit_ns);
        if (now - l->wave_running_ns > allowance) {
            aos_log(AOS_LOG_WARN, "sched",
                    "client %llu: %s: a virtual group ran past %u ms: launch aborted (its wave takes no "
                    "more groups and leaves the device when those running end; wave %u of %u virtual groups "
                    "on %u groups ran %.1f ms, allowed %.1f ms)",
                    (unsigned long long)l->client, l->kernel_name, aos_daemon_config_get()->vgroup_timeout_ms,
                    l->waves, l->wave_vgroups, l->wave_groups, (double)(now - l->wave_running_ns) / 1e6,
                    (double)allowance / 1e6);
            wave_stop(d, l);
            launch_end(d, l, RUNAWAY_STATUS);
        }
    }
}

/* ---- Waves -------------------------------------------------------------------------------- */

/* Compute units a direct wave spreads over: its time per virtual group is kept per compute unit,
 * as a loop wave's is per physical group. */
static uint32_t direct_width(const struct device_sched *d)
{
    return d->have_model && d->model.compute_units ? d->model.compute_units : 1;
}

/* A direct wave on fewer groups than compute units leaves the rest to other clients' waves, which
 * start beside it (space sharing), unless it is expected to end within the response floor: a wave
 * of another client started beside it would hold the whole device when it ends, so its client's
 * next launch would wait a response slice where it waited a few microseconds (mri-gridding's
 * one-group scans beside histo: bench/RESULTS.md §4, session 26). */
static bool direct_is_narrow(const struct device_sched *d, const struct aos_logical *l)
{
    if (!l->direct || l->wave_groups >= direct_width(d))
        return false;
    double floor_ns = (double)aos_daemon_config_get()->response_floor_us * 1000.0;
    bool short_wave = l->wave_groups && l->ns_per_vgroup_one > 0 &&
                      l->ns_per_vgroup_one * l->wave_vgroups / l->wave_groups < floor_ns;
    return !short_wave;
}

/* A direct wave's NDRange: a box of virtual groups (aos_vndrange_box_ndrange). */
struct wave_box {
    size_t global[3], offset[3];
    aos_u64 origin[3]; /* in groups: the direct kernel's grid argument says it */
};

/* A loop wave's chunks from virtual group `base` on (aos_vndrange_loop_chunk): on many physical
 * groups each group's first chunk is static and the chunk grows where the virtual groups far
 * outnumber them, since every dequeue is an atomic on one address. Sets the record's static_end
 * and chunk (0 = the compiled one), and moves next past the static chunks. */
static void wave_plan_chunks(struct aos_logical *l, uint32_t groups, uint64_t vgroups, aos_u32 base)
{
    aos_u32 compiled = l->compiled_chunk ? l->compiled_chunk : 1u;
    int static_first = 0;
    aos_u32 c = aos_vndrange_loop_chunk((aos_u32)vgroups, groups, compiled, AOS_VNDRANGE_DEQUEUES_PER_GROUP,
                                        &static_first);
    l->host.static_end = 0;
    l->host.chunk = c > compiled ? c : 0;
    if (static_first)
        aos_vndrange_static_first(&l->host, base, groups, c); /* the chunk explicit: the device computes */
}

/* Enqueues the wave's kernel: the loop shape on `groups` physical groups under the raised budget,
 * or the direct shape on one physical group per virtual group of `box`. A resumed loop wave
 * rewrites the record's chunk when it differs from the last wave's (`chunk_changed`). */
static cl_int wave_enqueue(struct aos_logical *l, uint32_t groups, const struct wave_box *box, bool first,
                           bool chunk_changed, cl_event *ev)
{
    cl_int err = CL_SUCCESS;
    cl_kernel k = l->wave_cuttable ? l->cut_kernel : l->kernel;
    if (l->direct) { /* no record: the grid is an argument, with the box's origin */
        struct aos_direct_grid grid;
        aos_direct_grid_of(&l->host, box->origin, &grid);
        err = NATIVE(k, clSetKernelArg)(k, l->grid_arg, sizeof(grid), &grid);
    } else if (first)
        err = NATIVE(l->run_queue, clEnqueueWriteBuffer)(l->run_queue, l->record, CL_FALSE, 0, sizeof(l->host),
                                                         &l->host, 0, NULL, NULL);
    else {
        if (chunk_changed)
            err = NATIVE(l->run_queue, clEnqueueWriteBuffer)(l->run_queue, l->record, CL_FALSE,
                                                             offsetof(struct aos_vndrange, chunk), sizeof(aos_u32),
                                                             &l->host.chunk, 0, NULL, NULL);
        /* resume at the last wave's frontier: budget, static_end and next are adjacent (vndrange.h) */
        if (err == CL_SUCCESS)
            err = NATIVE(l->run_queue, clEnqueueWriteBuffer)(l->run_queue, l->record, CL_FALSE,
                                                             offsetof(struct aos_vndrange, budget),
                                                             3 * sizeof(aos_u32), &l->host.budget, 0, NULL, NULL);
    }
    size_t loop[3] = {groups * l->local[0], l->local[1], l->local[2]};
    if (err == CL_SUCCESS)
        err = NATIVE(l->run_queue, clEnqueueNDRangeKernel)(l->run_queue, k, l->work_dim,
                                                          l->direct ? box->offset : NULL,
                                                          l->direct ? box->global : loop, l->local, 0, NULL, ev);
    return err;
}

/* ---- Cut waves ----------------------------------------------------------------------------- */

/* Kernels whose groups take at least this long on a compute unit run in cuttable waves: PoCL
 * dispatches a group that then returns at once in about 0.1 us per core, so a cut wastes at most
 * about 2 % of what the rest of the wave would have run (bench/RESULTS.md §4, session 39). */
#define CUT_MIN_GROUP_NS 5000.0
/* ... and down to this long while other clients are present: a cut wastes up to 10 %, and each
 * group's claim costs about 3 % (mb_sad_calc's 1 us groups), but a kernel of 1-5 us groups beside a
 * client of short launches otherwise runs in response-slice waves of some 50 us that each pay the
 * host's hop of some 40 us (bench/RESULTS.md §4, session 41). Alone, it runs uncut, at full speed. */
#define CUT_MIN_GROUP_SHARED_NS 1000.0
/* Groups one claim covers (struct aos_cut's `ahead`): about this long, so a cut wave leaves the
 * device within it once its running groups end. */
#define CUT_AHEAD_NS 10000.0
/* How long the device, once a wave cut for a launch that just came has left, waits for that
 * launch's gate to open: a marker PoCL completes as soon as its workers are free. */
#define CUT_GATE_WAIT_NS 500000ull
/* Waves a launch that is not ready yet may cut (cut_for_gated). */
#define CUT_ASKS 2

static uint64_t cut_quantum_ns(void)
{
    return (uint64_t)aos_daemon_config_get()->cut_quantum_us * 1000u;
}

/* Whether l's next wave may be cut: a direct kernel with a cuttable twin, groups long enough (for
 * whether others are present), and the whole device (a narrow wave leaves room beside it anyway). */
static bool wave_may_be_cut(const struct aos_logical *l, bool narrow, bool others)
{
    return l->cut_host && l->cut_kernel && cut_quantum_ns() && !narrow &&
           l->ns_per_vgroup_one >= (others ? CUT_MIN_GROUP_SHARED_NS : CUT_MIN_GROUP_NS);
}

/* Prepares l's cut record for its next wave: no wave of l runs, so the host owns it. */
static void cut_arm(struct aos_logical *l, uint32_t groups)
{
    double ahead = CUT_AHEAD_NS / l->ns_per_vgroup_one * groups;
    l->cut_host->ahead = ahead < 1 ? 1u : ahead > 65536 ? 65536u : (aos_u32)ahead;
    __atomic_store_n(&l->cut_host->claimed, 0u, __ATOMIC_SEQ_CST);
    l->cut_sent = false;
}

/* The running cuttable wave that has not been cut yet, or NULL. */
static struct aos_logical *cut_candidate(struct device_sched *d)
{
    for (struct aos_logical *l = d->launches; l; l = l->next)
        if (l->state == AOS_LOGICAL_RUNNING && l->wave_cuttable && !l->cut_sent)
            return l;
    return NULL;
}

/* r's client's virtual time with r's running wave counted so far (it is charged when it ends). */
static double vtime_with_wave(struct device_sched *d, const struct aos_logical *r)
{
    double v = aos_sched_vt_joining(d->vt, r->client);
    return v + (double)(aos_now_ns() - r->wave_submit_host_ns) * r->wave_share / r->weight;
}

/* How far client's virtual time (or the one it would have on joining) is below vr by more than the
 * quantum: > 0, a cut is due for it. */
static double cut_behind(struct device_sched *d, double vr, uint64_t client)
{
    return vr - (aos_sched_vt_joining(d->vt, client) + (double)cut_quantum_ns());
}

/* Has the scheduler thread step by `at` (host ns), unless it steps sooner already. */
static void cut_check_by(struct device_sched *d, uint64_t at)
{
    uint64_t was = atomic_load(&d->cut_check_at_ns);
    if (!was || at < was) {
        atomic_store(&d->cut_check_at_ns, at);
        wake_thread(d); /* it may be asleep for longer */
    }
}

/* Not behind enough yet (behind <= 0): has the scheduler thread step again when it would be, as
 * r's wave adds share / weight of virtual time per ns. */
static void cut_recheck(struct device_sched *d, const struct aos_logical *r, double behind)
{
    cut_check_by(d, aos_now_ns() + (uint64_t)(-behind * r->weight / r->wave_share) + 1);
}

/* Cuts r's running wave at its next claim, once its claims have shown in host memory
 * (aos_cut_stop); when it cannot be cut yet, the scheduler thread steps again soon, and the callers
 * ask again then: dropped, the cut left the wave to run out, up to a slice. */
static void cut(struct device_sched *d, struct aos_logical *r, const char *why)
{
    r->cut_sent = aos_cut_stop(&r->cut_host->claimed, &r->cut_proven);
    if (!r->cut_sent) {
        uint64_t now = aos_now_ns();
        cut_check_by(d, now + aos_cut_retry_in_ns(now - r->wave_submit_host_ns));
    }
    d->waves_cut += r->cut_sent;
    aos_log(AOS_LOG_DEBUG, "sched", "client %llu: %s wave %u %s for %s (claimed %#x)", (unsigned long long)r->client,
            r->kernel_name, r->waves, r->cut_sent ? "cut" : "not cut yet", why,
            __atomic_load_n(&r->cut_host->claimed, __ATOMIC_SEQ_CST));
}

/* Cuts the running cuttable wave for the first ready launch of another client in fair order when
 * that client is a quantum behind, or is the client the device was held for. */
static void cut_for_ready(struct device_sched *d, struct aos_logical **ls, const struct aos_sched_share *out,
                          const size_t *order, size_t n, uint64_t came)
{
    struct aos_logical *r = cut_candidate(d);
    if (!r)
        return;
    double vr = vtime_with_wave(d, r);
    for (size_t j = 0; j < n; j++) {
        size_t i = order[j];
        if (ls[i]->client == r->client || ls[i]->state != AOS_LOGICAL_READY || out[i].status != AOS_SCHED_RUN ||
            !out[i].groups)
            continue;
        if (ls[i]->client == came || cut_behind(d, vr, ls[i]->client) > 0)
            cut(d, r, "a ready launch");
        return;
    }
}

/* Cuts the running cuttable wave for a command of another client's that waits for the device (a
 * copy, a marker, a read's ordering: on PoCL each waits until the wave's groups are all handed
 * out), when that client is a quantum behind. Nothing waits for it afterwards: PoCL runs the
 * command before the cut launch's next wave, which comes after it. */
static void cut_for_command(struct device_sched *d, uint64_t client)
{
    struct aos_logical *r = cut_candidate(d);
    if (!r || r->client == client)
        return;
    double behind = cut_behind(d, vtime_with_wave(d, r), client);
    if (behind > 0) {
        cut(d, r, "a command");
        d->cut_command_client = r->cut_sent ? 0 : client;
        d->cut_command_wave = r;
        return;
    }
    /* Asked again when it would be behind enough, while this wave runs. */
    d->cut_command_client = client;
    d->cut_command_wave = r;
    cut_recheck(d, r, behind);
}

/* Cuts the running cuttable wave for a launch of another client that has come but is not ready,
 * once its client is (or would be, once its launch is ready) a quantum behind. On PoCL the launch's
 * gate, a marker, completes only once the running wave's groups are all handed out, and so does
 * any copy it waits for: it cannot wait to be ready. If nothing but the wave held it, it is ready
 * as the cut wave leaves, and the device waits that long for it; if its own work still does, the
 * next wave is the cut launch's again, so each launch cuts at most CUT_ASKS waves. When no launch
 * is behind enough yet, the scheduler thread looks again when the first would be. */
static void cut_for_gated(struct device_sched *d)
{
    struct aos_logical *r = cut_candidate(d);
    if (!r)
        return;
    double vr = vtime_with_wave(d, r), nearest = 0; /* the one nearest to being behind enough */
    bool waiting = false;
    for (struct aos_logical *o = d->launches; o; o = o->next) {
        if (o->state != AOS_LOGICAL_GATED || o->cut_asks >= CUT_ASKS || o->client == r->client)
            continue;
        double behind = cut_behind(d, vr, o->client);
        if (behind > 0) {
            cut(d, r, "a launch that came");
            o->cut_asks += r->cut_sent;
            if (r->cut_sent && !d->hold_client)
                hold_start(d, o->client, aos_now_ns() + CUT_GATE_WAIT_NS);
            return;
        }
        nearest = !waiting || behind > nearest ? behind : nearest;
        waiting = true;
    }
    if (waiting)
        cut_recheck(d, r, nearest);
}

static bool wave_start(struct device_sched *d, struct aos_logical *l, uint32_t groups, double share)
{
    const struct aos_sched_config *cfg = aos_daemon_config_get();
    uint64_t remaining = l->host.total_groups - l->host.budget;
    uint64_t slice_ns = (uint64_t)cfg->slice_ms * 1000000ull;
    if (l->ns_per_vgroup_one <= 0)
        l->ns_per_vgroup_one = l->remembered_one = estimate_get(d, l->estimate_key);
    bool narrow = false, others = others_present(d, l, slice_ns);
    if (l->direct) {
        /* The whole device, time-sliced; or all but one compute unit when one virtual group
         * outlasts a slice, so that the others' waves start beside it (plan). */
        uint32_t device = direct_width(d);
        groups = aos_sched_direct_width(device, l->ns_per_vgroup_one, slice_ns, others, remaining);
        narrow = groups < device && groups < remaining;
        share = (double)groups / device;
    }
    if (groups > remaining)
        groups = (uint32_t)remaining;
    double per_vgroup = l->ns_per_vgroup_one > 0 ? l->ns_per_vgroup_one / groups : 0.0;
    /* Lone: nobody else launched within a lone slice either, so a client between two launches
     * (host work of up to that long) does not come back to a lone wave. Not while the code is new
     * to the device (no time per virtual group remembered): its first waves also time the
     * device's compile, and the more waves after them, the sooner its estimate is the code's own
     * (which solo launches wait for). */
    uint64_t lone_ns = aos_sched_config_lone_ns(cfg);
    bool lone = !others && l->remembered_one > 0 && !others_present(d, l, lone_ns);
    uint64_t wave_slice = others ? response_slice(d, l->client, slice_ns) : lone ? lone_ns : slice_ns;
    /* A wave that can be cut need not be short for the others' sake: it ends when one of them is
     * a quantum behind (cut_for_ready, cut_for_gated, cut_for_command). */
    l->wave_cuttable = wave_may_be_cut(l, narrow, others);
    l->wave_alone = !others;
    if (others && l->wave_cuttable && cut_quantum_ns() > wave_slice)
        wave_slice = cut_quantum_ns() < slice_ns ? cut_quantum_ns() : slice_ns;
    uint64_t vgroups = narrow ? groups : aos_sched_slice_vgroups(per_vgroup, wave_slice, remaining, groups);
    if (l->wave_vgroups && vgroups > (uint64_t)l->wave_vgroups * WAVE_GROWTH)
        vgroups = (uint64_t)l->wave_vgroups * WAVE_GROWTH; /* a mismeasured wave cannot end slicing */
    vgroups = aos_sched_whole_rounds(vgroups, groups, remaining); /* the rest of a round is free */
    if (!l->run_queue && !(l->run_queue = queue_take(d, l->context)))
        return false;
    bool first = l->waves == 0;
    aos_u32 base = l->host.budget;
    struct wave_box box = {{0}, {0}, {0}};
    if (l->direct) { /* a box of the original dimensions: the row, rows or planes that fit */
        aos_u64 extent[3];
        vgroups = aos_vndrange_box(&l->host, base, (aos_u32)vgroups, box.origin, extent);
        aos_vndrange_box_ndrange(&l->host, box.origin, extent, box.global, box.offset);
    }
    /* The last wave ran every group below its budget; its fetch-adds may have carried the
     * device's `next` past it (accelos/vndrange.h), so each wave restarts next there. */
    aos_u32 chunk_was = l->host.chunk;
    l->host.next = base;
    if (!l->direct)
        wave_plan_chunks(l, groups, vgroups, base);
    l->host.budget += (aos_u32)vgroups;
    aos_u32 chunk_used = l->host.chunk ? l->host.chunk : l->compiled_chunk;
    if (!l->direct && chunk_used > l->max_chunk)
        l->max_chunk = chunk_used;
    if (l->wave_cuttable)
        cut_arm(l, groups);
    cut_wave_running(d, l->wave_cuttable ? l->client : 0);
    cl_event ev = NULL;
    cl_int err = wave_enqueue(l, groups, &box, first, l->host.chunk != chunk_was, &ev);
    if (err != CL_SUCCESS) {
        l->host.budget -= (aos_u32)vgroups;
        aos_log(AOS_LOG_WARN, "sched", "client %llu: wave of %s refused (%d)", (unsigned long long)l->client,
                l->kernel_name, err);
        launch_end(d, l, err);
        return false;
    }
    wave_running(d, +1);
    NATIVE(l->run_queue, clFlush)(l->run_queue);
    aos_log(AOS_LOG_DEBUG, "sched", "client %llu: %s %s wave %u: %u groups, virtual groups %u..%u of %u (%.0f ns each, chunk %u%s)",
            (unsigned long long)l->client, l->kernel_name, l->direct ? "direct" : "loop", l->waves + 1, groups, base,
            l->host.budget, l->host.total_groups, per_vgroup, chunk_used, l->wave_cuttable ? ", cuttable" : "");
    uint64_t now = aos_now_ns();
    d->waves_started++;
    d->waves_cuttable += l->wave_cuttable;
    l->state = AOS_LOGICAL_RUNNING;
    l->wave = ev;
    l->wave_groups = groups;
    l->wave_vgroups = (uint32_t)vgroups;
    l->wave_share = share > 0 && share <= 1 ? share : 1.0;
    l->wave_running_ns = 0;
    l->wave_submit_host_ns = now;
    if (first)
        l->first_wave_host_ns = now;
    l->waves++;
    history_note(l, now, groups);
    if (aos_event_when_done(ev, wave_ended, l) != CL_SUCCESS) {
        /* No completion would ever come: wait for it here rather than lose track of the wave. */
        cl_int st = NATIVE(ev, clWaitForEvents)(1, &ev) == CL_SUCCESS ? CL_COMPLETE : CL_OUT_OF_RESOURCES;
        on_wave(d, l, st, aos_now_ns());
    }
    return true;
}

/* Service order: the client's virtual time, then (between launches of one client) the device time
 * each launch has had, then arrival. */
struct fair_key {
    double vtime;
    uint64_t used_ns;
    uint64_t arrival;
    size_t index;
};

static int by_fair_order(const void *a, const void *b)
{
    const struct fair_key *x = a, *y = b;
    if (x->vtime != y->vtime)
        return x->vtime < y->vtime ? -1 : 1;
    if (x->used_ns != y->used_ns)
        return x->used_ns < y->used_ns ? -1 : 1;
    return x->arrival < y->arrival ? -1 : x->arrival > y->arrival;
}

/* Clears the cut check that is due, which this step does (the checks set the next one). Left set,
 * a step with no active launch to plan for would not clear it, and the scheduler thread, whose
 * wait ends at once for a past check, would spin. */
static void cut_check_due(struct device_sched *d)
{
    uint64_t at = atomic_load(&d->cut_check_at_ns);
    if (at && at <= aos_now_ns())
        atomic_compare_exchange_strong(&d->cut_check_at_ns, &at, 0);
}

/* Decides who runs next and starts their waves. */
static void plan(struct device_sched *d)
{
    cut_check_due(d);
    uint64_t came = hold_expire(d);
    size_t n = 0;
    for (struct aos_logical *l = d->launches; l; l = l->next)
        n += is_active(l);
    if (!n)
        return;
    struct aos_logical **ls = malloc(n * sizeof(*ls));
    struct aos_sched_kernel *k = malloc(n * sizeof(*k));
    struct fair_key *sorted = malloc(n * sizeof(*sorted));
    size_t *order = malloc(n * sizeof(*order));
    bool *running = malloc(n * sizeof(*running));
    struct aos_sched_share *out = malloc(n * sizeof(*out));
    if (!ls || !k || !sorted || !order || !running || !out)
        goto done;
    size_t i = 0;
    for (struct aos_logical *l = d->launches; l; l = l->next) {
        if (!is_active(l))
            continue;
        uint64_t left = l->host.total_groups - l->host.budget;
        ls[i] = l;
        k[i] = (struct aos_sched_kernel){.wg_threads = l->wg_threads, .local_mem = l->local_mem,
                                         .regs_per_thread = l->regs_per_thread,
                                         .total_groups = left ? left : 1, .weight = l->weight,
                                         .arrival = l->arrival};
        aos_sched_vt_get(d->vt, l->client, &k[i].vtime, NULL);
        /* The device waited for this client's launch: it goes first. */
        double vtime = l->client == came ? -INFINITY : k[i].vtime;
        sorted[i] = (struct fair_key){.vtime = vtime, .used_ns = l->device_ns, .arrival = l->arrival, .index = i};
        running[i] = l->state == AOS_LOGICAL_RUNNING;
        i++;
    }
    qsort(sorted, n, sizeof(*sorted), by_fair_order);
    for (i = 0; i < n; i++)
        order[i] = sorted[i].index;
    /* Neon's denial rule: a client more than one slice of whole-device time ahead waits a round. */
    double window = (double)aos_daemon_config_get()->slice_ms * 1e6;
    bool solved = d->have_model && aos_sched_fair_round(&d->model, k, n, order, running, window, out) == 0;
    if (!solved)
        for (i = 0; i < n; i++) /* no model: the whole device to each, in turn */
            out[i] = (struct aos_sched_share){.status = AOS_SCHED_RUN, .groups = k[i].total_groups, .share = 1.0};
    /* Running waves hold their groups until they end; start new waves once none holds more than
     * its new share, so the device is never asked for more than it has. */
    bool settled = true;
    for (i = 0; i < n; i++) /* direct waves do not take the solver's groups (below) */
        if (ls[i]->state == AOS_LOGICAL_RUNNING && !ls[i]->direct &&
            (out[i].status != AOS_SCHED_RUN || ls[i]->wave_groups > out[i].groups))
            settled = false;
    if (!solved) {
        settled = true;
        for (i = 0; i < n; i++)
            if (ls[i]->state == AOS_LOGICAL_RUNNING)
                settled = false;
    }
    /* Solo launches on the device run first, as a wave would: another client's wave started now
     * would go in front of them on the device (PoCL runs kernels in order of submission). They
     * end within solo_native_us, and the last one to end nudges the scheduler. Their own client's
     * launches go on: a solo launch may wait behind them on its queue. */
    uint64_t solo_owner = aos_solo_owner(d->index);
    /* A direct wave takes the whole device: it starts alone, and nothing starts beside it. A
     * narrow one (fewer virtual groups than compute units, and not short) leaves the rest to the others. */
    bool busy = false, direct_running = false, idle = true;
    for (i = 0; i < n; i++) {
        bool wide = running[i] && !direct_is_narrow(d, ls[i]);
        busy |= wide;
        direct_running |= wide && ls[i]->direct;
        idle &= !running[i];
    }
    if (direct_running && cut_quantum_ns())
        cut_for_ready(d, ls, out, order, n, came);
    bool hold = false; /* only an idle device waits (anticipation) */
    for (size_t j = 0; settled && idle && !solo_owner && j < n; j++) {
        i = order[j];
        if (ls[i]->state == AOS_LOGICAL_READY && out[i].status == AOS_SCHED_RUN && out[i].groups) {
            hold = hold_for_expected(d, k[i].vtime);
            break;
        }
    }
    for (size_t j = 0; settled && !direct_running && !hold && j < n; j++) {
        i = order[j];
        if (solo_owner && ls[i]->client != solo_owner)
            continue;
        if (ls[i]->state == AOS_LOGICAL_READY && out[i].status == AOS_SCHED_RUN && out[i].groups) {
            if (ls[i]->direct && busy)
                break; /* its turn comes when the running waves end */
            uint32_t g = out[i].groups > UINT32_MAX ? UINT32_MAX : (uint32_t)out[i].groups;
            bool started = wave_start(d, ls[i], g, out[i].share);
            bool narrow = started && direct_is_narrow(d, ls[i]);
            busy |= started && !narrow;
            if (!solved || (started && ls[i]->direct && !narrow))
                break;
        }
    }
done:
    free(ls);
    free(k);
    free(sorted);
    free(order);
    free(running);
    free(out);
    if (cut_quantum_ns()) {
        cut_for_gated(d);
        if (d->cut_command_client && cut_candidate(d) == d->cut_command_wave)
            cut_for_command(d, d->cut_command_client);
        else
            d->cut_command_client = 0;
    }
}

/* ---- Clients that left ------------------------------------------------------------------- */

static bool client_has_launch(struct device_sched *d, uint64_t client)
{
    for (struct aos_logical *o = d->launches; o; o = o->next)
        if (o->client == client)
            return true;
    return false;
}

/* Drops what the scheduler keeps per client (virtual time, gap history, a hold) for clients that
 * left and have nothing left here. A daemon serves clients by the million over its life: without
 * this every one of them stayed in the virtual-time table, which every step scans. */
static void forget_gone(struct device_sched *d, struct gone_client *arrived)
{
    while (arrived) {
        struct gone_client *next = arrived->next;
        arrived->next = d->gone_pending;
        d->gone_pending = arrived;
        arrived = next;
    }
    for (struct gone_client **p = &d->gone_pending; *p;) {
        struct gone_client *g = *p;
        if (client_has_launch(d, g->client)) {
            p = &g->next; /* its launches end at their next wave boundary */
            continue;
        }
        *p = g->next;
        if (d->hold_client == g->client)
            hold_release(d, aos_now_ns(), "client gone");
        struct recent_end *e = recent_of(d, g->client);
        if (e)
            *e = (struct recent_end){0};
        aos_sched_vt_forget(d->vt, g->client);
        free(g);
    }
}

static void free_gone(struct gone_client *g)
{
    while (g) {
        struct gone_client *next = g->next;
        free(g);
        g = next;
    }
}

/* ---- Thread ------------------------------------------------------------------------------- */

/* Takes what was posted, then plans, until nothing more is posted. Caller holds step_lock. A
 * callback that fires inside this step (clSetEventCallback on an ended event, clSetUserEventStatus)
 * finds the lock taken and posts: the next round picks it up. */
static void step(struct device_sched *d)
{
    for (bool first = true;; first = false) {
        pthread_mutex_lock(&d->lock);
        struct aos_logical_node *inbox = d->inbox;
        struct aos_logical *incoming = d->incoming;
        struct gone_client *gone = d->gone;
        struct held_solo_end solo_ends[HELD_SOLO_ENDS];
        uint32_t solo_ends_n = d->solo_ends_n;
        memcpy(solo_ends, d->solo_ends, solo_ends_n * sizeof(solo_ends[0]));
        uint64_t cut_wanted = d->cut_wanted_by;
        struct command_note notes[RECENT_ENDS];
        uint32_t notes_n = d->command_notes_n;
        memcpy(notes, d->command_notes, notes_n * sizeof(notes[0]));
        d->command_notes_n = 0;
        d->inbox = d->inbox_tail = NULL;
        d->incoming = NULL;
        d->gone = NULL;
        d->solo_ends_n = 0;
        d->cut_wanted_by = 0;
        pthread_mutex_unlock(&d->lock);
        if (!first && !inbox && !incoming && !gone && !solo_ends_n && !cut_wanted)
            return;
        for (uint32_t i = 0; i < notes_n; i++) {
            struct recent_end *r = recent_of(d, notes[i].client);
            if (r && notes[i].ns > r->command_ns)
                r->command_ns = notes[i].ns;
        }
        take_incoming(d, incoming);
        take_inbox(d, inbox);
        for (uint32_t i = 0; i < solo_ends_n; i++)
            on_held_solo_end(d, &solo_ends[i]);
        watch(d);
        plan(d);
        if (cut_wanted)
            cut_for_command(d, cut_wanted);
        if (d->cut_after_end && d->cut_after_end != cut_wanted)
            cut_for_command(d, d->cut_after_end);
        d->cut_after_end = 0;
        reap(d);
        forget_gone(d, gone);
        bool now = d->launches != NULL;
        if (atomic_exchange(&d->has_launches, now) != now && now) {
            wake_thread(d); /* it may wait untimed: it must start polling */
        }
    }
}

/* Runs a step on the calling thread when nobody else is stepping. Otherwise the stepper may
 * already have looked at the inbox: the scheduler thread is woken to take what is left. */
static void kick(struct device_sched *d)
{
    if (pthread_mutex_trylock(&d->step_lock) != 0) {
        wake_thread(d);
        return;
    }
    pthread_mutex_lock(&d->lock);
    bool stopping = d->stopping;
    pthread_mutex_unlock(&d->lock);
    if (!stopping)
        step(d);
    pthread_mutex_unlock(&d->step_lock);
}

static void *sched_main(void *arg)
{
    struct device_sched *d = arg;
    aos_thread_name("aos-sched");
    for (;;) {
        pthread_mutex_lock(&d->lock);
        while (!d->inbox && !d->incoming && !d->gone && !d->solo_ends_n && !d->poked && !d->stopping &&
               !d->cut_wanted_by) {
            if (!atomic_load(&d->has_launches)) {
                pthread_cond_wait(&d->cond, &d->lock);
                continue;
            }
            struct timespec ts;
            uint64_t wait = POLL_NS, now = aos_now_ns();
            uint64_t wakes[] = {atomic_load(&d->wake_at_ns), atomic_load(&d->cut_check_at_ns)};
            for (size_t w = 0; w < sizeof(wakes) / sizeof(wakes[0]); w++)
                if (wakes[w])
                    wait = wakes[w] <= now ? 0 : wakes[w] - now < wait ? wakes[w] - now : wait;
            if (!wait)
                break;
            aos_deadline_in(&ts, wait);
            if (pthread_cond_timedwait(&d->cond, &d->lock, &ts) == ETIMEDOUT)
                break;
        }
        bool stopping = d->stopping;
        d->poked = false;
        pthread_mutex_unlock(&d->lock);
        if (stopping)
            break;
        pthread_mutex_lock(&d->step_lock);
        step(d);
        pthread_mutex_unlock(&d->step_lock);
    }
    return NULL;
}

static struct device_sched *sched_for(uint32_t device)
{
    struct device_sched *d = &scheds[device];
    pthread_mutex_lock(&start_lock);
    if (!d->started) {
        d->index = device;
        d->dev = aos_device_at(device);
        pthread_mutex_init(&d->lock, NULL);
        pthread_mutex_init(&d->step_lock, NULL);
        pthread_mutex_init(&d->estimates_lock, NULL);
        pthread_mutex_init(&d->parked.lock, NULL);
        aos_cond_init_monotonic(&d->cond);
        d->vt = aos_sched_vt_new();
        if (d->vt)
            aos_sched_vt_set_rejoin_credit(d->vt, (uint64_t)aos_daemon_config_get()->rejoin_credit_us * 1000ull);
        d->have_model = aos_device_model(d->dev, &d->model);
        if (d->vt && pthread_create(&d->thread, NULL, sched_main, d) == 0)
            d->started = true;
        else
            aos_log(AOS_LOG_ERROR, "sched", "device %u: cannot start the scheduler thread", device);
    }
    bool ok = d->started;
    pthread_mutex_unlock(&start_lock);
    return ok ? d : NULL;
}

void aos_device_sched_submit(struct aos_logical *l)
{
    struct device_sched *d = sched_for(l->device);
    if (!d) {
        /* No thread to run it: the application's event fails rather than hanging. */
        NATIVE(l->user, clSetUserEventStatus)(l->user, CL_OUT_OF_RESOURCES);
        aos_device_sched_unadmit(l->s);
        aos_session_unref(l->s);
        aos_logical_unref(l);
        return;
    }
    aos_solo_logical_begin(l->s, l->device);
    pthread_mutex_lock(&d->lock);
    l->next = d->incoming;
    d->incoming = l;
    pthread_mutex_unlock(&d->lock);
    kick(d);
}

/* The device's scheduler, NULL when it never started (nothing ever ran there). */
static struct device_sched *sched_started(uint32_t device)
{
    if (device >= AOS_MAX_DEVICES)
        return NULL;
    struct device_sched *d = &scheds[device];
    pthread_mutex_lock(&start_lock);
    bool started = d->started;
    pthread_mutex_unlock(&start_lock);
    return started ? d : NULL;
}

/* Groups of a launch over virtual_groups that run at once on the whole device: one per compute
 * unit. A solo launch's time and a launch's expected time convert by it to and from the time per
 * virtual group on one compute unit. */
static uint64_t range_width(const struct device_sched *d, uint64_t virtual_groups)
{
    uint64_t units = direct_width(d);
    return units < virtual_groups ? units : virtual_groups;
}

/* The remembered time per virtual group on one compute unit of the code behind estimate_key on
 * dev (*one), and what a launch of virtual_groups groups of it takes on the whole device; 0 for
 * both when nothing is measured yet. Any thread. */
static double expected_on(const struct aos_device *dev, uint64_t estimate_key, uint64_t virtual_groups, double *one)
{
    struct device_sched *d = sched_started(dev->index);
    *one = 0;
    if (!d || !estimate_key || !virtual_groups || !d->have_model || !d->model.compute_units)
        return 0;
    pthread_mutex_lock(&d->estimates_lock);
    *one = aos_estimates_one(&d->estimates, estimate_key);
    pthread_mutex_unlock(&d->estimates_lock);
    return *one * (double)virtual_groups / (double)range_width(d, virtual_groups);
}

uint64_t aos_device_sched_expected_ns(const struct aos_device *dev, uint64_t estimate_key, uint64_t virtual_groups)
{
    double one, ns = expected_on(dev, estimate_key, virtual_groups, &one);
    return ns > 0 && ns < 1e18 ? (uint64_t)ns + 1 : 0; /* 0: nothing measured on it yet */
}

void aos_device_sched_solo_alone(uint32_t device, uint64_t estimate_key, uint64_t virtual_groups, uint64_t ran_ns)
{
    struct device_sched *d = sched_started(device);
    if (!d || !estimate_key || !virtual_groups || !ran_ns)
        return;
    estimate_put_alone(d, estimate_key, (double)ran_ns * (double)range_width(d, virtual_groups) / (double)virtual_groups,
                       true);
}

bool aos_device_sched_wave_runs(void)
{
    return atomic_load(&all_waves_running) != 0;
}

void aos_device_sched_command_waits(const struct aos_device *dev, uint64_t client)
{
    struct device_sched *d = sched_started(dev->index);
    if (!d || !atomic_load(&d->waves_running))
        return;
    uint64_t running = atomic_load(&d->cut_wave_client), now = aos_now_ns();
    bool cut_wanted = running && running != client;
    pthread_mutex_lock(&d->lock);
    /* For the scheduler thread's next step: the client is present (others_present), and a launch
     * of its that ends may have this command behind it (launch_end). */
    uint32_t i = 0;
    while (i < d->command_notes_n && d->command_notes[i].client != client)
        i++;
    if (i < RECENT_ENDS) {
        d->command_notes[i] = (struct command_note){.client = client, .ns = now};
        d->command_notes_n += i == d->command_notes_n;
    }
    if (cut_wanted)
        d->cut_wanted_by = client;
    pthread_mutex_unlock(&d->lock);
    if (cut_wanted)
        kick(d);
}

bool aos_device_sched_may_cut(const struct aos_device *dev, uint64_t estimate_key, uint64_t virtual_groups)
{
    if (!cut_quantum_ns() || !virtual_groups)
        return false;
    double one, ns = expected_on(dev, estimate_key, virtual_groups, &one);
    /* nothing measured yet: its waves decide. The lower threshold even for a client alone now:
     * another may come while the launch runs, and only a launch with the twin can be cut then. */
    return one <= 0 || (one >= CUT_MIN_GROUP_SHARED_NS && ns >= (double)cut_quantum_ns());
}

uint64_t aos_device_sched_runaway_allowance_ns(const struct aos_device *dev, uint64_t virtual_groups,
                                               uint64_t expected_ns, bool cold)
{
    uint64_t limit_ns = (uint64_t)aos_daemon_config_get()->vgroup_timeout_ms * 1000000ull;
    struct device_sched *d = sched_started(dev->index);
    if (!limit_ns || !virtual_groups)
        return 0;
    uint64_t width = d && d->have_model && d->model.compute_units ? d->model.compute_units : 1;
    if (width > virtual_groups)
        width = virtual_groups;
    return runaway_allowance_ns(limit_ns, (virtual_groups + width - 1) / width + 1, (double)expected_ns, cold);
}

void aos_device_sched_nudge(uint32_t device)
{
    struct device_sched *d = sched_started(device);
    if (!d)
        return;
    /* poked: when a step is under way, it may be past its plan, so the thread steps again. */
    pthread_mutex_lock(&d->lock);
    d->poked = true;
    pthread_mutex_unlock(&d->lock);
    kick(d);
}

uint64_t aos_device_sched_held_for(uint32_t device, uint64_t client)
{
    struct device_sched *d = sched_started(device);
    if (!d || !client || atomic_load(&d->held_client) != client)
        return 0;
    uint64_t solo_ns = atomic_load(&d->held_solo_ns), until = atomic_load(&d->held_until_ns);
    if (atomic_load(&d->held_client) != client)
        return 0; /* another hold began meanwhile: the two fields may be its */
    return aos_now_ns() < until ? solo_ns : 0;
}

void aos_device_sched_held_solo_ended(uint32_t device, uint64_t client, uint64_t claimed_ns, uint64_t ran_ns)
{
    struct device_sched *d = sched_started(device);
    if (!d)
        return;
    pthread_mutex_lock(&d->lock);
    if (d->solo_ends_n == HELD_SOLO_ENDS) /* only anticipation is lost: the oldest goes */
        memmove(d->solo_ends, d->solo_ends + 1, (HELD_SOLO_ENDS - 1) * sizeof(d->solo_ends[0]));
    else
        d->solo_ends_n++;
    d->solo_ends[d->solo_ends_n - 1] =
        (struct held_solo_end){.client = client, .claimed_ns = claimed_ns, .ended_ns = aos_now_ns(), .ran_ns = ran_ns};
    pthread_mutex_unlock(&d->lock);
    kick(d);
}

void aos_device_sched_client_gone(uint64_t client)
{
    for (uint32_t i = 0; i < AOS_MAX_DEVICES; i++) {
        struct device_sched *d = sched_started(i);
        struct gone_client *g = d ? malloc(sizeof(*g)) : NULL;
        if (!g)
            continue; /* never used, or no memory: it stays remembered, as before */
        pthread_mutex_lock(&d->lock);
        *g = (struct gone_client){.next = d->gone, .client = client};
        d->gone = g;
        pthread_mutex_unlock(&d->lock);
        kick(d);
    }
}

struct aos_device_sched_stats aos_device_sched_stats(uint32_t device)
{
    struct aos_device_sched_stats st = {0};
    struct device_sched *d = sched_started(device);
    if (!d)
        return st;
    pthread_mutex_lock(&d->step_lock);
    st.clients_known = aos_sched_vt_count(d->vt);
    st.parked_events = aos_event_park_count(&d->parked);
    st.waves_started = d->waves_started;
    st.waves_cut = d->waves_cut;
    st.waves_cuttable = d->waves_cuttable;
    st.holds = d->holds;
    st.held_ns = d->held_ns;
    pthread_mutex_unlock(&d->step_lock);
    st.alone_measures_waves = atomic_load(&d->alone_measures_waves);
    st.alone_measures_solo = atomic_load(&d->alone_measures_solo);
    return st;
}

void aos_device_sched_poke(void)
{
    for (uint32_t i = 0; i < AOS_MAX_DEVICES; i++) {
        struct device_sched *d = sched_started(i);
        if (!d)
            continue;
        pthread_mutex_lock(&d->lock);
        d->poked = true;
        pthread_cond_signal(&d->cond);
        pthread_mutex_unlock(&d->lock);
    }
    pthread_mutex_lock(&admit_lock);
    admit_init_locked();
    pthread_cond_broadcast(&admit_cond);
    pthread_mutex_unlock(&admit_lock);
}

void aos_device_sched_shutdown(void)
{
    for (uint32_t i = 0; i < AOS_MAX_DEVICES; i++) {
        struct device_sched *d = &scheds[i];
        if (!d->started)
            continue;
        pthread_mutex_lock(&d->lock);
        d->stopping = true;
        pthread_cond_signal(&d->cond);
        pthread_mutex_unlock(&d->lock);
        pthread_join(d->thread, NULL);
        pthread_mutex_lock(&d->step_lock); /* a poster's step still under way */
        pthread_mutex_unlock(&d->step_lock);
        d->started = false;
        while (d->idle_queues) {
            struct run_queue *r = d->idle_queues;
            d->idle_queues = r->next;
            NATIVE(r->queue, clReleaseCommandQueue)(r->queue);
            free(r);
        }
        aos_event_park_release_all(&d->parked);
        free_gone(d->gone);
        free_gone(d->gone_pending);
        d->gone = d->gone_pending = NULL;
        aos_sched_vt_destroy(d->vt);
        d->vt = NULL;
    }
}
