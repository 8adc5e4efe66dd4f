/*
 * A logical launch (policy fair): one application clEnqueueNDRangeKernel of a rewritten kernel,
 * run as a series of waves (physical launches) over one virtual NDRange record.
 *
 * Who touches what. launch.c (a client's service thread) creates the launch and hands it to the
 * device's scheduler thread (device_sched.c), which alone changes the scheduling fields from then
 * on. Real-event callbacks never touch the launch: they post one of its inbox nodes. The profiling
 * times are written by the scheduler thread before the user event completes, and read by the
 * service thread (aos_logical_profiling) only once the application's event has completed.
 *
 * Lifetime: reference counted. The scheduler holds one until the launch has ended and its last
 * wave has left the device; the application's event id holds another for profiling queries.
 */
#ifndef ACCELOSD_LOGICAL_H
#define ACCELOSD_LOGICAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "accelos/vndrange.h"
#include "native.h"
#include "vendor.h"

struct aos_session;

/* An argument object a launch keeps alive until it ends, or (local) a __local argument size the
 * launch sets again on its kernel clone: PoCL 3.1's clCloneKernel copies those wrongly. */
struct aos_logical_held {
    void *object;  /* cl_mem, or cl_sampler when sampler; NULL for a local */
    bool sampler;
    bool local;
    cl_uint index; /* local: argument index */
    size_t size;   /* local: bytes */
};

enum aos_logical_msg {
    AOS_LOGICAL_MSG_GATE,     /* the gate marker ended (status) */
    AOS_LOGICAL_MSG_WAVE,     /* the wave's kernel ended (status; ns: host time it was seen) */
};

struct aos_logical_node {
    struct aos_logical_node *next;
    struct aos_logical *launch;
    enum aos_logical_msg kind;
    cl_int status;
    uint64_t ns;
    _Atomic bool posted;      /* queued and not yet taken: a second post is dropped */
};

enum aos_logical_state {
    AOS_LOGICAL_GATED,    /* waiting for the application's queue and wait list */
    AOS_LOGICAL_READY,    /* may run; no wave on the device */
    AOS_LOGICAL_RUNNING,  /* one wave on the device */
    AOS_LOGICAL_ENDED,    /* user event set; a wave may still be leaving the device */
};

#define AOS_LOGICAL_HISTORY 32u /* physical group counts kept for the trace */

struct aos_logical {
    _Atomic int refs;
    struct aos_logical *next;          /* scheduler's list */

    /* Set by launch.c, read-only afterwards. */
    struct aos_session *s;             /* referenced until the launch ends */
    uint64_t client;                   /* s->serial: the fair-queueing key */
    uint32_t weight;                   /* the client's weight, >= 1 */
    uint32_t device;                   /* index of the device it runs on */
    cl_context context;
    cl_kernel kernel;                  /* a clone of the twin: the arguments as at enqueue */
    bool direct;                       /* kernel is the direct shape: waves of one virtual group per
                                        * physical group, each over a box of the original range */
    cl_mem record;                     /* AOS_VNDRANGE_SIZE bytes; owned; NULL in the direct shape */
    cl_uint grid_arg;                  /* the direct kernel's grid argument, set for every wave */
    cl_mem cut_mem;                    /* cuttable direct waves: struct aos_cut, on cut_host; owned */
    struct aos_cut *cut_host;          /* host memory of cut_mem, freed with it; NULL: not cuttable */
    cl_kernel cut_kernel;              /* a clone of the cuttable direct kernel, or NULL */
    bool cut_host_freed_with_mem;      /* cut_mem's destructor frees cut_host */
    struct aos_vndrange host;          /* the record; the non-blocking writes read it */
    cl_event gate;                     /* marker on the application's queue: may start */
    cl_event user;                     /* completes the application's event */
    cl_event app;                      /* the application's event (a reference), until the launch ends */
    bool profiling;                    /* the application's queue has profiling */
    bool in_order;                     /* ... and runs in order on the device: its event follows the gate */
    bool gate_failed;                  /* the gate's wait list failed (scheduler only) */
    cl_uint work_dim;
    size_t local[3];
    uint32_t wg_threads;
    uint64_t local_mem;
    uint32_t regs_per_thread;          /* of the twin kernel; 0 = unknown (registers do not bind) */
    uint32_t compiled_chunk;           /* the twin's virtual groups per dequeue when the record says 0 */
    struct aos_logical_held *held;     /* argument objects retained for the launch */
    uint32_t n_held;
    bool held_counted;                 /* n_held is in its session's launch_held_objects */
    char kernel_name[64];
    uint64_t arrival_host_ns;          /* admitted (CLOCK_MONOTONIC) */
    uint64_t estimate_key;             /* aos_elastic_estimate_key: time per virtual group is remembered by it */

