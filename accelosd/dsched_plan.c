/*
 * The plan of one step: order the active launches by fair virtual time, ask the share solver
 * (accelos/sched.h) for their groups, and start the waves it lets run, once the running ones hold
 * no more than their new share (docs/scheduler.md §6, steps 2-3).
 */
#include <math.h>
#include <stdlib.h>

#include "accelos/sched_config.h"
#include "daemon_config.h"
#include "dsched.h"
#include "solo.h"

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

/* Decides who runs next and starts their waves. */
void dsched_plan(struct device_sched *d)
{
    dsched_cut_check_due(d);
    uint64_t came = dsched_hold_expire(d);
    size_t n = 0;
    for (struct aos_logical *l = d->launches; l; l = l->next)
        n += dsched_is_active(l);
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
        if (!dsched_is_active(l))
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
        bool wide = running[i] && !dsched_direct_is_narrow(d, ls[i]);
        busy |= wide;
        direct_running |= wide && ls[i]->direct;
        idle &= !running[i];
    }
    if (direct_running && dsched_cut_quantum_ns())
        dsched_cut_for_ready(d, ls, out, order, n, came);
    bool hold = false; /* only an idle device waits (anticipation) */
    for (size_t j = 0; settled && idle && !solo_owner && j < n; j++) {
        i = order[j];
        if (ls[i]->state == AOS_LOGICAL_READY && out[i].status == AOS_SCHED_RUN && out[i].groups) {
            hold = dsched_hold_for_expected(d, k[i].vtime);
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
            bool started = dsched_wave_start(d, ls[i], g, out[i].share);
            bool narrow = started && dsched_direct_is_narrow(d, ls[i]);
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
    if (dsched_cut_quantum_ns()) {
        dsched_cut_for_gated(d);
        if (d->cut_command_client && dsched_cut_candidate(d) == d->cut_command_wave)
            dsched_cut_for_command(d, d->cut_command_client);
        else
            d->cut_command_client = 0;
    }
}
