/*
 * Elastic launches: the virtual NDRange record, its pooled device buffer, the count of logical
 * launches in flight per device, and the enqueue itself (see launch.h).
 *
 * Design note. A record buffer is reused only after the kernel that read it has ended (its event
 * callback returns it to the pool), and the host copy the non-blocking write reads lives in the
 * same pool entry, so neither is touched while a command may still use it. Buffers are pooled per
 * real context, which all clients on a device set share (ops_core.c): a record is rewritten in
 * full before every launch, so it carries nothing from one launch to the next.
 *
 * In flight is counted per command queue, not per launch: an in-order queue runs one kernel at a
 * time, so an application that enqueues a hundred kernels back to back is one launch in flight,
 * not a hundred that would each get a hundredth of the device.
 */
#include "launch.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "accelos/log.h"
#include "trace.h"
#include "accelos/vndrange.h"
#include "accelos/wire_core.h"
#include "ops.h"

#define MAX_CONTEXTS 64u         /* real contexts are per device set, see ops_core.c */
#define MAX_FREE_RECORDS 64u     /* per context; more are released */
#define MAX_BUSY_QUEUES 256u     /* per device; beyond, each extra launch counts on its own */
#define AUTO_LOCAL_X 64u         /* largest automatic work-group width (dimension 0) */
#define AUTO_LOCAL_YZ 4u         /* and height/depth */

struct record {
    struct record *next;
    cl_context context;
    cl_mem buffer;                 /* AOS_VNDRANGE_SIZE bytes of device memory */
    struct aos_vndrange host;      /* what the non-blocking write copies */
    uint32_t device;               /* index of the device it runs on */
    cl_command_queue queue;        /* in-flight key, never dereferenced */
    /* For the trace (--trace), filled per launch. */
    cl_event traced;               /* retained kernel event, or NULL when not tracing */
    uint64_t client;
    pid_t pid;
    uint32_t physical_groups;
    uint64_t enqueued_ns;          /* host clock, for queues without profiling */
    char kernel[64];
};

struct record_pool {
    cl_context context;
    struct record *free;
    uint32_t count;
};

struct busy_queue {
    cl_command_queue queue;
    uint32_t launches;                /* 0: free entry */
    struct aos_launch_demand demand;  /* of its latest launch */
};