    /* Scheduler thread only. */
    enum aos_logical_state state;
    uint64_t arrival;                  /* sequence number once ready */
    cl_command_queue run_queue;        /* borrowed from the scheduler's pool while it runs */
    cl_event wave;                     /* kernel of the wave on the device */
    uint32_t wave_groups;              /* physical groups of that wave */
    uint32_t wave_vgroups;             /* virtual groups it may hand out */
    double wave_share;                 /* fraction of the device it holds */
    uint64_t wave_running_ns;          /* host time it was seen running, 0 until then */
    uint64_t wave_submit_host_ns;
    uint64_t first_wave_host_ns;
    double ns_per_vgroup_one;          /* measured: device ns per virtual group for one group */
    bool cold;                         /* the first launch of its kernel object: the device compiles
                                        * the kernel during its waves */
    double remembered_one;             /* ns_per_vgroup_one as earlier launches left it; 0 = none */
    uint32_t compile_waves;            /* waves not measured: they timed the device's compile */
    uint64_t device_ns;                /* summed wave time */
    uint64_t charged_ns;               /* what its waves were charged (aos_sched_progress_charge) */
    uint64_t ended_host_ns;            /* CLOCK_MONOTONIC when the user event was set */
    uint32_t waves;
    uint32_t max_chunk;                /* largest virtual groups per dequeue of its loop waves */
    bool aborted;                      /* runaway: ended while a wave was still on the device */
    bool cut_sent;                     /* the running wave was told to stop (cut_host) */
    bool wave_cuttable;                /* the running wave is of cut_kernel */
    bool wave_alone;                   /* no other client was present as it started */
    bool cut_proven;                   /* a wave's claims showed in cut_host: cuts reach the device */
    uint8_t cut_asks;                  /* waves of others it cut while not ready (cut_for_gated) */
    cl_int end_status;
    uint32_t history_n;
    struct { uint64_t t_ns; uint32_t groups; } history[AOS_LOGICAL_HISTORY];
    struct aos_logical_node gate_node, wave_node;

    /* Profiling of the logical launch, device clock; valid once `timed` is set. */
    uint64_t queued_ns, submit_ns, start_ns, end_ns;
    _Atomic bool timed;
    /* The error the launch ended with, 0 while none: the application's event reports it (the
     * driver would report its own code for the marker that failed after it). */
    _Atomic cl_int failed_status;
};

void aos_logical_ref(struct aos_logical *l);
/* Frees what the launch owns; the scheduler has already returned its borrowed parts. */
void aos_logical_unref(struct aos_logical *l);
/* Releases the kernel clone, the record and the argument objects once no wave will run: the
 * application's event, which may hold the launch much longer, needs none of them, and the
 * application may have released those buffers long ago. Scheduler only. */
void aos_logical_drop_run_state(struct aos_logical *l);

/* The launch's error once it has failed, else 0 (launch.c). */
cl_int aos_logical_failed(struct aos_logical *l);
/* Answers clGetEventProfilingInfo for the launch (launch.c). */
cl_int aos_logical_profiling(struct aos_logical *l, cl_profiling_info param, size_t size, void *value,
                             size_t *size_ret);

#endif
