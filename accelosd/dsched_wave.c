/*
 * Waves: one physical launch of a launch's kernel clone over part of its virtual NDRange, sized
 * by the share solver and the slice (docs/scheduler.md §6, steps 3-4), and what the scheduler
 * learns when one ends (device time, time per virtual group, charge).
 */
#include <stddef.h>

#include "accelos/cut_stop.h"
#include "accelos/futex.h"
#include "accelos/log.h"
#include "accelos/sched_config.h"
#include "daemon_config.h"
#include "dsched.h"
#include "event_park.h"
#include "ops.h"
#include "session.h"

/* Notes that l runs on `groups` physical groups from t on, for the trace (its first
 * AOS_LOGICAL_HISTORY changes). */
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
void dsched_on_wave(struct device_sched *d, struct aos_logical *l, cl_int status, uint64_t ended_ns)
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
    double alone = status >= 0 && l->estimate_key ? dsched_estimate_alone(d, l->estimate_key, NULL) : 0;
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
            dsched_estimate_put_alone(d, l->estimate_key, measured, false);
    }
    if (l->state == AOS_LOGICAL_ENDED)
        return; /* a runaway whose wave has finally left */
    if (status < 0)
        dsched_launch_end(d, l, status);
    else if (l->host.budget >= l->host.total_groups)
        dsched_launch_end(d, l, CL_COMPLETE);
    else if (atomic_load(&l->s->dead))
        dsched_launch_end(d, l, CANCELLED_STATUS);
    else
        l->state = AOS_LOGICAL_READY;
}

/* Compute units a direct wave spreads over: its time per virtual group is kept per compute unit,
 * as a loop wave's is per physical group. */
uint32_t dsched_direct_width(const struct device_sched *d)
{
    return d->have_model && d->model.compute_units ? d->model.compute_units : 1;
}

/* A direct wave on fewer groups than compute units leaves the rest to other clients' waves, which
 * start beside it (space sharing), unless it is expected to end within the response floor: a wave
 * of another client started beside it would hold the whole device when it ends, so its client's
 * next launch would wait a response slice where it waited a few microseconds (mri-gridding's
 * one-group scans beside histo: bench/RESULTS.md §4, session 26). */
bool dsched_direct_is_narrow(const struct device_sched *d, const struct aos_logical *l)
{
    if (!l->direct || l->wave_groups >= dsched_direct_width(d))
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

bool dsched_wave_start(struct device_sched *d, struct aos_logical *l, uint32_t groups, double share)
{
    const struct aos_sched_config *cfg = aos_daemon_config_get();
    uint64_t remaining = l->host.total_groups - l->host.budget;
    uint64_t slice_ns = (uint64_t)cfg->slice_ms * 1000000ull;
    if (l->ns_per_vgroup_one <= 0)
        l->ns_per_vgroup_one = l->remembered_one = dsched_estimate_get(d, l->estimate_key);
    bool narrow = false, others = dsched_others_present(d, l, slice_ns);
    if (l->direct) {
        /* The whole device, time-sliced; or all but one compute unit when one virtual group
         * outlasts a slice, so that the others' waves start beside it (dsched_plan.c). */
        uint32_t device = dsched_direct_width(d);
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
    bool lone = !others && l->remembered_one > 0 && !dsched_others_present(d, l, lone_ns);
    uint64_t wave_slice = others ? dsched_response_slice(d, l->client, slice_ns) : lone ? lone_ns : slice_ns;
    /* A wave that can be cut need not be short for the others' sake: it ends when one of them is
     * a quantum behind (dsched_cut_for_ready, dsched_cut_for_gated, dsched_cut_for_command). */
    l->wave_cuttable = dsched_wave_may_be_cut(l, narrow, others);
    l->wave_alone = !others;
    if (others && l->wave_cuttable && dsched_cut_quantum_ns() > wave_slice)
        wave_slice = dsched_cut_quantum_ns() < slice_ns ? dsched_cut_quantum_ns() : slice_ns;
    uint64_t vgroups = narrow ? groups : aos_sched_slice_vgroups(per_vgroup, wave_slice, remaining, groups);
    if (l->wave_vgroups && vgroups > (uint64_t)l->wave_vgroups * WAVE_GROWTH)
        vgroups = (uint64_t)l->wave_vgroups * WAVE_GROWTH; /* a mismeasured wave cannot end slicing */
    vgroups = aos_sched_whole_rounds(vgroups, groups, remaining); /* the rest of a round is free */
    if (!narrow)
        vgroups = aos_sched_with_tail(vgroups, remaining); /* a short last wave costs a turn */
    if (!l->run_queue && !(l->run_queue = dsched_queue_take(d, l->context)))
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
        dsched_cut_arm(l, groups);
    cut_wave_running(d, l->wave_cuttable ? l->client : 0);
    cl_event ev = NULL;
    cl_int err = wave_enqueue(l, groups, &box, first, l->host.chunk != chunk_was, &ev);
    if (err != CL_SUCCESS) {
        l->host.budget -= (aos_u32)vgroups;
        aos_log(AOS_LOG_WARN, "sched", "client %llu: wave of %s refused (%d)", (unsigned long long)l->client,
                l->kernel_name, err);
        dsched_launch_end(d, l, err);
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
    if (aos_event_when_done(ev, dsched_wave_ended, l) != CL_SUCCESS) {
        /* No completion would ever come: wait for it here rather than lose track of the wave. */
        cl_int st = NATIVE(ev, clWaitForEvents)(1, &ev) == CL_SUCCESS ? CL_COMPLETE : CL_OUT_OF_RESOURCES;
        dsched_on_wave(d, l, st, aos_now_ns());
    }
    return true;
}

bool aos_device_sched_wave_runs(void)
{
    return atomic_load(&all_waves_running) != 0;
}
