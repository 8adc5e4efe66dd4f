/*
 * Elastic launches, the service-thread side: turns one application launch into a logical launch
 * (logical.h) and hands it to the device's scheduler thread (device_sched.c), which runs it in
 * waves. See launch.h.
 *
 * Design note. The application's queue gets two markers: the gate, which completes when the
 * queue and the wait list let the launch start, and the application's event, which waits for a
 * user event the scheduler completes after the last wave. So in-order queues, wait lists,
 * markers, clFinish and callbacks behave as for a native kernel, while the waves themselves run
 * on the scheduler's own queues, where they can be cut, resized and interleaved with other
 * clients' waves. The kernel is cloned per launch, so arguments the application sets after the
 * enqueue do not reach waves still to come, and the argument objects are retained for the same
 * reason: the application may release a buffer right after enqueueing.
 */
#include "launch.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accelos/futex.h"
#include "accelos/info_value.h"
#include "accelos/log.h"
#include "accelos/sched.h"
#include "accelos/sched_config.h"
#include "accelos/vndrange.h"
#include "daemon_config.h"
#include "device_sched.h"
#include "fail_gate.h"
#include "logical.h"
#include "ops.h"
#include "solo.h"

#define AUTO_LOCAL_X 64u  /* largest automatic work-group width (dimension 0) */
#define AUTO_LOCAL_YZ 4u  /* and height/depth */

/* ---- Shape -------------------------------------------------------------------------------- */

static size_t auto_local(size_t global, size_t cap)
{
    size_t l = 1;
    while (l * 2 <= cap && global % (l * 2) == 0)
        l *= 2;
    return l;
}

#define CUT_ALIGN 4096 /* PoCL uses a host pointer as the buffer itself when it is aligned */

static void CL_CALLBACK cut_host_free(cl_mem mem, void *host)
{
    (void)mem;
    free(host);
}

/* Fills the record for the launch; false when the rewrite cannot run it exactly. */
static bool record_fill(struct aos_vndrange *rec, const struct aos_elastic_kernel *ek,
                        const struct aos_launch_shape *shape, size_t local[3])
{
    bool fixed = ek->compile_wg[0] || ek->compile_wg[1] || ek->compile_wg[2];
    size_t items = 1;
    for (cl_uint d = 0; d < 3; d++) {
        bool used = d < shape->work_dim;
        if (shape->local)
            local[d] = used ? shape->local[d] : 1;
        else if (fixed)
            local[d] = ek->compile_wg[d];
        else
            local[d] = auto_local(used ? shape->global[d] : 1, d ? AUTO_LOCAL_YZ : AUTO_LOCAL_X);
        /* A size other than the required one: native decides. */
        if (fixed && local[d] != ek->compile_wg[d])
            return false;
        items *= local[d];
    }
    /* Non-uniform or empty ranges, or too many groups: native decides. */
    if (items > ek->wg_size || aos_vndrange_fill(rec, shape->work_dim, shape->global, local, shape->offset))
        return false;
    rec->budget = 0; /* each wave raises it (dsched_wave.c) */
    return true;
}

/* Whether launches on dev run in the direct shape (wave_shape, aos_wave_shape_runs_direct). */
static bool device_runs_direct(const struct aos_device *dev)
{
    return aos_wave_shape_runs_direct(aos_daemon_config_get()->wave_shape, (dev->type & CL_DEVICE_TYPE_CPU) != 0);
}

static const struct aos_device *device_of(cl_device_id id)
{
    for (uint32_t i = 0; i < aos_device_count(); i++)
        if (aos_device_at(i)->device == id)
            return aos_device_at(i);
    return NULL;
}

void aos_launch_command_enqueued(struct aos_session *s, cl_command_queue queue)
{
    cl_device_id device = NULL;
    if (!aos_device_sched_wave_runs() ||
        NATIVE(queue, clGetCommandQueueInfo)(queue, CL_QUEUE_DEVICE, sizeof(device), &device, NULL) != CL_SUCCESS)
        return;
    const struct aos_device *dev = device_of(device);
    if (dev)
        aos_device_sched_command_waits(dev, s->serial);
}

