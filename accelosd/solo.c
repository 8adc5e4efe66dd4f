/*
 * Solo launches: see solo.h. The state is per device and small, under its own lock, so a service
 * thread can decide without the scheduler's step lock.
 *
 * Why it is safe for the others: a solo launch is never longer than solo_native_us by the
 * measured time per virtual group that would also size its first wave, and those in flight
 * together no longer than a lone wave (lone_slice_ms), so a client that arrives meanwhile waits no
 * longer than it would for the running wave of a launch alone. A kernel measured on cheap arguments and
 * launched on costly ones overruns a wave sized from that measurement just the same.
 */
#include "solo.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "accelos/code_strikes.h"
#include "accelos/futex.h"
#include "accelos/log.h"
#include "accelos/sched_config.h"
#include "accelos/wire_core.h"
#include "daemon_config.h"
#include "device_sched.h"
#include "event_park.h"
#include "mono_cond.h"
#include "ops.h"
#include "session.h"

#define SOLO_MAX_INFLIGHT 64u /* solo launches of the solo client at once */

#define LIVE_CLIENTS 8u /* clients with logical launches told apart per device; more count as others */

struct live_count {
    uint64_t client;
    uint32_t n;
};

struct solo_device {
    /* Clients that launched here and are still connected: a client is alone only when it is the
     * one, since another between its launches (host work, copies) comes back within moments. */
    uint32_t present;
    uint32_t logical_live; /* logical launches submitted and not ended */
    struct live_count live[LIVE_CLIENTS]; /* of them, per client (clients past the table: not listed) */
    uint64_t owner;        /* the client whose solo launches are in flight; 0 = none */
    uint32_t inflight;
    uint64_t inflight_ns;  /* their expected time */
    uint64_t shield_until_ns; /* other clients' waves wait for them until then (aos_solo_owner) */
    bool held_inflight;       /* they were claimed while the device was held for their client */
    uint64_t held_limit_ns;   /* then: how long they may take together */
};

struct aos_solo_fate {
    _Atomic int refs;
    _Atomic cl_int failed; /* set before user fails, so a client woken by it reads the error */
    _Atomic bool settled;  /* user's status is set: once, by the launch's end or the watchdog */
    cl_event user;         /* one reference until settled */
};

struct aos_solo_claim {
    _Atomic int refs;      /* the launch until it ends; the watch list while on it */
    struct aos_session *s; /* one reference; the launch counts in flight until it ends (in-flight limit) */
    cl_event ev;           /* the launch; one reference of the claim's own while it is watched */
    struct aos_solo_fate *fate;
    uint32_t device;
    uint64_t client, code_key, expected_ns, virtual_groups;
    uint64_t claimed_ns;
    uint64_t allowance_ns; /* the runaway rule's limit on its run time; 0 = none */
    uint64_t running_ns;   /* when the watchdog first saw it run (watchdog thread only) */
    bool ended;            /* solo_end ran (solo_lock) */
    bool cold;             /* may also time the device's compile: no overrun counts */
    bool behind_own; /* the client's own logical launches were in flight: it may wait behind them */
    bool only;       /* nothing of the client's was in flight: its end less its claim is its run */
    bool held;       /* claimed while the device was held for the client, not alone: the scheduler hears of its end */
    struct aos_solo_claim *watch_next, *scan_next;
};

/* Solo launches with a limit, checked as often as the scheduler checks its waves. */
#define WATCH_POLL_NS 20000000ull
#define RUNAWAY_STATUS CL_OUT_OF_RESOURCES

static struct {
    pthread_cond_t cond;
    bool started;
    struct aos_solo_claim *head;
} watch;

/* Failed user events: never released (event_park.h). */
static struct aos_event_park parked = AOS_EVENT_PARK_INIT;

/* Code whose solo launches overran their estimate twice (its run time depends on its arguments or
 * data) or ran away: it never runs solo again, so the watchdog covers it. One overrun is a strike
 * that launches on time take back (accelos/code_strikes.h). */
static struct aos_code_strikes strikes;

