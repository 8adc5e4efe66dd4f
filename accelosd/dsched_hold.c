/*
 * Anticipation: the device, idle, is held for a client whose next launch is expected at once
 * (queued behind the one that ended, or sent by habit after a short gap), and a short launch of
 * that client's runs natively meanwhile (held solo launches, solo.c). docs/scheduler.md §6,
 * *Anticipation*, *Held solo launches*.
 */
#include "accelos/futex.h"
#include "accelos/log.h"
#include "accelos/sched_config.h"
#include "daemon_config.h"
#include "dsched.h"

/*
 * A client whose launch has just ended and whose next launch already waits behind it on its queue
 * (gated) would lose its turn if the device went straight on with another client's wave: with
 * whole-device waves, a client of many short launches would wait a slice per launch. So the device
 * is held for it, up to anticipate_us after its end (anticipatory scheduling, after Iyer and
 * Druschel's for disks), while its virtual time is not ahead of the next ready client's, and its
 * launch runs first when it comes. The wait is charged to its virtual time at hold_charge_pct
 * (default all) of whole-device use: holding cannot idle the device for free. Until then it stays
 * active in virtual time, so it keeps its place instead of rejoining (which keeps at most the
 * rejoin credit of its lag). A client whose next launch is already queued is also held for while
 * at most anticipate_lead_us ahead (aos_sched_hold_allowed): the launch is ready within
 * microseconds. (Holding for any expected
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
    struct recent_end *e = dsched_recent_of(d, client);
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
void dsched_think_note(struct device_sched *d, const struct aos_logical *l)
{
    if (dsched_client_has_active(d, NULL, l->client) || dsched_client_has_gated(d, l->client))
        return; /* launches in a row: not a gap */
    think_gap(d, l->client, l->arrival_host_ns);
}

/* How long to hold the device for client after its launch ended, 0 for not at all. */
static uint64_t expected_hold_ns(struct device_sched *d, uint64_t client)
{
    uint64_t window = anticipate_ns();
    if (!window)
        return 0;
    if (dsched_client_has_gated(d, client))
        return window;
    const struct recent_end *e = dsched_recent_of(d, client);
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
struct recent_end *dsched_end_note(struct device_sched *d, uint64_t client, uint64_t ended_ns)
{
    /* A client whose next launch is expected soon stays active (anticipation). */
    bool active = dsched_client_has_active(d, NULL, client);
    uint64_t hold_ns = active ? 0 : expected_hold_ns(d, client);
    struct recent_end *e = dsched_recent_end_set(d, client, ended_ns, hold_ns);
    if (!active && !hold_ns)
        aos_sched_vt_leave(d->vt, client);
    return e;
}

/* Ends the hold, charging its client for the time held; why is for the debug log. */
void dsched_hold_release(struct device_sched *d, uint64_t now, const char *why)
{
    uint64_t end = now < d->hold_until_ns ? now : d->hold_until_ns;
    uint64_t held = end > d->hold_start_ns ? end - d->hold_start_ns : 0;
    if (held) {
        double share = aos_daemon_config_get()->hold_charge_pct / 100.0;
        aos_sched_vt_charge(d->vt, d->hold_client, held, share);
        d->held_ns += held;
        d->held_charged_ns += (uint64_t)((double)held * share);
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
uint64_t dsched_hold_expire(struct device_sched *d)
{
    uint64_t now = aos_now_ns(), came = 0;
    for (uint32_t i = 0; i < RECENT_ENDS; i++) {
        struct recent_end *e = &d->recent[i];
        if (!e->lingering)
            continue;
        bool active = dsched_client_has_active(d, NULL, e->client);
        if (!active && now - e->ns < e->hold_ns)
            continue;
        e->lingering = false;
        if (!active)
            aos_sched_vt_leave(d->vt, e->client);
    }
    if (!d->hold_client)
        return 0;
    if (dsched_client_has_active(d, NULL, d->hold_client))
        came = d->hold_client;
    if (came || now >= d->hold_until_ns)
        dsched_hold_release(d, now, came ? "its launch came" : "time up");
    return came;
}

/* Holds the device for client's next launch until until_ns (or until it is ready: dsched_hold_expire). */
void dsched_hold_start(struct device_sched *d, uint64_t client, uint64_t until_ns)
{
    d->hold_client = client;
    d->hold_start_ns = aos_now_ns();
    d->holds++;
    d->hold_until_ns = until_ns;
    uint64_t slice_ns = (uint64_t)aos_daemon_config_get()->slice_ms * 1000000ull;
    atomic_store(&d->held_solo_ns, dsched_response_slice(d, client, slice_ns));
    atomic_store(&d->held_until_ns, d->hold_until_ns);
    atomic_store(&d->held_client, client);
    atomic_store(&d->wake_at_ns, d->hold_until_ns);
    dsched_wake_thread(d); /* it may be asleep for longer than the hold */
}

/* Whether the device, idle, waits for an expected launch instead of starting a wave of the next
 * ready client (virtual time next_vtime). */
bool dsched_hold_for_expected(struct device_sched *d, double next_vtime)
{
    if (d->hold_client)
        return true;
    uint64_t lead_ns = (uint64_t)aos_daemon_config_get()->anticipate_lead_us * 1000ull;
    for (uint32_t i = 0; i < RECENT_ENDS; i++) {
        const struct recent_end *e = &d->recent[i];
        double vtime = 0;
        if (!e->lingering || aos_sched_vt_get(d->vt, e->client, &vtime, NULL) != 0 ||
            !aos_sched_hold_allowed(vtime, next_vtime, dsched_client_has_gated(d, e->client), lead_ns))
            continue;
        dsched_hold_start(d, e->client, e->ns + e->hold_ns);
        aos_log(AOS_LOG_DEBUG, "sched", "client %llu: device held up to %.3f ms for its next launch",
                (unsigned long long)e->client, (double)e->hold_ns / 1e6);
        return true;
    }
    return false;
}

/*
 * While the device is held for a client, a short launch of that client's runs natively on its
 * queue (solo.c), without the gate, user event and wave of a logical launch: they cost a short
 * kernel more than the kernel itself (Parboil's uniformAdd, 10-50 us: 1.9x its time alone as
 * logical launches), and nobody else runs meanwhile anyway. It may take at most the response slice
 * its wave would have had. Its end is an end as a logical launch's is: the hold is charged up to
 * it, the gap before it is measured, and the device may be held again for the next.
 */
void dsched_on_held_solo_end(struct device_sched *d, const struct held_solo_end *h)
{
    uint64_t now = aos_now_ns();
    if (d->hold_client == h->client) {
        if (d->hold_until_ns < now)
            d->hold_until_ns = now; /* the device was the client's until now */
        dsched_hold_release(d, now, "its solo launch ended");
    } else {
        aos_sched_vt_charge(d->vt, h->client, h->ran_ns ? h->ran_ns : now - h->claimed_ns, 1.0);
    }
    think_gap(d, h->client, h->claimed_ns);
    struct recent_end *e = dsched_end_note(d, h->client, h->ended_ns);
    if (h->ran_ns)
        e->launch_ns = dsched_launch_ns_toward(e->launch_ns, h->ran_ns);
}