bool aos_launch_device_runs_direct(cl_device_id device)
{
    const struct aos_device *dev = device_of(device);
    return dev && device_runs_direct(dev);
}

/* ---- Logical launch object ---------------------------------------------------------------- */

void aos_logical_ref(struct aos_logical *l)
{
    atomic_fetch_add(&l->refs, 1);
}

void aos_logical_drop_run_state(struct aos_logical *l)
{
    for (uint32_t i = 0; i < l->n_held; i++) {
        if (l->held[i].sampler)
            NATIVE((cl_sampler)l->held[i].object, clReleaseSampler)((cl_sampler)l->held[i].object);
        else
            NATIVE((cl_mem)l->held[i].object, clReleaseMemObject)((cl_mem)l->held[i].object);
    }
    if (l->held_counted && l->s)
        atomic_fetch_sub(&l->s->launch_held_objects, l->n_held);
    l->held_counted = false;
    free(l->held);
    l->held = NULL;
    l->n_held = 0;
    if (l->kernel)
        NATIVE(l->kernel, clReleaseKernel)(l->kernel);
    if (l->cut_kernel)
        NATIVE(l->cut_kernel, clReleaseKernel)(l->cut_kernel);
    l->cut_kernel = NULL;
    if (l->record)
        NATIVE(l->record, clReleaseMemObject)(l->record);
    if (l->cut_mem)
        NATIVE(l->cut_mem, clReleaseMemObject)(l->cut_mem); /* its destructor frees cut_host */
    if (!l->cut_host_freed_with_mem)
        free(l->cut_host); /* no kernel ever had it: the launch failed before its first wave */
    l->kernel = NULL;
    l->record = NULL;
    l->cut_mem = NULL;
    l->cut_host = NULL;
    if (l->app) /* the launch never ended (the daemon stops): nothing waits on the user event */
        NATIVE(l->app, clReleaseEvent)(l->app);
    l->app = NULL;
}

void aos_logical_unref(struct aos_logical *l)
{
    if (!l || atomic_fetch_sub(&l->refs, 1) != 1)
        return;
    aos_logical_drop_run_state(l);
    free(l);
}

cl_int aos_logical_failed(struct aos_logical *l)
{
    return atomic_load(&l->failed_status);
}

cl_int aos_logical_profiling(struct aos_logical *l, cl_profiling_info param, size_t size, void *value,
                             size_t *size_ret)
{
    if (!l->profiling || !atomic_load(&l->timed))
        return CL_PROFILING_INFO_NOT_AVAILABLE;
    cl_ulong v;
    switch (param) {
    case CL_PROFILING_COMMAND_QUEUED: v = l->queued_ns; break;
    case CL_PROFILING_COMMAND_SUBMIT: v = l->submit_ns; break;
    case CL_PROFILING_COMMAND_START: v = l->start_ns; break;
    case CL_PROFILING_COMMAND_END:
    case CL_PROFILING_COMMAND_COMPLETE: v = l->end_ns; break;
    default: return CL_INVALID_VALUE;
    }
    return aos_info_value(&v, sizeof(v), size, value, size_ret);
}

/* The client's weight from the configuration: by uid, else by process name. Looked up at the
 * client's first launch only: reading /proc took about 50 µs, as long as a short kernel. */
static uint32_t client_weight(struct aos_session *s)
{
    if (s->weight)
        return s->weight;
    char path[64], name[AOS_SCHED_CONFIG_MAX_CLIENT] = "";
    snprintf(path, sizeof(path), "/proc/%d/comm", (int)s->pid);
    FILE *f = fopen(path, "r");
    if (f) {
        if (fgets(name, sizeof(name), f))
            name[strcspn(name, "\n")] = '\0';
        fclose(f);
    }
    uint32_t w = aos_daemon_config_weight((uint32_t)s->uid, name);
    s->weight = w ? w : 1;
    return s->weight;
}

