/*
 * Completion of real events, failures included (aos_event_when_done, ops.h). PoCL never calls an
 * event's callbacks when the event fails (a user event set to an error, or a command whose wait
 * list failed), so each watch pairs the real callback (the fast path) with a watcher thread that
 * polls the status of the events still pending; whichever sees the end first fires the watch,
 * once.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "callback_token.h"
#include "event_park.h"
#include "mono_cond.h"
#include "ops.h"

/* How often the watcher polls the status of pending events it watches, and how many polls it
 * goes on with after its list has emptied: launch after launch, each one's watch finds it polling
 * instead of waking it (WATCH_LINGER_POLLS x WATCH_POLL_NS = 1 s). */
#define WATCH_POLL_NS 5000000
#define WATCH_LINGER_POLLS 200

struct done_watch {
    struct done_watch *next;
    cl_event ev;               /* our reference, dropped when the watch leaves the list */
    aos_event_done_fn fn;
    void *data;
    cl_int status;
    _Atomic bool fired;
    _Atomic int refs;          /* the watcher's list, and the real callback's token while out */
    uint64_t token;            /* the real callback's user data (callback_token.h); 0 = none */
};

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    struct done_watch *head;
    bool started;
    bool idle; /* waiting without a deadline: only then does a new watch wake it */
    bool poked; /* a failure was just set: poll now (aos_event_watch_poke) */
} watcher = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void watch_unref(struct done_watch *w)
{
    if (atomic_fetch_sub(&w->refs, 1) == 1)
        free(w);
}

static void watch_fire(struct done_watch *w, cl_int status)
{
    if (!atomic_exchange(&w->fired, true))
        w->fn(status < 0 ? status : CL_COMPLETE, w->data);
}

cl_int aos_event_callback_status(cl_event ev, cl_int status)
{
    cl_int now = aos_event_exec_status(ev);
    return now < 0 ? now : status;
}

static void CL_CALLBACK watch_callback(cl_event ev, cl_int status, void *data)
{
    struct done_watch *w = aos_token_claim(aos_token_of_data(data));
    if (!w)
        return; /* the watcher saw the end first */
    watch_fire(w, aos_event_callback_status(ev, status));
    watch_unref(w);
}

static void *watcher_main(void *arg)
{
    (void)arg;
    aos_thread_name("aos-events");
    unsigned empty_polls = 0;
    pthread_mutex_lock(&watcher.lock);
    for (;;) {
        while (!watcher.head && empty_polls >= WATCH_LINGER_POLLS) {
            watcher.idle = true;
            pthread_cond_wait(&watcher.cond, &watcher.lock);
            empty_polls = 0;
        }
        watcher.idle = false;
        struct done_watch *ended = NULL;
        for (struct done_watch **p = &watcher.head; *p;) {
            struct done_watch *w = *p;
            w->status = atomic_load(&w->fired) ? CL_COMPLETE : aos_event_exec_status(w->ev);
            if (w->status <= CL_COMPLETE) {
                *p = w->next;
                w->next = ended;
                ended = w;
            } else {
                p = &w->next;
            }
        }
        pthread_mutex_unlock(&watcher.lock);
        for (struct done_watch *w = ended, *next; w; w = next) {
            next = w->next;
            watch_fire(w, w->status);
            NATIVE(w->ev, clReleaseEvent)(w->ev);
            /* A failed event gets no callback from PoCL: the token would stay out for good. */
            if (aos_token_withdraw(w->token))
                watch_unref(w);
            watch_unref(w);
        }
        struct timespec ts;
        aos_deadline_in(&ts, WATCH_POLL_NS);
        pthread_mutex_lock(&watcher.lock);
        empty_polls = watcher.head ? 0 : empty_polls + 1;
        if (watcher.head || empty_polls < WATCH_LINGER_POLLS)
            while (!watcher.poked && pthread_cond_timedwait(&watcher.cond, &watcher.lock, &ts) != ETIMEDOUT)
                ; /* only a poke signals a polling watcher: another wake-up here is spurious */
        watcher.poked = false;
    }
    return NULL;
}

void aos_event_watch_poke(void)
{
    pthread_mutex_lock(&watcher.lock);
    if (watcher.started && watcher.head) {
        watcher.poked = true;
        pthread_cond_signal(&watcher.cond);
    }
    pthread_mutex_unlock(&watcher.lock);
}

cl_int aos_event_when_done(cl_event ev, aos_event_done_fn fn, void *data)
{
    struct done_watch *w = calloc(1, sizeof(*w));
    if (!w)
        return CL_OUT_OF_HOST_MEMORY;
    w->ev = ev;
    w->fn = fn;
    w->data = data;
    w->token = aos_token_issue(w);
    atomic_init(&w->refs, w->token ? 2 : 1);
    uint64_t token = w->token; /* w may be gone once it is on the list */
    NATIVE(ev, clRetainEvent)(ev);
    pthread_mutex_lock(&watcher.lock);
    if (!aos_poller_start_locked(&watcher.started, &watcher.cond, watcher_main)) {
        pthread_mutex_unlock(&watcher.lock);
        aos_token_withdraw(token);
        NATIVE(ev, clReleaseEvent)(ev);
        free(w);
        return CL_OUT_OF_HOST_MEMORY;
    }
    w->next = watcher.head;
    watcher.head = w;
    /* Polling (or lingering after its list emptied), it sees w within a poll. Woken for every
     * watch, it slept 5 times per short launch (test_fair_solo), each time taking a core from
     * the device's workers on a CPU device. */
    if (watcher.idle)
        pthread_cond_signal(&watcher.cond);
    pthread_mutex_unlock(&watcher.lock);
    /* The fast path; without it, the watcher alone notices the end. A token still out keeps w. */
    if (token && NATIVE(ev, clSetEventCallback)(ev, CL_COMPLETE, watch_callback, aos_token_as_data(token)) != CL_SUCCESS &&
        aos_token_withdraw(token))
        watch_unref(w);
    return CL_SUCCESS;
}

bool aos_event_profiled(cl_event ev, cl_profiling_info what, uint64_t *out)
{
    cl_ulong v = 0;
    if (NATIVE(ev, clGetEventProfilingInfo)(ev, what, sizeof(v), &v, NULL) != CL_SUCCESS)
        return false;
    *out = v;
    return true;
}
