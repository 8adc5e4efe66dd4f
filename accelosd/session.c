#include "session.h"
#include "fail_gate.h"
#include "solo.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accelos/futex.h"
#include "accelos/log.h"
#include "arena.h"
#include "device_sched.h"
#include "mono_cond.h"
#include "ops.h"
#include "server.h"
#include "vendor.h"

/* How long the service thread polls an empty ring before it sleeps: short enough that an idle
 * daemon uses no CPU, long enough that a client issuing calls back to back never pays a wake-up. */
#define AOS_SERVICE_SPIN_NS 50000
/* Notifications a client may leave unread before it is considered stuck and disconnected. */
#define AOS_NOTE_BACKLOG_MAX 65536

struct aos_note_item {
    struct aos_note_item *next;
    uint32_t kind;
    uint32_t len;
    uint8_t payload[];
};

struct aos_note_queue {
    struct aos_note_item *head, *tail;
    uint32_t count;
};

static _Atomic uint64_t next_serial = 1;

struct aos_session *aos_session_new(int sock, pid_t pid, uid_t uid, bool shared_buffers, int *region_fd)
{
    struct aos_session *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->note_backlog = calloc(1, sizeof(*s->note_backlog));
    uint64_t arena_size = shared_buffers ? AOS_ARENA_SIZE : 0;
    int fd = s->note_backlog ? aos_region_create(&s->region, aos_device_count(), arena_size) : -ENOMEM;
    if (fd < 0) {
        free(s->note_backlog);
        free(s);
        errno = -fd;
        return NULL;
    }
    if (arena_size && !(s->arena = aos_arena_map(fd, s->region.layout.arena_off, arena_size))) {
        /* Serve the client without one: its transfers go through the staging area. */
        aos_log(AOS_LOG_WARN, "session", "no shared-buffer arena for pid %d: %s", (int)pid, strerror(errno));
        struct aos_region_header *shared = aos_region_shared_header(&s->region);
        shared->arena_size = 0;
        s->region.layout.arena_size = 0;
    }
    s->msg = malloc(s->region.layout.req_size / 2);
    if (!s->msg) {
        aos_arena_unref(s->arena);
        aos_region_unmap(&s->region);
        close(fd);
        free(s->note_backlog);
        free(s);
        return NULL;
    }
    atomic_init(&s->refs, 1);
    atomic_init(&s->dead, false);
    atomic_init(&s->attention, false);
    s->serial = atomic_fetch_add(&next_serial, 1);
    s->sock = sock;
    s->pid = pid;
    s->uid = uid;
    pthread_mutex_init(&s->note_lock, NULL);
    aos_status_mailbox_init(&s->statuses);
    aos_region_ring(&s->region, &s->req, &s->note, 1);
    aos_handles_init(&s->handles);
    *region_fd = fd;
    return s;
}

void aos_session_ref(struct aos_session *s) { atomic_fetch_add(&s->refs, 1); }

void aos_session_unref(struct aos_session *s)
{
    if (atomic_fetch_sub(&s->refs, 1) != 1)
        return;
    aos_region_unmap(&s->region);
    aos_arena_unref(s->arena); /* buffers still alive in PoCL keep it mapped */
    for (struct aos_note_item *n = s->note_backlog->head, *next; n; n = next) {
        next = n->next;
        free(n);
    }
    free(s->note_backlog);
    pthread_mutex_destroy(&s->note_lock);
    pthread_mutex_destroy(&s->statuses.lock);
    aos_fail_gates_free(s);
    free(s->msg);
    free(s);
}

/* Wakes the service thread if it sleeps on the request ring, or keeps it from falling asleep. */
static void wake_service(struct aos_session *s)
{
    atomic_store(&s->attention, true);
    struct aos_region_header *shared = aos_region_shared_header(&s->region);
    atomic_fetch_add(&shared->req.doorbell, 1);
    aos_futex_wake(&shared->req.doorbell, 1);
}