/* One lock for every device: it is held for a few comparisons, once or twice per launch. */
static pthread_mutex_t solo_lock = PTHREAD_MUTEX_INITIALIZER;
static struct solo_device devices[AOS_MAX_DEVICES];

static struct live_count *live_slot_locked(struct solo_device *d, uint64_t client, bool add)
{
    struct live_count *free_slot = NULL;
    for (uint32_t i = 0; i < LIVE_CLIENTS; i++) {
        if (d->live[i].n && d->live[i].client == client)
            return &d->live[i];
        if (!d->live[i].n && !free_slot)
            free_slot = &d->live[i];
    }
    if (!add || !free_slot)
        return NULL;
    *free_slot = (struct live_count){.client = client};
    return free_slot;
}

/* Logical launches of clients other than client: its own ones only delay its solo launch, which
 * waits behind them on its queue. */
static uint32_t others_live_locked(struct solo_device *d, uint64_t client)
{
    struct live_count *own = live_slot_locked(d, client, false);
    return d->logical_live - (own ? own->n : 0);
}

/* Counts s present on device at its first launch there. */
static void present_note_locked(struct aos_session *s, uint32_t device)
{
    uint64_t bit = 1ull << device;
    if (!(s->solo_devices & bit)) {
        s->solo_devices |= bit;
        devices[device].present++;
    }
}

/* The expected time of the solo launches in flight together: a client that arrives waits for them
 * as it would for the running wave of a launch alone (aos_sched_lone_slice), and for one solo
 * launch at least. */
static uint64_t inflight_limit_ns(const struct aos_sched_config *cfg)
{
    uint64_t one = (uint64_t)cfg->solo_native_us * 1000ull, wave = aos_sched_config_lone_ns(cfg);
    return wave > one ? wave : one;
}

struct aos_solo_claim *aos_solo_claim(struct aos_session *s, uint32_t device, uint64_t code_key, uint64_t virtual_groups,
                                      uint64_t expected_ns)
{
    const struct aos_sched_config *cfg = aos_daemon_config_get();
    uint64_t limit_ns = (uint64_t)cfg->solo_native_us * 1000ull, client = s->serial;
    uint64_t inflight_ns = inflight_limit_ns(cfg);
    if (device >= AOS_MAX_DEVICES || !client || !code_key || !expected_ns || expected_ns > limit_ns)
        return NULL;
    /* Held for: nobody else runs until its next launch (dsched_hold.c, held solo launches). Asked
     * before solo_lock: the scheduler's state has its own. */
    uint64_t held_ns = aos_device_sched_held_for(device, client);
    struct aos_solo_claim *c = malloc(sizeof(*c));
    if (!c)
        return NULL;
    if (!aos_device_sched_try_admit(s)) {
        free(c);
        return NULL; /* at its in-flight limit: the scheduler's admission blocks it */
    }
    struct solo_device *d = &devices[device];
    uint64_t now = aos_now_ns();
    *c = (struct aos_solo_claim){.s = s, .device = device, .client = client, .code_key = code_key,
                                 .virtual_groups = virtual_groups, .expected_ns = expected_ns, .claimed_ns = now};
    atomic_init(&c->refs, 1);
    pthread_mutex_lock(&solo_lock);
    present_note_locked(s, device);
    struct live_count *own = live_slot_locked(d, client, false);
    c->behind_own = own != NULL;
    bool alone = d->present == 1 && !others_live_locked(d, client);
    /* Once one is claimed, the client's next ones (queued at once) join it within the same limit:
     * the hold is over, since the scheduler sees them only when they end. */
    if (d->inflight && d->held_inflight && d->owner == client)
        held_ns = d->held_limit_ns;
    bool held = !alone && held_ns && (!d->inflight || d->held_inflight) && d->inflight_ns + expected_ns <= held_ns;
    bool ok = (alone || held) && (!d->inflight || d->owner == client) && d->inflight < SOLO_MAX_INFLIGHT &&
              d->inflight_ns + expected_ns <= inflight_ns && !aos_code_strikes_unpredictable(&strikes, code_key);
    c->held = held;
    if (ok) {
        c->only = !c->behind_own && d->inflight == 0;
        d->owner = client;
        d->held_inflight = held;
        if (held && d->inflight == 0)
            d->held_limit_ns = held_ns;
        d->inflight++;
        d->inflight_ns += expected_ns;
        d->shield_until_ns = now + (d->inflight_ns > limit_ns ? d->inflight_ns : limit_ns);
    }
    pthread_mutex_unlock(&solo_lock);
    if (!ok) {
        aos_device_sched_unadmit(s);
        free(c);
        return NULL;
    }
    aos_session_ref(s);
    return c;
}