struct device_flight {
    uint32_t overflow;  /* launches that found the table full: in flight, but not weighed */
    struct busy_queue busy[MAX_BUSY_QUEUES];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct record_pool pools[MAX_CONTEXTS];
static struct device_flight flights[AOS_MAX_DEVICES];

/* ---- In flight ---------------------------------------------------------------------------- */

/* Counts a launch on queue and copies the demands of the device's other busy queues into others
 * (room for MAX_BUSY_QUEUES); returns how many it copied. */
static size_t flight_begin(uint32_t device, cl_command_queue queue, const struct aos_launch_demand *mine,
                           struct aos_launch_demand *others)
{
    struct device_flight *f = &flights[device];
    size_t n = 0;
    pthread_mutex_lock(&lock);
    struct busy_queue *slot = NULL, *empty = NULL;
    for (uint32_t i = 0; i < MAX_BUSY_QUEUES; i++) {
        struct busy_queue *b = &f->busy[i];
        if (b->launches && b->queue == queue)
            slot = b;
        else if (b->launches)
            others[n++] = b->demand;
        else if (!empty)
            empty = b;
    }
    if (!slot && empty) {
        slot = empty;
        *slot = (struct busy_queue){.queue = queue};
    }
    if (slot) {
        slot->launches++;
        slot->demand = *mine;
    } else {
        f->overflow++;
    }
    pthread_mutex_unlock(&lock);
    return n;
}

static void flight_end(uint32_t device, cl_command_queue queue)
{
    struct device_flight *f = &flights[device];
    pthread_mutex_lock(&lock);
    bool found = false;
    for (uint32_t i = 0; i < MAX_BUSY_QUEUES && !found; i++)
        if (f->busy[i].launches && f->busy[i].queue == queue) {
            found = true;
            f->busy[i].launches--;
        }
    if (!found && f->overflow)
        f->overflow--;
    pthread_mutex_unlock(&lock);
}

/* ---- Record pool -------------------------------------------------------------------------- */

static struct record *record_get(cl_context ctx)
{
    pthread_mutex_lock(&lock);
    for (uint32_t i = 0; i < MAX_CONTEXTS; i++)
        if (pools[i].context == ctx && pools[i].free) {
            struct record *r = pools[i].free;
            pools[i].free = r->next;
            pools[i].count--;
            pthread_mutex_unlock(&lock);
            return r;
        }
    pthread_mutex_unlock(&lock);
    struct record *r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    cl_int err = CL_SUCCESS;
    r->context = ctx;
    r->buffer = NATIVE(ctx, clCreateBuffer)(ctx, CL_MEM_READ_WRITE, AOS_VNDRANGE_SIZE, NULL, &err);
    if (err != CL_SUCCESS) {
        free(r);
        return NULL;
    }
    return r;
}

static void record_put(struct record *r)
{
    pthread_mutex_lock(&lock);
    struct record_pool *pool = NULL;
    for (uint32_t i = 0; i < MAX_CONTEXTS && !pool; i++)
        if (pools[i].context == r->context)
            pool = &pools[i];
    for (uint32_t i = 0; i < MAX_CONTEXTS && !pool; i++)
        if (!pools[i].context) {
            pool = &pools[i];
            pool->context = r->context;
        }
    if (pool && pool->count < MAX_FREE_RECORDS) {
        r->next = pool->free;
        pool->free = r;
        pool->count++;
        r = NULL;
    }
    pthread_mutex_unlock(&lock);
    if (r) {
        NATIVE(r->buffer, clReleaseMemObject)(r->buffer);
        free(r);
    }
}

void aos_launch_shutdown(void)
{
    pthread_mutex_lock(&lock);
    for (uint32_t i = 0; i < MAX_CONTEXTS; i++)
        while (pools[i].free) {
            struct record *r = pools[i].free;
            pools[i].free = r->next;
            NATIVE(r->buffer, clReleaseMemObject)(r->buffer);
            free(r);
        }
    memset(pools, 0, sizeof(pools));
    pthread_mutex_unlock(&lock);
}

/* The kernel that read the record has ended, also when it failed (or the write has, when the kernel
 * never launched). */
static uint64_t host_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* One profiling time of the traced event; false when the queue has no profiling. */
static bool profiled(cl_event ev, cl_profiling_info what, uint64_t *out)
{
    cl_ulong v = 0;
    if (NATIVE(ev, clGetEventProfilingInfo)(ev, what, sizeof(v), &v, NULL) != CL_SUCCESS)
        return false;
    *out = v;
    return true;
}

static void trace_ended(struct record *r, cl_int status)
{
    struct aos_trace_launch t = {.client = r->client, .pid = r->pid, .kernel = r->kernel, .ok = status >= 0,
                                 .physical_groups = r->physical_groups, .virtual_groups = r->host.total_groups};
    if (!profiled(r->traced, CL_PROFILING_COMMAND_QUEUED, &t.queued_ns) ||
        !profiled(r->traced, CL_PROFILING_COMMAND_START, &t.start_ns) ||
        !profiled(r->traced, CL_PROFILING_COMMAND_END, &t.end_ns)) {
        /* The application's queue has no profiling: host times of enqueue and completion. */
        t.queued_ns = t.start_ns = r->enqueued_ns;
        t.end_ns = host_now_ns();
    }
    aos_trace_launch(&t);
    NATIVE(r->traced, clReleaseEvent)(r->traced); /* complete now, so safe to let go */
    r->traced = NULL;
}

static void launch_ended(cl_int status, void *data)
{
    struct record *r = data;
    if (r->traced)
        trace_ended(r, status);
    flight_end(r->device, r->queue);
    record_put(r);
}

/* ---- Shape -------------------------------------------------------------------------------- */

static size_t auto_local(size_t global, size_t cap)
{
    size_t l = 1;
    while (l * 2 <= cap && global % (l * 2) == 0)
        l *= 2;
    return l;
}

/* Fills the record for the launch; false when the rewrite cannot run it exactly. */
static bool record_fill(struct aos_vndrange *rec, const struct aos_elastic_kernel *ek,
                        const struct aos_launch_shape *shape, size_t local[3])
{
    bool fixed = ek->compile_wg[0] || ek->compile_wg[1] || ek->compile_wg[2];
    size_t items = 1;
    uint64_t total = 1;
    memset(rec, 0, sizeof(*rec));
    rec->dims = shape->work_dim;
    for (cl_uint d = 0; d < 3; d++) {
        bool used = d < shape->work_dim;
        size_t g = used ? shape->global[d] : 1;
        if (shape->local)
            local[d] = used ? shape->local[d] : 1;
        else if (fixed)
            local[d] = ek->compile_wg[d];
        else
            local[d] = auto_local(g, d ? AUTO_LOCAL_YZ : AUTO_LOCAL_X);
        /* Non-uniform or empty ranges and a size other than the required one: native decides. */
        if (g == 0 || local[d] == 0 || g % local[d] || (fixed && local[d] != ek->compile_wg[d]))
            return false;
        rec->global_size[d] = g;
        rec->local_size[d] = local[d];
        rec->global_offset[d] = used && shape->offset ? shape->offset[d] : 0;
        rec->num_groups[d] = g / local[d];
        items *= local[d];
        total *= rec->num_groups[d];
    }
    if (items > ek->wg_size || total > UINT32_MAX)
        return false;
    rec->total_groups = (aos_u32)total;
    rec->next = 0;
    rec->done = 0;
    rec->budget = rec->total_groups;
    rec->chunk = 0; /* the kernel's compiled adaptive chunk */
    return true;
}

static const struct aos_device *device_of(cl_device_id id)
{
    for (uint32_t i = 0; i < aos_device_count(); i++)
        if (aos_device_at(i)->device == id)
            return aos_device_at(i);
    return NULL;
}

/* ---- Launch ------------------------------------------------------------------------------- */

bool aos_launch_elastic(struct aos_session *s, cl_command_queue queue, struct aos_elastic_kernel *ek,
                        const struct aos_launch_shape *shape, cl_uint num_wait, const cl_event *wait, cl_event *ev)
{
    cl_device_id qdev = NULL;
    cl_context ctx = NULL;
    if (NATIVE(queue, clGetCommandQueueInfo)(queue, CL_QUEUE_DEVICE, sizeof(qdev), &qdev, NULL) != CL_SUCCESS ||
        qdev != ek->device ||
        NATIVE(queue, clGetCommandQueueInfo)(queue, CL_QUEUE_CONTEXT, sizeof(ctx), &ctx, NULL) != CL_SUCCESS)
        return false;
    const struct aos_device *dev = device_of(qdev);
    struct aos_vndrange rec;
    size_t local[3];
    if (!dev || dev->index >= AOS_MAX_DEVICES || !record_fill(&rec, ek, shape, local))
        return false;
    struct record *r = record_get(ctx);
    cl_event *all = malloc((num_wait + 1) * sizeof(cl_event));
    if (!r || !all) {
        if (r)
            record_put(r);
        free(all);
        return false;
    }
    r->host = rec;
    r->device = dev->index;
    r->queue = queue;
    struct aos_launch_demand mine = {.wg_threads = (uint32_t)(local[0] * local[1] * local[2]),
                                     .total_groups = rec.total_groups};
    cl_ulong local_mem = 0;
    if (NATIVE(ek->kernel, clGetKernelWorkGroupInfo)(ek->kernel, qdev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof(local_mem),
                                                     &local_mem, NULL) == CL_SUCCESS)
        mine.local_mem = local_mem; /* the kernel's own __local data plus its __local arguments */
    struct aos_launch_demand others[MAX_BUSY_QUEUES];
    size_t running = flight_begin(r->device, queue, &mine, others);
    uint32_t groups = aos_launch_physical_groups(dev, others, running, &mine);
    if (groups == 0) {
        flight_end(r->device, queue);
        record_put(r);
        free(all);
        return false;
    }
    size_t phys[3] = {groups * local[0], local[1], local[2]};

    cl_event wrote = NULL, ran = NULL;
    cl_int err = NATIVE(queue, clEnqueueWriteBuffer)(queue, r->buffer, CL_FALSE, 0, sizeof(r->host), &r->host, 0,
                                                     NULL, &wrote);
    if (err == CL_SUCCESS)
        err = NATIVE(ek->kernel, clSetKernelArg)(ek->kernel, ek->num_args, sizeof(cl_mem), &r->buffer);
    if (err == CL_SUCCESS) {
        /* The kernel waits for its record too: on an out-of-order queue nothing else orders them. */
        if (num_wait)
            memcpy(all, wait, num_wait * sizeof(cl_event));
        all[num_wait] = wrote;
        err = NATIVE(queue, clEnqueueNDRangeKernel)(queue, ek->kernel, shape->work_dim, NULL, phys, local,
                                                    num_wait + 1, all, &ran);
    }
    free(all);
    if (err == CL_SUCCESS && aos_trace_enabled()) {
        r->client = s->serial;
        r->pid = s->pid;
        r->physical_groups = groups;
        r->enqueued_ns = host_now_ns();
        r->kernel[0] = '\0';
        NATIVE(ek->kernel, clGetKernelInfo)(ek->kernel, CL_KERNEL_FUNCTION_NAME, sizeof(r->kernel) - 1, r->kernel,
                                            NULL);
        if (NATIVE(ran, clRetainEvent)(ran) == CL_SUCCESS)
            r->traced = ran;
    }
    cl_event last = err == CL_SUCCESS ? ran : wrote;
    if (!last) {
        flight_end(r->device, queue);
        record_put(r); /* nothing was enqueued that reads it */
    } else if (aos_event_when_done(last, launch_ended, r) != CL_SUCCESS) {
        /* Without a completion the record cannot be known free: keep it out of the pool. */
        aos_log(AOS_LOG_WARN, "launch", "no completion for a launch record: not reused");
        flight_end(r->device, queue);
    }
    if (wrote)
        aos_event_drop(s, wrote);
    if (err != CL_SUCCESS) {
        aos_log(AOS_LOG_DEBUG, "launch", "elastic launch refused (%d): launching natively", err);
        return false;
    }
    aos_log(AOS_LOG_DEBUG, "launch", "%u virtual groups on %u physical (%zu other launches in flight)",
            rec.total_groups, groups, running);
    *ev = ran;
    return true;
}
