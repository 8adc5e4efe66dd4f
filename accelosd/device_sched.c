/*
 * The device scheduler: one thread per device runs every logical launch (logical.h) in waves.
 *
 * A wave is one physical launch of the launch's kernel clone on a scheduler-owned queue, with
 * `groups` physical work-groups and a budget of virtual groups (the record's stop/budget field):
 * the kernel ends once the budget is handed out, at a virtual-group boundary. Between waves the
 * scheduler may give the launch more or fewer groups (grow, shrink) or none (time slicing), and
 * the next wave resumes on the same record where the last one stopped.
 *
 * At every decision point (a launch becomes ready, a wave ends) the scheduler orders the ready and
 * running launches by their client's fair virtual time (Neon's fair queueing, charged with
 * measured device time x share held), asks the share solver (CGO'16 §3, with client weights) for
 * each one's physical groups, and starts a wave for every ready launch the solver lets run, once
 * the running waves hold no more than their new share. The solver makes the rest wait when the
 * device cannot hold one group of each: they run in later waves, so 8 kernels on 2 cores rotate.
 * A wave's budget is slice_ms of measured device time per virtual group (remembered per kernel
 * across launches), so a newcomer waits at most about one slice for its share; while no other client
 * is present, lone_slice_ms instead (nobody waits, and every wave costs a hand-off).
 *
 * Scheduling state is owned by whoever holds step_lock. Other threads post: new launches, and
 * inbox nodes from real-event callbacks (which may run on a driver thread, or synchronously
 * inside clSetEventCallback, so they must never wait for the scheduler). A poster that finds
 * step_lock free runs the step itself (kick): on a small CPU device the wake-up of the
 * scheduler thread costs as much as a short kernel, twice per launch. Only a poster that finds
 * the lock taken wakes the scheduler thread, which picks up what the holder's step left.
 *
 * PoCL frees failed events in ways that make a later release unsafe (ops_event.c), so an event
 * that ended in failure is parked until shutdown instead of released (event_park.h).
 *
 * This file holds the thread, posting, the step loop and launch ends; the plan, waves, cuts,
 * presence, anticipation, the watchdog and admission are in dsched_*.c (dsched.h).
 */
#include "dsched.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "accelos/estimates.h"
#include "accelos/futex.h"
#include "accelos/log.h"
#include "accelos/sched_config.h"
#include "accelos/wire_core.h"
#include "daemon_config.h"
#include "event_park.h"
#include "ops.h"
#include "session.h"
#include "mono_cond.h"
#include "solo.h"
#include "trace.h"

#define POLL_NS 20000000ull          /* re-check runaways and dead clients this often while busy */

static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
static struct device_sched scheds[AOS_MAX_DEVICES];

/* ---- Posting (any thread) ----------------------------------------------------------------- */

static void kick(struct device_sched *d);

/* Wakes the device's scheduler thread to look at its inbox and timers again. */
void dsched_wake_thread(struct device_sched *d)
{
    pthread_mutex_lock(&d->lock);
    pthread_cond_signal(&d->cond);
    pthread_mutex_unlock(&d->lock);
}

static void post(struct aos_logical_node *n)
{
    if (atomic_exchange(&n->posted, true))
        return;
    struct device_sched *d = &scheds[n->launch->device];
    n->next = NULL;
    pthread_mutex_lock(&d->lock);
    if (d->inbox_tail)
        d->inbox_tail->next = n;
    else
        d->inbox = n;
    d->inbox_tail = n;
    pthread_mutex_unlock(&d->lock);
    kick(d);
}

static void gate_ended(cl_int status, void *data)
{
    struct aos_logical *l = data;
    l->gate_node.status = status;
    post(&l->gate_node);
}

void dsched_wave_ended(cl_int status, void *data)
{
    struct aos_logical *l = data;
    l->wave_node.status = status;
    l->wave_node.ns = aos_now_ns();
    post(&l->wave_node);
}

/* ---- Small helpers (scheduler thread) ----------------------------------------------------- */


