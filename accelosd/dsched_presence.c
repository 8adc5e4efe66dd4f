/*
 * Which clients were on the device lately (struct recent_end, RECENT_ENDS of them): a client
 * between two launches is still present, so the others' waves stay short (response slices) and
 * its next launch may be waited for (dsched_hold.c). docs/scheduler.md §6, *Present*, *Response
 * slices*.
 */
#include "accelos/futex.h"
#include "accelos/sched_config.h"
#include "daemon_config.h"
#include "dsched.h"

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
uint64_t dsched_response_slice(struct device_sched *d, uint64_t client, uint64_t slice_ns)
{
    uint64_t floor_ns = (uint64_t)aos_daemon_config_get()->response_floor_us * 1000u;
    uint64_t now = aos_now_ns(), shortest = 0;
    uint32_t others = 0;
    for (uint32_t i = 0; floor_ns && i < RECENT_ENDS; i++) {
        const struct recent_end *r = &d->recent[i];
        if (!r->ns || r->client == client || !r->launch_ns ||
            (!recently_present(r, NULL, now, slice_ns) && !dsched_client_has_active(d, NULL, r->client)))
            continue;
        others++;
        shortest = shortest && shortest < r->launch_ns ? shortest : r->launch_ns;
    }
    return aos_sched_response_slice(slice_ns, shortest, others, floor_ns);
}

/* Whether another client has a launch (one still gated too: it waits for the wave to be handed
 * out), or was here lately (recently_present): a client that runs launch after launch has none
 * between its launches, for a host round trip each time. */
bool dsched_others_present(struct device_sched *d, const struct aos_logical *l, uint64_t slice_ns)
{
    for (struct aos_logical *o = d->launches; o; o = o->next)
        if (o->client != l->client && (dsched_is_active(o) || o->state == AOS_LOGICAL_GATED))
            return true;
    uint64_t now = aos_now_ns();
    for (uint32_t i = 0; i < RECENT_ENDS; i++)
        if (d->recent[i].client != l->client && recently_present(&d->recent[i], l, now, slice_ns))
            return true;
    return false;
}

struct recent_end *dsched_recent_of(struct device_sched *d, uint64_t client)
{
    for (uint32_t i = 0; i < RECENT_ENDS; i++)
        if (d->recent[i].ns && d->recent[i].client == client)
            return &d->recent[i];
    return NULL;
}

/* A client's remembered launch length after a launch of ns: halfway toward it. */
uint64_t dsched_launch_ns_toward(uint64_t before, uint64_t ns)
{
    return before ? (before + ns) / 2 : ns;
}

/* The same after l ended, except when l's waves also timed the device's compile of its code (its
 * first launch anywhere, or a compile seen in its waves): that is not how long its launches take. */
uint64_t dsched_launch_ns_after(uint64_t before, const struct aos_logical *l)
{
    if (l->cold && (l->remembered_one <= 0 || l->compile_waves > 0))
        return before;
    return dsched_launch_ns_toward(before, l->device_ns);
}

/* Notes the end of a launch of client's at ended_ns; the device may hold for its next launch for
 * hold_ns (0: not at all). Returns the entry, whose launch_ns the caller updates. */
struct recent_end *dsched_recent_end_set(struct device_sched *d, uint64_t client, uint64_t ended_ns, uint64_t hold_ns)
{
    struct recent_end *slot = dsched_recent_of(d, client);
    bool same = slot != NULL;
    if (!slot) { /* the oldest entry goes */
        slot = &d->recent[d->recent_next];
        d->recent_next = (d->recent_next + 1) % RECENT_ENDS;
        if (slot->lingering && !dsched_client_has_active(d, NULL, slot->client))
            aos_sched_vt_leave(d->vt, slot->client); /* pushed out: stop expecting it */
    }
    *slot = (struct recent_end){.client = client, .ns = ended_ns, .lingering = hold_ns > 0,
                                .hold_ns = hold_ns, .think_ns = same ? slot->think_ns : 0,
                                .waves_at_end = d->waves_started, .unclear_gaps = same ? slot->unclear_gaps : 0,
                                .launch_ns = same ? slot->launch_ns : 0};
    return slot;
}