void aos_session_kill(struct aos_session *s, const char *why)
{
    bool was_dead = atomic_exchange(&s->dead, true);
    if (!was_dead)
        aos_log(AOS_LOG_INFO, "session", "client %llu (pid %d): %s", (unsigned long long)s->serial, (int)s->pid, why);
    wake_service(s);
}

void aos_session_fail_user_event(struct aos_session *s, cl_event ev, cl_int status, struct aos_event_park *park)
{
    if (!aos_status_mailbox_post(&s->statuses, ev, status, park)) {
        aos_status_apply(ev, status, park);
        return;
    }
    wake_service(s);
}

void aos_session_poke(struct aos_session *s)
{
    wake_service(s);
}

void *aos_reply_payload(struct aos_session *s, uint32_t slot, uint32_t *cap)
{
    if (cap)
        *cap = s->region.layout.slot_payload;
    return aos_region_slot_payload(&s->region, slot);
}

void aos_reply(struct aos_session *s, uint32_t slot, cl_int status, uint64_t value, uint64_t value2,
               uint32_t payload_size)
{
    struct aos_slot *sl = aos_region_slot(&s->region, slot);
    if (!sl)
        return;
    sl->status = status;
    sl->value = value;
    sl->value2 = value2;
    sl->size = payload_size <= s->region.layout.slot_payload ? payload_size : s->region.layout.slot_payload;
    atomic_store_explicit(&sl->state, AOS_SLOT_DONE, memory_order_seq_cst);
    if (atomic_load_explicit(&sl->client_sleeping, memory_order_seq_cst))
        aos_futex_wake(&sl->state, 1);
}

void aos_reply_status(struct aos_session *s, uint32_t slot, cl_int status)
{
    aos_reply(s, slot, status, 0, 0, 0);
}

void *aos_session_span(struct aos_session *s, struct aos_span span)
{
    return aos_region_data_span(&s->region, span);
}

/* ---- Notifications ------------------------------------------------------------------------- */

static int note_push(struct aos_session *s, uint32_t kind, const void *payload, uint32_t len)
{
    int err = 0;
    void *dst = aos_ring_reserve(&s->note, len, &err);
    if (!dst)
        return err;
    memcpy(dst, payload, len);
    aos_ring_commit(&s->note, kind, AOS_NO_SLOT, 0);
    return 0;
}

/* Moves backlog items into the ring while there is room. Caller holds note_lock. */
static int note_drain_locked(struct aos_session *s)
{
    struct aos_note_queue *q = s->note_backlog;
    while (q->head) {
        int rc = note_push(s, q->head->kind, q->head->payload, q->head->len);
        if (rc == -EAGAIN)
            return 0;
        if (rc < 0)
            return rc;
        struct aos_note_item *done = q->head;
        q->head = done->next;
        if (!q->head)
            q->tail = NULL;
        q->count--;
        free(done);
    }
    return 0;
}

int aos_note_send(struct aos_session *s, uint32_t kind, const void *payload, uint32_t len)
{
    if (atomic_load(&s->dead))
        return -EPIPE;
    pthread_mutex_lock(&s->note_lock);
    int rc = note_drain_locked(s);
    if (rc == 0 && !s->note_backlog->head)
        rc = note_push(s, kind, payload, len);
    else if (rc == 0)
        rc = -EAGAIN;
    if (rc == -EAGAIN) {
        /* Ring full: keep it in daemon memory rather than block a runtime callback thread. */
        struct aos_note_queue *q = s->note_backlog;
        struct aos_note_item *item = NULL;
        if (q->count < AOS_NOTE_BACKLOG_MAX)
            item = malloc(sizeof(*item) + len);
        if (item) {
            item->next = NULL;
            item->kind = kind;
            item->len = len;
            memcpy(item->payload, payload, len);
            if (q->tail)
                q->tail->next = item;
            else
                q->head = item;
            q->tail = item;
            q->count++;
            rc = 0;
        } else {
            rc = -ENOBUFS;
        }
    }
    pthread_mutex_unlock(&s->note_lock);
    if (rc == -ENOBUFS)
        aos_session_kill(s, "left too many notifications unread");
    else if (rc == -EPROTO)
        aos_session_kill(s, "corrupted its notification ring");
    return rc;
}