/* How long the launch ran: its profiling times where its queue has them, else the host time since
 * the claim when nothing of its client's was ahead of it; 0 when unknown. */
static uint64_t solo_ran_ns(const struct aos_solo_claim *c, cl_event ev)
{
    cl_ulong start = 0, end = 0;
    if (ev && NATIVE(ev, clGetEventProfilingInfo)(ev, CL_PROFILING_COMMAND_START, sizeof(start), &start, NULL) ==
                  CL_SUCCESS &&
        NATIVE(ev, clGetEventProfilingInfo)(ev, CL_PROFILING_COMMAND_END, sizeof(end), &end, NULL) == CL_SUCCESS)
        return end > start ? end - start : 0;
    return c->behind_own || !ev ? 0 : aos_now_ns() - c->claimed_ns;
}

/* Sets the application's user event, once: status CL_COMPLETE or an error, which s's service
 * thread sets (status_mailbox.h). */
static void fate_settle(struct aos_solo_fate *f, struct aos_session *s, cl_int status)
{
    if (!f || atomic_exchange(&f->settled, true))
        return;
    if (status != CL_COMPLETE) {
        atomic_store(&f->failed, status);
        aos_session_fail_user_event(s, f->user, status, &parked);
    } else {
        aos_status_apply(f->user, CL_COMPLETE, &parked);
    }
    f->user = NULL;
}

cl_int aos_solo_fate_failed(const struct aos_solo_fate *f)
{
    return f ? atomic_load(&f->failed) : 0;
}

void aos_solo_fate_unref(struct aos_solo_fate *f)
{
    if (!f || atomic_fetch_sub(&f->refs, 1) != 1)
        return;
    if (f->user) /* never settled: only when the launch could not be watched at all */
        fate_settle(f, NULL, CL_COMPLETE);
    free(f);
}

static void claim_unref(struct aos_solo_claim *c)
{
    if (atomic_fetch_sub(&c->refs, 1) != 1)
        return;
    aos_solo_fate_unref(c->fate);
    aos_session_unref(c->s);
    free(c);
}

/* Nobody can see a dead client's events, and its queues may already be released: PoCL 3.1
 * propagating a failure into a released queue's command aborts the daemon (device_sched.c). */
static cl_int user_status_for(const struct aos_solo_claim *c, cl_int status)
{
    return status == CL_COMPLETE || atomic_load(&c->s->dead) ? CL_COMPLETE : status;
}

/* Overran: longer than SOLO_OVERRUN times its estimate and than a slice past it. */
#define SOLO_OVERRUN 4u

/* The launch's end: it leaves the device's accounting before its application event completes, so
 * that the client's next launch, sent the moment it completes, finds it gone. */
