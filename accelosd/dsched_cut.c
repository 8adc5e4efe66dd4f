/*
 * Cut waves: a direct wave of long groups, started for the whole slice, stops at its next group
 * boundary when another client with a launch or a command waiting falls a cut quantum behind in
 * virtual time (docs/scheduler.md §6, *Cut waves*; the stop bit: accelos/cut_stop.h).
 */
#include "accelos/cut_stop.h"
#include "accelos/futex.h"
#include "accelos/log.h"
#include "accelos/sched_config.h"
#include "daemon_config.h"
#include "dsched.h"

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
/* Waves a launch that is not ready yet may cut (dsched_cut_for_gated). */
#define CUT_ASKS 2

uint64_t dsched_cut_quantum_ns(void)
{
    return (uint64_t)aos_daemon_config_get()->cut_quantum_us * 1000u;
}

/* Whether l's next wave may be cut: a direct kernel with a cuttable twin, groups long enough (for
 * whether others are present), and the whole device (a narrow wave leaves room beside it anyway). */
bool dsched_wave_may_be_cut(const struct aos_logical *l, bool narrow, bool others)
{
    return l->cut_host && l->cut_kernel && dsched_cut_quantum_ns() && !narrow &&
           l->ns_per_vgroup_one >= (others ? CUT_MIN_GROUP_SHARED_NS : CUT_MIN_GROUP_NS);
}

/* Prepares l's cut record for its next wave: no wave of l runs, so the host owns it. */
void dsched_cut_arm(struct aos_logical *l, uint32_t groups)
{
    double ahead = CUT_AHEAD_NS / l->ns_per_vgroup_one * groups;
    l->cut_host->ahead = ahead < 1 ? 1u : ahead > 65536 ? 65536u : (aos_u32)ahead;
    __atomic_store_n(&l->cut_host->claimed, 0u, __ATOMIC_SEQ_CST);
    l->cut_sent = false;
}

/* The running cuttable wave that has not been cut yet, or NULL. */
struct aos_logical *dsched_cut_candidate(struct device_sched *d)
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
    return vr - (aos_sched_vt_joining(d->vt, client) + (double)dsched_cut_quantum_ns());
}

/* Has the scheduler thread step by `at` (host ns), unless it steps sooner already. */
static void cut_check_by(struct device_sched *d, uint64_t at)
{
    uint64_t was = atomic_load(&d->cut_check_at_ns);
    if (!was || at < was) {
        atomic_store(&d->cut_check_at_ns, at);
        dsched_wake_thread(d); /* it may be asleep for longer */
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
void dsched_cut_for_ready(struct device_sched *d, struct aos_logical **ls, const struct aos_sched_share *out,
                          const size_t *order, size_t n, uint64_t came)
{
    struct aos_logical *r = dsched_cut_candidate(d);
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
void dsched_cut_for_command(struct device_sched *d, uint64_t client)
{
    struct aos_logical *r = dsched_cut_candidate(d);
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
void dsched_cut_for_gated(struct device_sched *d)
{
    struct aos_logical *r = dsched_cut_candidate(d);
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
                dsched_hold_start(d, o->client, aos_now_ns() + CUT_GATE_WAIT_NS);
            return;
        }
        nearest = !waiting || behind > nearest ? behind : nearest;
        waiting = true;
    }
    if (waiting)
        cut_recheck(d, r, nearest);
}

/* Clears the cut check that is due, which this step does (the checks set the next one). Left set,
 * a step with no active launch to plan for would not clear it, and the scheduler thread, whose
 * wait ends at once for a past check, would spin. */
void dsched_cut_check_due(struct device_sched *d)
{
    uint64_t at = atomic_load(&d->cut_check_at_ns);
    if (at && at <= aos_now_ns())
        atomic_compare_exchange_strong(&d->cut_check_at_ns, &at, 0);
}

bool aos_device_sched_may_cut(const struct aos_device *dev, uint64_t estimate_key, uint64_t virtual_groups)
{
    if (!dsched_cut_quantum_ns() || !virtual_groups)
        return false;
    double one, ns = dsched_expected_on(dev, estimate_key, virtual_groups, &one);
    /* nothing measured yet: its waves decide. The lower threshold even for a client alone now:
     * another may come while the launch runs, and only a launch with the twin can be cut then. */
    return one <= 0 || (one >= CUT_MIN_GROUP_SHARED_NS && ns >= (double)dsched_cut_quantum_ns());
}