double dsched_estimate_get(struct device_sched *d, uint64_t key)
{
    pthread_mutex_lock(&d->estimates_lock);
    double v = aos_estimates_one(&d->estimates, key);
    pthread_mutex_unlock(&d->estimates_lock);
    return v;
}

static void estimate_put(struct device_sched *d, uint64_t key, double v)
{
    pthread_mutex_lock(&d->estimates_lock);
    aos_estimates_put(&d->estimates, key, v);
    pthread_mutex_unlock(&d->estimates_lock);
}

void dsched_estimate_put_alone(struct device_sched *d, uint64_t key, double v, bool solo)
{
    pthread_mutex_lock(&d->estimates_lock);
    aos_estimates_put_alone(&d->estimates, key, v);
    pthread_mutex_unlock(&d->estimates_lock);
    atomic_fetch_add(solo ? &d->alone_measures_solo : &d->alone_measures_waves, 1);
}

/* key's speed alone once trusted, else 0; *measures: how many set it (for the log). */
double dsched_estimate_alone(struct device_sched *d, uint64_t key, uint32_t *measures)
{
    pthread_mutex_lock(&d->estimates_lock);
    double v = aos_estimates_alone(&d->estimates, key);
    if (measures)
        *measures = aos_estimates_alone_measures(&d->estimates, key);
    pthread_mutex_unlock(&d->estimates_lock);
    return v;
}

cl_command_queue dsched_queue_take(struct device_sched *d, cl_context ctx)
{
    for (struct run_queue **p = &d->idle_queues; *p; p = &(*p)->next)
        if ((*p)->context == ctx) {
            struct run_queue *r = *p;
            *p = r->next;
            cl_command_queue q = r->queue;
            free(r);
            return q;
        }
    cl_int err = CL_SUCCESS;
    cl_command_queue q;
    if (NATIVE(ctx, clCreateCommandQueueWithProperties)) {
        cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
        q = NATIVE(ctx, clCreateCommandQueueWithProperties)(ctx, d->dev->device, props, &err);
    } else {
        q = NATIVE(ctx, clCreateCommandQueue)(ctx, d->dev->device, CL_QUEUE_PROFILING_ENABLE, &err);
    }
    return err == CL_SUCCESS ? q : NULL;
}

void dsched_queue_give_back(struct device_sched *d, cl_context ctx, cl_command_queue q)
{
    struct run_queue *r = malloc(sizeof(*r));
    if (!r) {
        NATIVE(q, clReleaseCommandQueue)(q);
        return;
    }
    *r = (struct run_queue){.next = d->idle_queues, .context = ctx, .queue = q};
    d->idle_queues = r;
}

bool dsched_is_active(const struct aos_logical *l)
{
    return l->state == AOS_LOGICAL_READY || l->state == AOS_LOGICAL_RUNNING;
}

bool dsched_client_has_active(struct device_sched *d, const struct aos_logical *except, uint64_t client)
{
    for (struct aos_logical *o = d->launches; o; o = o->next)
        if (o != except && o->client == client && dsched_is_active(o))
            return true;
    return false;
}

bool dsched_client_has_gated(struct device_sched *d, uint64_t client)
{
    for (struct aos_logical *o = d->launches; o; o = o->next)
        if (o->client == client && o->state == AOS_LOGICAL_GATED)
            return true;
    return false;
}

/* ---- Ending a launch ---------------------------------------------------------------------- */

