/*
 * Trace records for native launches (policy fifo, and kernels the JIT left alone): one record per
 * clEnqueueNDRangeKernel when its event ends, so accelos-report sees every launch, not only the
 * elastic ones. A native launch is one wave over all its groups.
 */
#include "trace_native.h"

#include <stdlib.h>
#include <string.h>

#include "accelos/futex.h"
#include "accelos/log.h"
#include "ops.h"
#include "session.h"
#include "trace.h"

struct native_launch {
    cl_event ev; /* alive while the done callback runs (aos_event_when_done holds it) */
    uint64_t client;
    pid_t pid;
    uint32_t groups;
    uint64_t enqueued_host_ns;
    char kernel[64];
};

static void native_done(cl_int status, void *data)
{
    struct native_launch *n = data;
    uint64_t now = aos_now_ns();
    struct aos_trace_launch t = {.client = n->client, .pid = n->pid, .kernel = n->kernel,
                                 .ok = status == CL_COMPLETE, .status = status, .waves = 1,
                                 .physical_groups = n->groups, .virtual_groups = n->groups,
                                 .virtual_groups_done = status == CL_COMPLETE ? n->groups : 0,
                                 .admitted_host_ns = n->enqueued_host_ns, .ended_host_ns = now};
    uint64_t queued, start, end;
    if (status == CL_COMPLETE && aos_event_profiled(n->ev, CL_PROFILING_COMMAND_QUEUED, &queued) &&
        aos_event_profiled(n->ev, CL_PROFILING_COMMAND_START, &start) &&
        aos_event_profiled(n->ev, CL_PROFILING_COMMAND_END, &end) && queued > 0 && queued <= start && start <= end) {
        t.queued_ns = queued;
        t.start_ns = start;
        t.end_ns = end;
    } else {
        /* No profiling on the application's queue: host times, with the start unknown (enqueue). */
        t.queued_ns = t.start_ns = n->enqueued_host_ns;
        t.end_ns = now;
    }
    t.device_ns = t.charged_ns = t.end_ns - t.start_ns;
    /* groups_over_time is on the host clock, as for logical launches: the start is the host's end
     * less the run time (the device's clock may be another). */
    uint64_t start_host = now - t.device_ns;
    t.history_n = 1;
    t.history[0].t_ns = start_host > n->enqueued_host_ns ? start_host : n->enqueued_host_ns;
    t.history[0].groups = n->groups;
    aos_trace_launch(&t);
    free(n);
}

void aos_trace_native_launch(const struct aos_session *s, cl_kernel kernel, cl_event ev, uint32_t work_dim,
                             const size_t *global, const size_t *local)
{
    if (!aos_trace_enabled() || !ev)
        return;
    struct native_launch *n = calloc(1, sizeof(*n));
    if (!n)
        return;
    n->ev = ev;
    n->client = s->serial;
    n->pid = s->pid;
    n->enqueued_host_ns = aos_now_ns();
    uint64_t groups = 1;
    for (uint32_t d = 0; d < work_dim && local; d++)
        groups *= local[d] ? (global[d] + local[d] - 1) / local[d] : 0;
    n->groups = !local ? 0 : groups > UINT32_MAX ? UINT32_MAX : (uint32_t)groups; /* 0: the driver chose */
    if (NATIVE(kernel, clGetKernelInfo)(kernel, CL_KERNEL_FUNCTION_NAME, sizeof(n->kernel) - 1, n->kernel, NULL) !=
        CL_SUCCESS)
        n->kernel[0] = '\0';
    if (aos_event_when_done(ev, native_done, n) != CL_SUCCESS) {
        aos_log(AOS_LOG_WARN, "trace", "client %llu: no memory to trace a launch of %s",
                (unsigned long long)n->client, n->kernel);
        free(n);
    }
}