static void solo_end(struct aos_solo_claim *c, cl_event ev, cl_int status)
{
    struct solo_device *d = &devices[c->device];
    uint64_t ended_ns = aos_now_ns();
    uint64_t ran = status == CL_COMPLETE ? solo_ran_ns(c, ev) : 0;
    uint64_t slice_ns = (uint64_t)aos_daemon_config_get()->slice_ms * 1000000ull;
    bool overran = !c->cold && ran > c->expected_ns * SOLO_OVERRUN && ran > c->expected_ns + slice_ns &&
                   !aos_solo_fate_failed(c->fate); /* an aborted one was marked already */
    pthread_mutex_lock(&solo_lock);
    bool unpredictable = overran && aos_code_strikes_overran(&strikes, c->code_key);
    if (!overran && ran && !c->cold)
        aos_code_strikes_on_time(&strikes, c->code_key);
    c->ended = true;
    d->inflight--;
    d->inflight_ns -= c->expected_ns;
    if (!d->inflight)
        d->owner = 0;
    bool last = !d->inflight;
    pthread_mutex_unlock(&solo_lock);
    if (overran)
        aos_log(AOS_LOG_INFO, "solo", "client %llu: a solo launch ran %.2f ms, estimate %.2f ms: %s",
                (unsigned long long)c->client, (double)ran / 1e6, (double)c->expected_ns / 1e6,
                unpredictable ? "overran again, its code runs in waves from now on"
                              : "a strike, its code still runs solo");
    fate_settle(c->fate, c->s, user_status_for(c, status));
    /* A launch that had the device to itself: the code's speed alone. Timed as a wave is, from
     * its enqueue to its end as the host sees it (the device's own times leave out the launch's
     * cost, which a wave's include), so only when nothing of its client's was ahead of it. */
    if (ran && !overran && !c->cold && !c->held && c->only)
        aos_device_sched_solo_alone(c->device, c->code_key, c->virtual_groups, ended_ns - c->claimed_ns);
    if (c->held)
        aos_device_sched_held_solo_ended(c->device, c->client, c->claimed_ns, ran);
    else if (last)
        aos_device_sched_nudge(c->device); /* waves wait for solo launches to end */
    aos_device_sched_unadmit(c->s);
    claim_unref(c);
}

/* When the launch ended or failed (PoCL calls no callback on a failed event: ops.h). */
static void solo_ended(cl_int status, void *data)
{
    struct aos_solo_claim *c = data;
    solo_end(c, c->ev, status);
}

/* The runaway rule for a solo launch (docs/scheduler.md §6): its application event fails at once,
 * as a logical launch's does; the kernel runs its groups out, and its code runs in waves from now
 * on, where the watchdog can end a launch between them. */
static void watch_check(struct aos_solo_claim *c, uint64_t now)
{
    if (atomic_load(&c->fate->settled))
        return;
    if (!c->running_ns) {
        cl_int st = CL_QUEUED;
        NATIVE(c->ev, clGetEventInfo)(c->ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, NULL);
        if (st <= CL_RUNNING)
            c->running_ns = now;
        return;
    }
    if (now - c->running_ns <= c->allowance_ns)
        return;
    aos_log(AOS_LOG_WARN, "solo",
            "client %llu: a solo launch ran past the virtual-group limit (%.1f ms, allowed %.1f ms, estimate "
            "%.2f ms): launch aborted, its code runs in waves from now on",
            (unsigned long long)c->client, (double)(now - c->running_ns) / 1e6, (double)c->allowance_ns / 1e6,
            (double)c->expected_ns / 1e6);
    pthread_mutex_lock(&solo_lock);
    aos_code_strikes_ran_away(&strikes, c->code_key);
    pthread_mutex_unlock(&solo_lock);
    fate_settle(c->fate, c->s, user_status_for(c, RUNAWAY_STATUS));
}

static void *watch_main(void *arg)
{
    (void)arg;
    aos_thread_name("aos-solo-watch");
    pthread_mutex_lock(&solo_lock);
    for (;;) {
        while (!watch.head)
            pthread_cond_wait(&watch.cond, &solo_lock);
        struct timespec ts;
        aos_deadline_in(&ts, WATCH_POLL_NS);
        while (pthread_cond_timedwait(&watch.cond, &solo_lock, &ts) != ETIMEDOUT)
            ;
        /* Ended launches leave the list; the others are checked without the lock, since PoCL
         * may call solo_ended, which takes it, from inside its event calls. */
        struct aos_solo_claim *scan = NULL, *gone = NULL;
        for (struct aos_solo_claim **p = &watch.head; *p;) {
            struct aos_solo_claim *c = *p;
            if (c->ended) {
                *p = c->watch_next;
                c->scan_next = gone;
                gone = c;
                continue;
            }
            atomic_fetch_add(&c->refs, 1);
            c->scan_next = scan;
            scan = c;
            p = &c->watch_next;
        }
        pthread_mutex_unlock(&solo_lock);
        uint64_t now = aos_now_ns();
        for (struct aos_solo_claim *c = scan, *next; c; c = next) {
            next = c->scan_next;
            watch_check(c, now);
            claim_unref(c);
        }
        for (struct aos_solo_claim *c = gone, *next; c; c = next) {
            next = c->scan_next;
            aos_event_release_or_park(&parked, c->ev);
            claim_unref(c);
        }
        pthread_mutex_lock(&solo_lock);
    }
    return NULL;
}