static void trace_end(const struct aos_logical *l)
{
    if (!aos_trace_enabled())
        return;
    struct aos_trace_launch t = {.client = l->client, .pid = l->s ? l->s->pid : 0, .kernel = l->kernel_name,
                                 .ok = l->end_status == CL_COMPLETE, .status = l->end_status,
                                 .queued_ns = l->queued_ns, .start_ns = l->start_ns, .end_ns = l->end_ns,
                                 .device_ns = l->device_ns, .charged_ns = l->charged_ns, .waves = l->waves,
                                 .virtual_groups = l->host.total_groups, .virtual_groups_done = l->host.budget,
                                 .chunk = l->max_chunk,
                                 .admitted_host_ns = l->arrival_host_ns, .ended_host_ns = l->ended_host_ns,
                                 .history_n = l->history_n};
    for (uint32_t i = 0; i < l->history_n; i++) {
        t.history[i].t_ns = l->history[i].t_ns;
        t.history[i].groups = l->history[i].groups;
    }
    t.physical_groups = l->history_n ? l->history[0].groups : 0;
    if (!l->profiling || !l->start_ns) {
        /* Host times: the application's queue has no profiling, or no wave ever ran. */
        t.queued_ns = l->arrival_host_ns;
        t.start_ns = l->first_wave_host_ns ? l->first_wave_host_ns : l->ended_host_ns;
        t.end_ns = l->ended_host_ns;
    }
    aos_trace_launch(&t);
}

/* Completes the application's event (status CL_COMPLETE or an error) and stops scheduling l. */
void dsched_launch_end(struct device_sched *d, struct aos_logical *l, cl_int status)
{
    if (l->state == AOS_LOGICAL_ENDED)
        return;
    bool was_active = dsched_is_active(l);
    l->end_status = status;
    l->ended_host_ns = aos_now_ns();
    if (status != CL_COMPLETE)
        atomic_store(&l->failed_status, status < 0 ? status : CANCELLED_STATUS);
    if (status == CL_COMPLETE) {
        if (!l->queued_ns)
            l->queued_ns = l->submit_ns = l->start_ns;
        atomic_store(&l->timed, true); /* before the event completes: the client may ask at once */
    } else {
        aos_log(AOS_LOG_INFO, "sched", "client %llu: launch of %s ended with error %d",
                (unsigned long long)l->client, l->kernel_name, status);
    }
    l->state = AOS_LOGICAL_ENDED; /* no longer active: dsched_end_note looks past it */
    /* A command the client enqueued behind this launch (its results' read) becomes ready only now,
     * and on PoCL it may reach the device after the next wave, then waits for all of it: that wave
     * is cut for it as for a command that came while it runs. */
    const struct recent_end *was = dsched_recent_of(d, l->client);
    if (status == CL_COMPLETE && was && was->command_ns >= l->arrival_host_ns)
        d->cut_after_end = l->client;
    struct recent_end *e = dsched_end_note(d, l->client, l->ended_host_ns);
    e->launch_ns = dsched_launch_ns_after(e->launch_ns, l);
    aos_solo_logical_end(d->index, l->client);
    if (l->estimate_key && l->ns_per_vgroup_one > 0)
        estimate_put(d, l->estimate_key, l->ns_per_vgroup_one);
    if (l->estimate_key && l->ns_per_vgroup_one > 0 && aos_log_level() >= AOS_LOG_DEBUG) {
        uint32_t measures = 0;
        double alone = dsched_estimate_alone(d, l->estimate_key, &measures);
        aos_log(AOS_LOG_DEBUG, "sched",
                "client %llu: %s ended: %.0f ns per virtual group, %.0f alone (%u measures), charged %.2f of its "
                "device time",
                (unsigned long long)l->client, l->kernel_name, l->ns_per_vgroup_one, alone, measures,
                l->device_ns ? (double)l->charged_ns / (double)l->device_ns : 1.0);
    }
    trace_end(l);
    cl_int user_status = status == CL_COMPLETE ? CL_COMPLETE : atomic_load(&l->failed_status);
    /* Nobody can see a dead client's events, and its queues may already be released: PoCL 3.1
     * propagating a failure into a released queue's marker aborts the daemon (a destroyed mutex).
     * Ending normally lets the marker retire through PoCL's ordinary path. */
    if (atomic_load(&l->s->dead))
        user_status = CL_COMPLETE;
    /* Where the daemon orders the queue (PoCL: out-of-order on the device), the application's
     * event waits for the user event alone and fails only through it. On a queue the device
     * orders, whatever failed the gate may have failed the application's event too: the command
     * before both on an in-order queue, or a barrier before both on an out-of-order one. PoCL 3.1
     * then freed that event once released while it still waited on the user event, and any
     * status set on the user event reached freed memory and aborted the daemon (test_fair_queue,
     * found by test_fuzz, before the daemon ordered PoCL's queues). The user event stays unset,
     * parked. */
    bool app_failed = l->gate_failed && (l->in_order || (l->app && aos_event_failed(l->app)));
    if (app_failed)
        aos_event_release_or_park(&d->parked, l->user);
    else if (user_status == CL_COMPLETE)
        aos_status_apply(l->user, CL_COMPLETE, &d->parked);
    else /* a failure spreads at once: only the client's service thread may start one */
        aos_session_fail_user_event(l->s, l->user, user_status, &d->parked);
    l->user = NULL;
    if (l->app && app_failed)
        aos_event_release_or_park(&d->parked, l->app); /* failed: kept, like the user event */
    else if (l->app)
        NATIVE(l->app, clReleaseEvent)(l->app);
    l->app = NULL;
    dsched_admit_ended(l->s, was_active);
}