/* ---- Launch ------------------------------------------------------------------------------- */

/* Sets a direct kernel's last argument: the launch's grid, by value, for a solo launch over the
 * whole range (accelos/vndrange.h; a logical launch's waves set it with their box's origin). */
static bool direct_grid_set(cl_kernel direct, cl_uint index, const struct aos_vndrange *rec)
{
    struct aos_direct_grid grid;
    aos_direct_grid_of(rec, NULL, &grid);
    return NATIVE(direct, clSetKernelArg)(direct, index, sizeof(grid), &grid) == CL_SUCCESS;
}

bool aos_launch_target(cl_command_queue queue, const struct aos_elastic_kernel *ek,
                       const struct aos_launch_shape *shape, struct aos_launch_target *t)
{
    cl_device_id qdev = NULL;
    *t = (struct aos_launch_target){0};
    if (NATIVE(queue, clGetCommandQueueInfo)(queue, CL_QUEUE_DEVICE, sizeof(qdev), &qdev, NULL) != CL_SUCCESS ||
        qdev != ek->device ||
        NATIVE(queue, clGetCommandQueueInfo)(queue, CL_QUEUE_CONTEXT, sizeof(t->ctx), &t->ctx, NULL) != CL_SUCCESS ||
        NATIVE(queue, clGetCommandQueueInfo)(queue, CL_QUEUE_PROPERTIES, sizeof(t->props), &t->props, NULL) !=
            CL_SUCCESS)
        return false;
    t->dev = device_of(qdev);
    if (!t->dev || t->dev->index >= AOS_MAX_DEVICES || !record_fill(&t->rec, ek, shape, t->local))
        return false;
    t->estimate_key = aos_elastic_estimate_key(ek, t->local);
    return true;
}

bool aos_launch_solo(struct aos_session *s, cl_command_queue queue, struct aos_elastic_kernel *ek, cl_kernel native,
                     const struct aos_launch_shape *shape, const struct aos_launch_target *t, cl_uint num_wait,
                     const cl_event *wait, struct aos_solo_launch *out)
{
    *out = (struct aos_solo_launch){0};
    if (!aos_daemon_config_get()->solo_native_us)
        return false;
    uint64_t expected = aos_device_sched_expected_ns(t->dev, t->estimate_key, t->rec.total_groups);
    struct aos_solo_claim *claim = expected ? aos_solo_claim(s, t->dev->index, t->estimate_key, t->rec.total_groups, expected) : NULL;
    if (!claim)
        return false;
    /* The application waits on a user event that the kernel's end completes, so that the
     * watchdog can fail it as it fails a logical launch's. */
    cl_int err;
    cl_event user = NATIVE(t->ctx, clCreateUserEvent)(t->ctx, &err);
    if (!user) {
        aos_solo_started(claim, NULL, NULL, 0, false);
        return false;
    }
    /* Where the direct shape runs, its kernel: the device compiled it for the launch that measured
     * the code, and it runs at native speed (one box: the whole range). Elsewhere the native one. */
    cl_event ev = NULL;
    if (ek->direct && device_runs_direct(t->dev) && direct_grid_set(ek->direct, ek->num_args, &t->rec))
        err = NATIVE(queue, clEnqueueNDRangeKernel)(queue, ek->direct, shape->work_dim, shape->offset, shape->global,
                                                    t->local, num_wait, wait, &ev);
    else
        err = NATIVE(queue, clEnqueueNDRangeKernel)(queue, native, shape->work_dim, shape->offset, shape->global,
                                                    shape->local, num_wait, wait, &ev);
    if (err != CL_SUCCESS) {
        aos_solo_started(claim, NULL, user, 0, false);
        return false;
    }
    /* The first may also time the device's compile of the kernel for a whole range (on PoCL, a
     * specialization the waves did not need), as a first wave does. */
    bool cold = !ek->solo_ran;
    uint64_t allowance = aos_device_sched_runaway_allowance_ns(t->dev, t->rec.total_groups, expected, cold);
    ek->solo_ran = true;
    NATIVE(queue, clFlush)(queue); /* waits go to the user event, whose waiter cannot flush this queue */
    NATIVE(user, clRetainEvent)(user); /* for the application: the fate's may go as soon as ev ends */
    struct aos_solo_fate *fate = aos_solo_started(claim, ev, user, allowance, cold);
    if (!fate) { /* no memory to watch it: the kernel's own event, as natively */
        NATIVE(user, clReleaseEvent)(user); /* completed */
        *out = (struct aos_solo_launch){.status = ev, .command = ev};
        return true;
    }
    *out = (struct aos_solo_launch){.status = user, .command = ev, .fate = fate};
    return true;
}