static void note_flush_backlog(struct aos_session *s)
{
    pthread_mutex_lock(&s->note_lock);
    int rc = s->note_backlog->head ? note_drain_locked(s) : 0;
    pthread_mutex_unlock(&s->note_lock);
    if (rc == -EPROTO)
        aos_session_kill(s, "corrupted its notification ring");
}

/* ---- Service thread ------------------------------------------------------------------------ */

static bool has_backlog(struct aos_session *s)
{
    pthread_mutex_lock(&s->note_lock);
    bool any = s->note_backlog->head != NULL;
    pthread_mutex_unlock(&s->note_lock);
    return any;
}

static void *service_main(void *arg)
{
    struct aos_session *s = arg;
    aos_thread_name("aos-client");
    uint32_t cap = s->region.layout.req_size / 2;
    uint64_t idle_since = 0;
    for (;;) {
        /* Attention first, then dead: a kill sets dead before it raises attention, so a kill whose
         * attention this takes is seen below, and one that comes after leaves attention raised
         * for the sleep at the bottom. Checked the other way round, a kill landing between the two
         * lost its wake-up, and the session slept until the daemon stopped (test_hostile, CI). */
        bool poked = atomic_exchange(&s->attention, false);
        if (atomic_load(&s->dead))
            break;
        if (poked) {
            aos_status_mailbox_apply(&s->statuses);
            aos_fail_gates_apply(s);
        }
        int size = aos_ring_pop(&s->req, s->msg, cap);
        if (size < 0) {
            aos_session_kill(s, "sent a malformed request ring");
            break;
        }
        if (size > 0) {
            idle_since = 0;
            s->calls++;
            if (aos_dispatch(s, s->msg, (uint32_t)size) < 0) {
                aos_session_kill(s, "sent a malformed request");
                break;
            }
            continue;
        }
        if (has_backlog(s)) {
            note_flush_backlog(s);
            /* The client reads notifications on its own schedule; poll gently for room. */
            aos_ring_wait_data_unless(&s->req, 1000000, &s->attention);
            continue;
        }
        uint64_t now = aos_now_ns();
        if (!idle_since)
            idle_since = now;
        if (now - idle_since < AOS_SERVICE_SPIN_NS)
            continue;
        /* A kill or a posted status racing with this sleep ends it. */
        aos_ring_wait_data_unless(&s->req, -1, &s->attention);
        idle_since = 0;
    }
    aos_log(AOS_LOG_DEBUG, "session", "client %llu: releasing its objects (launches: %llu logical, %llu solo)",
            (unsigned long long)s->serial, (unsigned long long)atomic_load(&s->elastic_launches),
            (unsigned long long)atomic_load(&s->solo_launches));
    aos_device_sched_poke(); /* its launches stop at their next wave boundary */
    aos_status_mailbox_close(&s->statuses); /* nothing enqueues for the client from here on */
    aos_session_quiesce(s);
    aos_handles_destroy(&s->handles);
    aos_fail_gates_destroy(s); /* its events go to the kept ones, released below */
    aos_solo_client_gone(s); /* a client that left contends with nobody */
    aos_device_sched_client_gone(s->serial);
    aos_session_release_kept_events(s); /* may wait a moment: last, once the others can move on */
    aos_server_session_ended(s);
    aos_session_unref(s);
    return NULL;
}

int aos_session_start(struct aos_session *s)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&s->thread, &attr, service_main, s);
    pthread_attr_destroy(&attr);
    return -rc;
}