/* Frees the launches that have ended and left the device. */
static void reap(struct device_sched *d)
{
    for (struct aos_logical **p = &d->launches; *p;) {
        struct aos_logical *l = *p;
        if (l->state != AOS_LOGICAL_ENDED || l->wave || l->gate) {
            p = &l->next;
            continue;
        }
        *p = l->next;
        if (l->run_queue)
            dsched_queue_give_back(d, l->context, l->run_queue);
        l->run_queue = NULL;
        aos_logical_drop_run_state(l); /* before the application releases its event */
        aos_session_unref(l->s);
        l->s = NULL;
        aos_logical_unref(l);
    }
}

/* ---- Events from the device --------------------------------------------------------------- */

static void on_gate(struct device_sched *d, struct aos_logical *l, cl_int status)
{
    cl_event gate = l->gate;
    l->gate = NULL;
    if (l->profiling && status >= 0) {
        aos_event_profiled(gate, CL_PROFILING_COMMAND_QUEUED, &l->queued_ns);
        aos_event_profiled(gate, CL_PROFILING_COMMAND_SUBMIT, &l->submit_ns);
    }
    aos_event_release_or_park(&d->parked, gate);
    if (l->state == AOS_LOGICAL_ENDED)
        return;
    if (status < 0) {
        l->gate_failed = true;
        dsched_launch_end(d, l, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
        return;
    }
    if (!dsched_client_has_active(d, l, l->client))
        aos_sched_vt_join(d->vt, l->client, l->weight);
    l->state = AOS_LOGICAL_READY;
    l->arrival = d->next_arrival++;
    dsched_admit_active(l->s, +1);
}

static void take_inbox(struct device_sched *d, struct aos_logical_node *n)
{
    while (n) {
        struct aos_logical_node *next = n->next;
        struct aos_logical *l = n->launch;
        atomic_store(&n->posted, false);
        if (n->kind == AOS_LOGICAL_MSG_GATE)
            on_gate(d, l, n->status);
        else if (n->kind == AOS_LOGICAL_MSG_WAVE)
            dsched_on_wave(d, l, n->status, n->ns);
        n = next;
    }
}

static void take_incoming(struct device_sched *d, struct aos_logical *l)
{
    while (l) {
        struct aos_logical *next = l->next;
        dsched_think_note(d, l);
        l->state = AOS_LOGICAL_GATED;
        l->gate_node = (struct aos_logical_node){.launch = l, .kind = AOS_LOGICAL_MSG_GATE};
        l->wave_node = (struct aos_logical_node){.launch = l, .kind = AOS_LOGICAL_MSG_WAVE};
        l->next = d->launches;
        d->launches = l;
        if (aos_event_when_done(l->gate, gate_ended, l) != CL_SUCCESS)
            gate_ended(CL_OUT_OF_HOST_MEMORY, l);
        l = next;
    }
}

/* ---- Clients that left ------------------------------------------------------------------- */

static bool client_has_launch(struct device_sched *d, uint64_t client)
{
    for (struct aos_logical *o = d->launches; o; o = o->next)
        if (o->client == client)
            return true;
    return false;
}

/* Drops what the scheduler keeps per client (virtual time, gap history, a hold) for clients that
 * left and have nothing left here. A daemon serves clients by the million over its life: without
 * this every one of them stayed in the virtual-time table, which every step scans. */
static void forget_gone(struct device_sched *d, struct gone_client *arrived)
{
    while (arrived) {
        struct gone_client *next = arrived->next;
        arrived->next = d->gone_pending;
        d->gone_pending = arrived;
        arrived = next;
    }
    for (struct gone_client **p = &d->gone_pending; *p;) {
        struct gone_client *g = *p;
        if (client_has_launch(d, g->client)) {
            p = &g->next; /* its launches end at their next wave boundary */
            continue;
        }
        *p = g->next;
        if (d->hold_client == g->client)
            dsched_hold_release(d, aos_now_ns(), "client gone");
        struct recent_end *e = dsched_recent_of(d, g->client);
        if (e)
            *e = (struct recent_end){0};
        aos_sched_vt_forget(d->vt, g->client);
        free(g);
    }
}

static void free_gone(struct gone_client *g)
{
    while (g) {
        struct gone_client *next = g->next;
        free(g);
        g = next;
    }
}

/* ---- Thread ------------------------------------------------------------------------------- */

/* Takes what was posted, then plans, until nothing more is posted. Caller holds step_lock. A
 * callback that fires inside this step (clSetEventCallback on an ended event, clSetUserEventStatus)
 * finds the lock taken and posts: the next round picks it up. */
static void step(struct device_sched *d)
{
    for (bool first = true;; first = false) {
        pthread_mutex_lock(&d->lock);
        struct aos_logical_node *inbox = d->inbox;
        struct aos_logical *incoming = d->incoming;
        struct gone_client *gone = d->gone;
        struct held_solo_end solo_ends[HELD_SOLO_ENDS];
        uint32_t solo_ends_n = d->solo_ends_n;
        memcpy(solo_ends, d->solo_ends, solo_ends_n * sizeof(solo_ends[0]));
        uint64_t cut_wanted = d->cut_wanted_by;
        struct command_note notes[RECENT_ENDS];
        uint32_t notes_n = d->command_notes_n;
        memcpy(notes, d->command_notes, notes_n * sizeof(notes[0]));
        d->command_notes_n = 0;
        d->inbox = d->inbox_tail = NULL;
        d->incoming = NULL;
        d->gone = NULL;
        d->solo_ends_n = 0;
        d->cut_wanted_by = 0;
        pthread_mutex_unlock(&d->lock);
        if (!first && !inbox && !incoming && !gone && !solo_ends_n && !cut_wanted)
            return;
        for (uint32_t i = 0; i < notes_n; i++) {
            struct recent_end *r = dsched_recent_of(d, notes[i].client);
            if (r && notes[i].ns > r->command_ns)
                r->command_ns = notes[i].ns;
        }
        take_incoming(d, incoming);
        take_inbox(d, inbox);
        for (uint32_t i = 0; i < solo_ends_n; i++)
            dsched_on_held_solo_end(d, &solo_ends[i]);
        dsched_watch(d);
        dsched_plan(d);
        if (cut_wanted)
            dsched_cut_for_command(d, cut_wanted);
        if (d->cut_after_end && d->cut_after_end != cut_wanted)
            dsched_cut_for_command(d, d->cut_after_end);
        d->cut_after_end = 0;
        reap(d);
        forget_gone(d, gone);
        bool now = d->launches != NULL;
        if (atomic_exchange(&d->has_launches, now) != now && now) {
            dsched_wake_thread(d); /* it may wait untimed: it must start polling */
        }
    }
}

/* Runs a step on the calling thread when nobody else is stepping. Otherwise the stepper may
 * already have looked at the inbox: the scheduler thread is woken to take what is left. */
static void kick(struct device_sched *d)
{
    if (pthread_mutex_trylock(&d->step_lock) != 0) {
        dsched_wake_thread(d);
        return;
    }
    pthread_mutex_lock(&d->lock);
    bool stopping = d->stopping;
    pthread_mutex_unlock(&d->lock);
    if (!stopping)
        step(d);
    pthread_mutex_unlock(&d->step_lock);
}

static void *sched_main(void *arg)
{
    struct device_sched *d = arg;
    aos_thread_name("aos-sched");
    for (;;) {
        pthread_mutex_lock(&d->lock);
        while (!d->inbox && !d->incoming && !d->gone && !d->solo_ends_n && !d->poked && !d->stopping &&
               !d->cut_wanted_by) {
            if (!atomic_load(&d->has_launches)) {
                pthread_cond_wait(&d->cond, &d->lock);
                continue;
            }
            struct timespec ts;
            uint64_t wait = POLL_NS, now = aos_now_ns();
            uint64_t wakes[] = {atomic_load(&d->wake_at_ns), atomic_load(&d->cut_check_at_ns)};
            for (size_t w = 0; w < sizeof(wakes) / sizeof(wakes[0]); w++)
                if (wakes[w])
                    wait = wakes[w] <= now ? 0 : wakes[w] - now < wait ? wakes[w] - now : wait;
            if (!wait)
                break;
            aos_deadline_in(&ts, wait);
            if (pthread_cond_timedwait(&d->cond, &d->lock, &ts) == ETIMEDOUT)
                break;
        }
        bool stopping = d->stopping;
        d->poked = false;
        pthread_mutex_unlock(&d->lock);
        if (stopping)
            break;
        pthread_mutex_lock(&d->step_lock);
        step(d);
        pthread_mutex_unlock(&d->step_lock);
    }
    return NULL;
}

static struct device_sched *sched_for(uint32_t device)
{
    struct device_sched *d = &scheds[device];
    pthread_mutex_lock(&start_lock);
    if (!d->started) {
        d->index = device;
        d->dev = aos_device_at(device);
        pthread_mutex_init(&d->lock, NULL);
        pthread_mutex_init(&d->step_lock, NULL);
        pthread_mutex_init(&d->estimates_lock, NULL);
        pthread_mutex_init(&d->parked.lock, NULL);
        aos_cond_init_monotonic(&d->cond);
        d->vt = aos_sched_vt_new();
        if (d->vt)
            aos_sched_vt_set_rejoin_credit(d->vt, (uint64_t)aos_daemon_config_get()->rejoin_credit_us * 1000ull);
        d->have_model = aos_device_model(d->dev, &d->model);
        if (d->vt && pthread_create(&d->thread, NULL, sched_main, d) == 0)
            d->started = true;
        else
            aos_log(AOS_LOG_ERROR, "sched", "device %u: cannot start the scheduler thread", device);
    }
    bool ok = d->started;
    pthread_mutex_unlock(&start_lock);
    return ok ? d : NULL;
}

void aos_device_sched_submit(struct aos_logical *l)
{
    struct device_sched *d = sched_for(l->device);
    if (!d) {
        /* No thread to run it: the application's event fails rather than hanging. */
        NATIVE(l->user, clSetUserEventStatus)(l->user, CL_OUT_OF_RESOURCES);
        aos_device_sched_unadmit(l->s);
        aos_session_unref(l->s);
        aos_logical_unref(l);
        return;
    }
    aos_solo_logical_begin(l->s, l->device);
    pthread_mutex_lock(&d->lock);
    l->next = d->incoming;
    d->incoming = l;
    pthread_mutex_unlock(&d->lock);
    kick(d);
}

/* The device's scheduler, NULL when it never started (nothing ever ran there). */
struct device_sched *dsched_started(uint32_t device)
{
    if (device >= AOS_MAX_DEVICES)
        return NULL;
    struct device_sched *d = &scheds[device];
    pthread_mutex_lock(&start_lock);
    bool started = d->started;
    pthread_mutex_unlock(&start_lock);
    return started ? d : NULL;
}

/* Groups of a launch over virtual_groups that run at once on the whole device: one per compute
 * unit. A solo launch's time and a launch's expected time convert by it to and from the time per
 * virtual group on one compute unit. */
uint64_t dsched_range_width(const struct device_sched *d, uint64_t virtual_groups)
{
    uint64_t units = dsched_direct_width(d);
    return units < virtual_groups ? units : virtual_groups;
}

/* The remembered time per virtual group on one compute unit of the code behind estimate_key on
 * dev (*one), and what a launch of virtual_groups groups of it takes on the whole device; 0 for
 * both when nothing is measured yet. Any thread. */
double dsched_expected_on(const struct aos_device *dev, uint64_t estimate_key, uint64_t virtual_groups, double *one)
{
    struct device_sched *d = dsched_started(dev->index);
    *one = 0;
    if (!d || !estimate_key || !virtual_groups || !d->have_model || !d->model.compute_units)
        return 0;
    pthread_mutex_lock(&d->estimates_lock);
    *one = aos_estimates_one(&d->estimates, estimate_key);
    pthread_mutex_unlock(&d->estimates_lock);
    return *one * (double)virtual_groups / (double)dsched_range_width(d, virtual_groups);
}

uint64_t aos_device_sched_expected_ns(const struct aos_device *dev, uint64_t estimate_key, uint64_t virtual_groups)
{
    double one, ns = dsched_expected_on(dev, estimate_key, virtual_groups, &one);
    return ns > 0 && ns < 1e18 ? (uint64_t)ns + 1 : 0; /* 0: nothing measured on it yet */
}

void aos_device_sched_solo_alone(uint32_t device, uint64_t estimate_key, uint64_t virtual_groups, uint64_t ran_ns)
{
    struct device_sched *d = dsched_started(device);
    if (!d || !estimate_key || !virtual_groups || !ran_ns)
        return;
    double one = (double)ran_ns * (double)dsched_range_width(d, virtual_groups) / (double)virtual_groups;
    dsched_estimate_put_alone(d, estimate_key, one, true);
}

void aos_device_sched_command_waits(const struct aos_device *dev, uint64_t client)
{
    struct device_sched *d = dsched_started(dev->index);
    if (!d || !atomic_load(&d->waves_running))
        return;
    uint64_t running = atomic_load(&d->cut_wave_client), now = aos_now_ns();
    bool cut_wanted = running && running != client;
    pthread_mutex_lock(&d->lock);
    /* For the scheduler thread's next step: the client is present (dsched_others_present), and a launch
     * of its that ends may have this command behind it (dsched_launch_end). */
    uint32_t i = 0;
    while (i < d->command_notes_n && d->command_notes[i].client != client)
        i++;
    if (i < RECENT_ENDS) {
        d->command_notes[i] = (struct command_note){.client = client, .ns = now};
        d->command_notes_n += i == d->command_notes_n;
    }
    if (cut_wanted)
        d->cut_wanted_by = client;
    pthread_mutex_unlock(&d->lock);
    if (cut_wanted)
        kick(d);
}

void aos_device_sched_nudge(uint32_t device)
{
    struct device_sched *d = dsched_started(device);
    if (!d)
        return;
    /* poked: when a step is under way, it may be past its plan, so the thread steps again. */
    pthread_mutex_lock(&d->lock);
    d->poked = true;
    pthread_mutex_unlock(&d->lock);
    kick(d);
}

uint64_t aos_device_sched_held_for(uint32_t device, uint64_t client)
{
    struct device_sched *d = dsched_started(device);
    if (!d || !client || atomic_load(&d->held_client) != client)
        return 0;
    uint64_t solo_ns = atomic_load(&d->held_solo_ns), until = atomic_load(&d->held_until_ns);
    if (atomic_load(&d->held_client) != client)
        return 0; /* another hold began meanwhile: the two fields may be its */
    return aos_now_ns() < until ? solo_ns : 0;
}

void aos_device_sched_held_solo_ended(uint32_t device, uint64_t client, uint64_t claimed_ns, uint64_t ran_ns)
{
    struct device_sched *d = dsched_started(device);
    if (!d)
        return;
    pthread_mutex_lock(&d->lock);
    if (d->solo_ends_n == HELD_SOLO_ENDS) /* only anticipation is lost: the oldest goes */
        memmove(d->solo_ends, d->solo_ends + 1, (HELD_SOLO_ENDS - 1) * sizeof(d->solo_ends[0]));
    else
        d->solo_ends_n++;
    d->solo_ends[d->solo_ends_n - 1] =
        (struct held_solo_end){.client = client, .claimed_ns = claimed_ns, .ended_ns = aos_now_ns(), .ran_ns = ran_ns};
    pthread_mutex_unlock(&d->lock);
    kick(d);
}

void aos_device_sched_client_gone(uint64_t client)
{
    for (uint32_t i = 0; i < AOS_MAX_DEVICES; i++) {
        struct device_sched *d = dsched_started(i);
        struct gone_client *g = d ? malloc(sizeof(*g)) : NULL;
        if (!g)
            continue; /* never used, or no memory: it stays remembered, as before */
        pthread_mutex_lock(&d->lock);
        *g = (struct gone_client){.next = d->gone, .client = client};
        d->gone = g;
        pthread_mutex_unlock(&d->lock);
        kick(d);
    }
}

struct aos_device_sched_stats aos_device_sched_stats(uint32_t device)
{
    struct aos_device_sched_stats st = {0};
    struct device_sched *d = dsched_started(device);
    if (!d)
        return st;
    pthread_mutex_lock(&d->step_lock);
    st.clients_known = aos_sched_vt_count(d->vt);
    st.parked_events = aos_event_park_count(&d->parked);
    st.waves_started = d->waves_started;
    st.waves_cut = d->waves_cut;
    st.waves_cuttable = d->waves_cuttable;
    st.holds = d->holds;
    st.held_ns = d->held_ns;
    st.held_charged_ns = d->held_charged_ns;
    pthread_mutex_unlock(&d->step_lock);
    st.alone_measures_waves = atomic_load(&d->alone_measures_waves);
    st.alone_measures_solo = atomic_load(&d->alone_measures_solo);
    return st;
}

void aos_device_sched_poke(void)
{
    for (uint32_t i = 0; i < AOS_MAX_DEVICES; i++) {
        struct device_sched *d = dsched_started(i);
        if (!d)
            continue;
        pthread_mutex_lock(&d->lock);
        d->poked = true;
        pthread_cond_signal(&d->cond);
        pthread_mutex_unlock(&d->lock);
    }
    dsched_admit_wake_all();
}

void aos_device_sched_shutdown(void)
{
    for (uint32_t i = 0; i < AOS_MAX_DEVICES; i++) {
        struct device_sched *d = &scheds[i];
        if (!d->started)
            continue;
        pthread_mutex_lock(&d->lock);
        d->stopping = true;
        pthread_cond_signal(&d->cond);
        pthread_mutex_unlock(&d->lock);
        pthread_join(d->thread, NULL);
        pthread_mutex_lock(&d->step_lock); /* a poster's step still under way */
        pthread_mutex_unlock(&d->step_lock);
        d->started = false;
        while (d->idle_queues) {
            struct run_queue *r = d->idle_queues;
            d->idle_queues = r->next;
            NATIVE(r->queue, clReleaseCommandQueue)(r->queue);
            free(r);
        }
        aos_event_park_release_all(&d->parked);
        free_gone(d->gone);
        free_gone(d->gone_pending);
        d->gone = d->gone_pending = NULL;
        aos_sched_vt_destroy(d->vt);
        d->vt = NULL;
    }
}
