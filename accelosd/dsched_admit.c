/*
 * Admission: the per-client in-flight limit (max_inflight_per_client). A client at its limit
 * blocks in its service thread until one of its launches ends (or, while none of them is on the
 * device, after a grace: they may wait on the client itself), so a flooding client is slowed, not
 * dropped (docs/scheduler.md §6, *Hostile clients*).
 */
#include <pthread.h>
#include <time.h>

#include "accelos/futex.h"
#include "accelos/sched_config.h"
#include "daemon_config.h"
#include "dsched.h"
#include "mono_cond.h"
#include "session.h"

#define ADMIT_POLL_NS 20000000ull   /* a blocked admission looks at its client again this often */
#define ADMIT_GRACE_NS 200000000ull  /* in flight but none on the device this long: let through */

static pthread_mutex_t admit_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t admit_cond;
static bool admit_cond_ready;


static void admit_init_locked(void)
{
    if (!admit_cond_ready) {
        aos_cond_init_monotonic(&admit_cond);
        admit_cond_ready = true;
    }
}

void aos_device_sched_admit(struct aos_session *s)
{
    uint32_t limit = aos_daemon_config_get()->max_inflight_per_client;
    pthread_mutex_lock(&admit_lock);
    admit_init_locked();
    uint64_t idle_since = 0;
    while (limit && s->launches_inflight >= limit && !atomic_load(&s->dead)) {
        uint64_t now = aos_now_ns();
        if (s->launches_active)
            idle_since = 0;
        else if (!idle_since)
            idle_since = now;
        else if (now - idle_since >= ADMIT_GRACE_NS)
            break; /* everything in flight waits on something else: blocking could deadlock */
        struct timespec ts;
        aos_deadline_in(&ts, ADMIT_POLL_NS);
        pthread_cond_timedwait(&admit_cond, &admit_lock, &ts);
    }
    s->launches_inflight++;
    pthread_mutex_unlock(&admit_lock);
}

bool aos_device_sched_try_admit(struct aos_session *s)
{
    uint32_t limit = aos_daemon_config_get()->max_inflight_per_client;
    pthread_mutex_lock(&admit_lock);
    admit_init_locked();
    bool ok = !limit || s->launches_inflight < limit;
    if (ok)
        s->launches_inflight++;
    pthread_mutex_unlock(&admit_lock);
    return ok;
}

void aos_device_sched_unadmit(struct aos_session *s)
{
    pthread_mutex_lock(&admit_lock);
    admit_init_locked();
    s->launches_inflight--;
    pthread_cond_broadcast(&admit_cond);
    pthread_mutex_unlock(&admit_lock);
}

void dsched_admit_active(struct aos_session *s, int delta)
{
    pthread_mutex_lock(&admit_lock);
    s->launches_active = (uint32_t)((int)s->launches_active + delta);
    pthread_mutex_unlock(&admit_lock);
}

void dsched_admit_ended(struct aos_session *s, bool was_active)
{
    pthread_mutex_lock(&admit_lock);
    admit_init_locked();
    if (was_active)
        s->launches_active--;
    s->launches_inflight--;
    pthread_cond_broadcast(&admit_cond);
    pthread_mutex_unlock(&admit_lock);
}

void dsched_admit_wake_all(void)
{
    pthread_mutex_lock(&admit_lock);
    admit_init_locked();
    pthread_cond_broadcast(&admit_cond);
    pthread_mutex_unlock(&admit_lock);
}
