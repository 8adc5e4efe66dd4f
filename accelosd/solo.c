/*
 * Solo launches: see solo.h. The state is per device and small, under its own lock, so a service
 * thread can decide without the scheduler's step lock.
 *
 * Why it is safe for the others: a solo launch is never longer than solo_native_us by the
 * measured time per virtual group that would also size its first wave, so a client that arrives
 * meanwhile waits less than it would for a running wave. A kernel measured on cheap arguments and
 * launched on costly ones overruns a wave sized from that measurement just the same.
 */
#include "solo.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "accelos/futex.h"
#include "accelos/log.h"
#include "accelos/sched_config.h"
#include "accelos/wire_core.h"
#include "daemon_config.h"
#include "device_sched.h"
#include "ops.h"
#include "session.h"

#define SOLO_MAX_INFLIGHT 16u /* solo launches of the solo client at once */

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
};

struct aos_solo_claim {
    struct aos_session *s; /* one reference: it counts the launch in flight (in-flight limit) */
    cl_event ev;           /* the launch; alive while solo_ended runs (aos_event_when_done) */
    uint32_t device;
    uint64_t client, code_key, expected_ns;
    uint64_t claimed_ns;
    bool behind_own; /* the client's own logical launches were in flight: it may wait behind them */
};

/* Code whose solo launch overran its estimate (its run time depends on its arguments or data):
 * it never runs solo again, so the watchdog covers it (a ring: the oldest is forgotten). */
#define UNPREDICTABLE_CODES 64u
static uint64_t unpredictable[UNPREDICTABLE_CODES];
static uint32_t unpredictable_next;

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

static bool unpredictable_locked(uint64_t code_key)
{
    for (uint32_t i = 0; i < UNPREDICTABLE_CODES; i++)
        if (unpredictable[i] == code_key)
            return true;
    return false;
}

struct aos_solo_claim *aos_solo_claim(struct aos_session *s, uint32_t device, uint64_t code_key, uint64_t expected_ns)
{
    const struct aos_sched_config *cfg = aos_daemon_config_get();
    uint64_t limit_ns = (uint64_t)cfg->solo_native_us * 1000ull, client = s->serial;
    if (device >= AOS_MAX_DEVICES || !client || !code_key || !expected_ns || expected_ns > limit_ns)
        return NULL;
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
                                 .expected_ns = expected_ns, .claimed_ns = now};
    pthread_mutex_lock(&solo_lock);
    present_note_locked(s, device);
    struct live_count *own = live_slot_locked(d, client, false);
    c->behind_own = own != NULL;
    bool ok = d->present == 1 && !others_live_locked(d, client) && (!d->inflight || d->owner == client) &&
              d->inflight < SOLO_MAX_INFLIGHT && d->inflight_ns + expected_ns <= limit_ns &&
              !unpredictable_locked(code_key);
    if (ok) {
        d->owner = client;
        d->inflight++;
        d->inflight_ns += expected_ns;
        d->shield_until_ns = now + limit_ns;
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

/* Overran: longer than SOLO_OVERRUN times its estimate and than a slice past it. */
#define SOLO_OVERRUN 4u

static void solo_end(struct aos_solo_claim *c, cl_event ev, cl_int status)
{
    struct solo_device *d = &devices[c->device];
    uint64_t ran = status == CL_COMPLETE ? solo_ran_ns(c, ev) : 0, slice_ns = (uint64_t)aos_daemon_config_get()->slice_ms * 1000000ull;
    bool overran = ran > c->expected_ns * SOLO_OVERRUN && ran > c->expected_ns + slice_ns;
    if (overran)
        aos_log(AOS_LOG_INFO, "solo", "client %llu: a solo launch ran %.2f ms, estimate %.2f ms: its code runs in waves "
                "from now on", (unsigned long long)c->client, (double)ran / 1e6, (double)c->expected_ns / 1e6);
    pthread_mutex_lock(&solo_lock);
    if (overran && !unpredictable_locked(c->code_key)) {
        unpredictable[unpredictable_next] = c->code_key;
        unpredictable_next = (unpredictable_next + 1) % UNPREDICTABLE_CODES;
    }
    d->inflight--;
    d->inflight_ns -= c->expected_ns;
    if (!d->inflight)
        d->owner = 0;
    bool last = !d->inflight;
    pthread_mutex_unlock(&solo_lock);
    if (last)
        aos_device_sched_nudge(c->device); /* waves wait for solo launches to end */
    aos_device_sched_unadmit(c->s);
    aos_session_unref(c->s);
    free(c);
}

/* When the launch ended or failed (PoCL calls no callback on a failed event: ops.h). */
static void solo_ended(cl_int status, void *data)
{
    struct aos_solo_claim *c = data;
    solo_end(c, c->ev, status);
}

void aos_solo_started(struct aos_solo_claim *c, cl_event ev)
{
    c->ev = ev;
    if (ev && aos_event_when_done(ev, solo_ended, c) == CL_SUCCESS)
        return;
    if (ev)
        aos_log(AOS_LOG_WARN, "solo", "cannot watch a solo launch's event: counted as ended");
    solo_end(c, NULL, CL_COMPLETE);
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