/* Puts c on the watchdog's list (a reference and its own one on c->ev). */
static void watch_add(struct aos_solo_claim *c)
{
    pthread_mutex_lock(&solo_lock);
    if (aos_poller_start_locked(&watch.started, &watch.cond, watch_main)) {
        NATIVE(c->ev, clRetainEvent)(c->ev);
        atomic_fetch_add(&c->refs, 1);
        bool asleep = !watch.head; /* otherwise it polls already: no wake-up per launch */
        c->watch_next = watch.head;
        watch.head = c;
        if (asleep)
            pthread_cond_signal(&watch.cond);
    } else {
        aos_log(AOS_LOG_WARN, "solo", "cannot start the solo watchdog: a solo launch runs without a limit");
    }
    pthread_mutex_unlock(&solo_lock);
}

struct aos_solo_fate *aos_solo_started(struct aos_solo_claim *c, cl_event ev, cl_event user, uint64_t allowance_ns,
                                       bool cold)
{
    c->ev = ev;
    c->cold = cold;
    struct aos_solo_fate *f = ev && user ? calloc(1, sizeof(*f)) : NULL;
    if (f) {
        atomic_init(&f->refs, 2); /* the claim's and the caller's */
        f->user = user;
        c->fate = f;
    } else if (user) {
        NATIVE(user, clSetUserEventStatus)(user, CL_COMPLETE);
        NATIVE(user, clReleaseEvent)(user);
    }
    c->allowance_ns = allowance_ns;
    if (f && allowance_ns)
        watch_add(c);
    if (ev && aos_event_when_done(ev, solo_ended, c) == CL_SUCCESS)
        return f;
    if (ev)
        aos_log(AOS_LOG_WARN, "solo", "cannot watch a solo launch's event: counted as ended");
    solo_end(c, NULL, CL_COMPLETE);
    return f;
}

void aos_solo_logical_begin(struct aos_session *s, uint32_t device)
{
    if (device >= AOS_MAX_DEVICES)
        return;
    struct solo_device *d = &devices[device];
    uint64_t client = s->serial;
    pthread_mutex_lock(&solo_lock);
    present_note_locked(s, device);
    d->logical_live++;
    struct live_count *own = live_slot_locked(d, client, true);
    if (own)
        own->n++;
    pthread_mutex_unlock(&solo_lock);
}

void aos_solo_logical_end(uint32_t device, uint64_t client)
{
    if (device >= AOS_MAX_DEVICES)
        return;
    struct solo_device *d = &devices[device];
    pthread_mutex_lock(&solo_lock);
    if (d->logical_live)
        d->logical_live--;
    struct live_count *own = live_slot_locked(d, client, false);
    if (own)
        own->n--;
    pthread_mutex_unlock(&solo_lock);
}

void aos_solo_client_gone(struct aos_session *s)
{
    pthread_mutex_lock(&solo_lock);
    for (uint32_t i = 0; i < AOS_MAX_DEVICES; i++) {
        if (s->solo_devices & (1ull << i))
            devices[i].present--;
    }
    s->solo_devices = 0;
    pthread_mutex_unlock(&solo_lock);
}

uint64_t aos_solo_owner(uint32_t device)
{
    if (device >= AOS_MAX_DEVICES)
        return 0;
    uint64_t now = aos_now_ns();
    pthread_mutex_lock(&solo_lock);
    const struct solo_device *d = &devices[device];
    uint64_t owner = d->inflight && now < d->shield_until_ns ? d->owner : 0;
    pthread_mutex_unlock(&solo_lock);
    return owner;
}