bool aos_launch_elastic(struct aos_session *s, struct aos_enqueue *e, struct aos_elastic_kernel *ek,
                        const struct aos_launch_target *t, const struct aos_logical_held *held, uint32_t n_held,
                        cl_event *ev, struct aos_logical **out)
{
    cl_command_queue queue = e->queue;
    if (!NATIVE(ek->kernel, clCloneKernel))
        return false;
    const struct aos_device *dev = t->dev;
    cl_context ctx = t->ctx;
    const size_t *local = t->local;
    cl_ulong local_mem = 0;
    NATIVE(ek->kernel, clGetKernelWorkGroupInfo)(ek->kernel, ek->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof(local_mem),
                                                 &local_mem, NULL); /* own __local data plus __local arguments */
    uint32_t wg_threads = (uint32_t)(local[0] * local[1] * local[2]);
    if (!aos_device_sched_fits(dev, wg_threads, local_mem, ek->regs_per_thread))
        return false; /* one work-group can never fit: the native launch reports why */

    struct aos_logical *l = calloc(1, sizeof(*l));
    if (!l)
        return false;
    atomic_init(&l->refs, 1);
    l->client = s->serial;
    l->weight = client_weight(s);
    l->device = dev->index;
    l->context = ctx;
    l->host = t->rec;
    l->profiling = (t->props & CL_QUEUE_PROFILING_ENABLE) != 0;
    l->in_order = (t->props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) == 0;
    l->work_dim = t->rec.dims;
    memcpy(l->local, t->local, sizeof(l->local));
    l->wg_threads = wg_threads;
    l->local_mem = local_mem;
    l->regs_per_thread = ek->regs_per_thread;
    l->compiled_chunk = ek->chunk;
    l->estimate_key = t->estimate_key;
    l->cold = !ek->launched;
    ek->launched = true;
    NATIVE(ek->kernel, clGetKernelInfo)(ek->kernel, CL_KERNEL_FUNCTION_NAME, sizeof(l->kernel_name) - 1,
                                        l->kernel_name, NULL);
    l->direct = ek->direct && device_runs_direct(dev);
    /* Cut waves write the cut record in place while the wave runs: only where the device's memory
     * is the host's (CPU devices; dsched_cut.c checks that claims show there before it cuts). */
    bool cut = l->direct && ek->cut && (dev->type & CL_DEVICE_TYPE_CPU) &&
               aos_device_sched_may_cut(dev, t->estimate_key, t->rec.total_groups);
    cl_kernel twin = l->direct ? ek->direct : ek->kernel;
    cl_int err = CL_SUCCESS;
    l->kernel = NATIVE(twin, clCloneKernel)(twin, &err);
    if (err == CL_SUCCESS && cut)
        l->cut_kernel = NATIVE(ek->cut, clCloneKernel)(ek->cut, &err);
    l->grid_arg = ek->num_args; /* direct: no record on the device; each wave sets the grid */
    if (err == CL_SUCCESS && cut && !(l->cut_host = aligned_alloc(CUT_ALIGN, CUT_ALIGN)))
        err = CL_OUT_OF_HOST_MEMORY;
    if (err == CL_SUCCESS && cut) {
        memset(l->cut_host, 0, CUT_ALIGN);
        l->cut_mem = NATIVE(ctx, clCreateBuffer)(ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, CUT_ALIGN, l->cut_host, &err);
        if (err == CL_SUCCESS)
            err = NATIVE(l->cut_mem, clSetMemObjectDestructorCallback)(l->cut_mem, cut_host_free, l->cut_host);
        l->cut_host_freed_with_mem = err == CL_SUCCESS;
        if (err == CL_SUCCESS)
            err = NATIVE(l->cut_kernel, clSetKernelArg)(l->cut_kernel, ek->num_args + 1, sizeof(cl_mem), &l->cut_mem);
    }
    if (err == CL_SUCCESS && !l->direct) {
        l->record = NATIVE(ctx, clCreateBuffer)(ctx, CL_MEM_READ_WRITE, AOS_VNDRANGE_SIZE, NULL, &err);
        if (err == CL_SUCCESS)
            err = NATIVE(l->kernel, clSetKernelArg)(l->kernel, ek->num_args, sizeof(cl_mem), &l->record);
    }
    if (err == CL_SUCCESS && n_held && !(l->held = malloc(n_held * sizeof(*l->held))))
        err = CL_OUT_OF_HOST_MEMORY;
    for (uint32_t i = 0; err == CL_SUCCESS && i < n_held; i++) {
        if (held[i].local) {
            err = NATIVE(l->kernel, clSetKernelArg)(l->kernel, held[i].index, held[i].size, NULL);
            if (err == CL_SUCCESS && l->cut_kernel)
                err = NATIVE(l->cut_kernel, clSetKernelArg)(l->cut_kernel, held[i].index, held[i].size, NULL);
            continue;
        }
        if (held[i].sampler)
            NATIVE((cl_sampler)held[i].object, clRetainSampler)((cl_sampler)held[i].object);
        else
            NATIVE((cl_mem)held[i].object, clRetainMemObject)((cl_mem)held[i].object);
        l->held[l->n_held++] = held[i];
    }
    if (err != CL_SUCCESS) {
        aos_logical_unref(l);
        return false;
    }

    /* Blocks while the client has too many launches in flight (dsched_admit.c). */
    aos_device_sched_admit(s);
    l->arrival_host_ns = aos_now_ns();
    cl_event app = NULL;
    l->user = NATIVE(ctx, clCreateUserEvent)(ctx, &err);
    /* Markers through fail_gate.h: the gate is e's (its own gate when e is gated). The scheduler
     * may fail the user event (a failed gate, a failed wave, the runaway watchdog), and with it
     * the application's event, which on a queue the daemon orders waits for the user event
     * alone: that is set only once the gate has ended, so it stands for the queue's order too. */
    if (err == CL_SUCCESS)
        err = aos_fail_gate_enqueue_marker(s, e, false, &l->gate);
    if (err == CL_SUCCESS) {
        aos_fail_gate_mark(s, l->user);
        err = aos_fail_gate_marker_after(s, queue, l->user, &app);
    }
    if (err != CL_SUCCESS) {
        aos_log(AOS_LOG_DEBUG, "launch", "elastic launch refused (%d): launching natively", err);
        if (l->gate)
            aos_event_drop(s, l->gate); /* a marker with nothing after it */
        if (l->user)
            NATIVE(l->user, clReleaseEvent)(l->user); /* nothing waits on it */
        aos_device_sched_unadmit(s);
        aos_logical_unref(l);
        return false;
    }
    NATIVE(queue, clFlush)(queue);
    aos_session_ref(s);
    l->s = s;
    atomic_fetch_add(&s->launch_held_objects, l->n_held);
    l->held_counted = true;
    aos_logical_ref(l); /* the application's event */
    NATIVE(app, clRetainEvent)(app);
    l->app = app; /* its status decides whether the user event may be set (device_sched.c) */
    aos_device_sched_submit(l);
    *ev = app;
    *out = l;
    return true;
}
