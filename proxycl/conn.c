/*
 * The client end of the transport: connect and handshake, reply slots, request ring, staging area
 * and the notification thread.
 *
 * Waiting for a reply spins briefly (the daemon answers most calls within microseconds while it is
 * busy), then sleeps on the slot's futex in short slices, checking between slices whether the
 * daemon's socket has hung up, so a dead daemon turns into CL_OUT_OF_RESOURCES instead of a hang.
 */
#include "conn.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "accelos/futex.h"
#include "accelos/region.h"
#include "accelos/sock.h"
#include "notify.h"

#define REPLY_SPIN_NS 20000
#define SLICE_NS 50000000

enum conn_state { CONN_NONE = 0, CONN_UP = 1, CONN_FAILED = 2, CONN_DEAD = 3 };

static struct {
    pthread_mutex_t init_lock;
    _Atomic int state;
    int sock;
    struct aos_region region;
    uint8_t *arena;                /* shared-buffer arena, NULL when none (wire.h) */
    uint64_t arena_size;
    struct aos_ring req;
    struct aos_ring note;
    pthread_mutex_t producer_lock;
    _Atomic uint64_t slots_busy;   /* bit i: slot i in use */
    pthread_mutex_t slot_lock;
    pthread_cond_t slot_cond;
    pthread_mutex_t staging_lock;
    pthread_cond_t staging_cond;
    uint64_t staging_busy;         /* bit i: chunk i in use */
    uint32_t chunks;
    pthread_t notify_thread;
} conn = {
    .init_lock = PTHREAD_MUTEX_INITIALIZER,
    .producer_lock = PTHREAD_MUTEX_INITIALIZER,
    .slot_lock = PTHREAD_MUTEX_INITIALIZER,
    .slot_cond = PTHREAD_COND_INITIALIZER,
    .staging_lock = PTHREAD_MUTEX_INITIALIZER,
    .staging_cond = PTHREAD_COND_INITIALIZER,
    .sock = -1,
};

/* With ACCELOS_DEBUG set (to anything but "0"), prints one line to stderr; silent otherwise,
 * since ProxyCL runs inside someone else's program. */
__attribute__((format(printf, 1, 2))) static void debug_line(const char *fmt, ...)
{
    const char *debug = getenv("ACCELOS_DEBUG");
    if (!debug || !*debug || strcmp(debug, "0") == 0)
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "accelOS: %s\n", line); /* one write, so lines of threads do not mix */
}

/* True when the variable is set to "0": a switch the user turned off. */
static bool getenv_flag_off(const char *name)
{
    const char *v = getenv(name);
    return v && strcmp(v, "0") == 0;
}

static void after_fork_in_child(void)
{
    /* The parent's session is not ours: start over with a fresh connection on first use. */
    if (conn.sock >= 0)
        close(conn.sock);
    conn.sock = -1;
    pthread_mutex_init(&conn.init_lock, NULL);
    pthread_mutex_init(&conn.producer_lock, NULL);
    pthread_mutex_init(&conn.slot_lock, NULL);
    pthread_mutex_init(&conn.staging_lock, NULL);
    pthread_cond_init(&conn.slot_cond, NULL);
    pthread_cond_init(&conn.staging_cond, NULL);
    atomic_store(&conn.slots_busy, 0);
    conn.staging_busy = 0;
    if (conn.arena) /* the parent's buffers: the child must not write them */
        munmap(conn.arena, conn.arena_size);
    conn.arena = NULL;
    conn.arena_size = 0;
    atomic_store(&conn.state, CONN_NONE);
    aos_notify_after_fork();
}

/* Maps the shared-buffer arena the region header announces. Without it (no arena, or no address
 * space for it) every transfer goes through the staging area, which works for any buffer. */
static void map_arena(int fd)
{
    const struct aos_region_header *l = &conn.region.layout;
    conn.arena = NULL;
    conn.arena_size = 0;
    if (!l->arena_size || getenv_flag_off("ACCELOS_SHARED_BUFFERS"))
        return;
    void *p = mmap(NULL, l->arena_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, (off_t)l->arena_off);
    if (p == MAP_FAILED) {
        debug_line("shared-buffer arena not mapped (%s): transfers are staged", strerror(errno));
        return;
    }
    conn.arena = p;
    conn.arena_size = l->arena_size;
}

void *aos_arena_ptr(uint64_t off, uint64_t size)
{
    if (!conn.arena || off > conn.arena_size || size > conn.arena_size - off)
        return NULL;
    return conn.arena + off;
}

static int connect_daemon(void)
{
    char path[108];
    if (aos_socket_default_path(path, sizeof(path)) < 0) {
        debug_line("socket path too long (ACCELOS_SOCKET or XDG_RUNTIME_DIR)");
        return -ENAMETOOLONG;
    }
    /* No user daemon: the system service, if the machine runs one, serves this user too. */
    const char *used;
    int sock = aos_sock_connect_or(path, aos_socket_fallback_path(), &used);
    if (sock < 0) {
        debug_line("no daemon at %s%s%s: %s", path, used != path ? " nor at " : "", used != path ? used : "",
                   strerror(-sock));
        return sock;
    }
    struct aos_hello hello = {.magic = AOS_WIRE_MAGIC, .version = AOS_WIRE_VERSION, .kind = AOS_HELLO_CLIENT};
    struct aos_welcome welcome;
    int fd = -1;
    int rc = aos_sock_send(sock, &hello, sizeof(hello), -1);
    if (rc == 0)
        rc = aos_sock_recv(sock, &welcome, sizeof(welcome), &fd, AOS_DEAD_DAEMON_TIMEOUT_MS);
    if (rc == 0 && (welcome.magic != AOS_WIRE_MAGIC || welcome.status != 0 || fd < 0))
        rc = welcome.status ? welcome.status : -EPROTO;
    if (rc == 0)
        rc = aos_region_attach(&conn.region, fd, welcome.region_size);
    if (rc == 0)
        map_arena(fd);
    if (fd >= 0)
        close(fd);
    if (rc < 0) {
        debug_line("daemon at %s did not accept the connection: %s", used, strerror(-rc));
        close(sock);
        return rc;
    }
    conn.sock = sock;
    aos_region_ring(&conn.region, &conn.req, &conn.note, 0);
    conn.chunks = conn.region.layout.data_size / conn.region.layout.data_chunk;
    if (conn.chunks > 64)
        conn.chunks = 64;
    return 0;
}

cl_int aos_conn_ensure(void)
{
    int state = atomic_load(&conn.state);
    if (state == CONN_UP)
        return CL_SUCCESS;
    if (state != CONN_NONE)
        return CL_OUT_OF_RESOURCES;
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    (void)once;
    static _Atomic int atfork_done;
    if (!atomic_exchange(&atfork_done, 1))
        pthread_atfork(NULL, NULL, after_fork_in_child);
    pthread_mutex_lock(&conn.init_lock);
    if (atomic_load(&conn.state) == CONN_NONE) {
        int rc = connect_daemon();
        if (rc == 0 && aos_notify_start(&conn.note) < 0)
            rc = -EAGAIN;
        atomic_store(&conn.state, rc == 0 ? CONN_UP : CONN_FAILED);
    }
    pthread_mutex_unlock(&conn.init_lock);
    return atomic_load(&conn.state) == CONN_UP ? CL_SUCCESS : CL_OUT_OF_RESOURCES;
}

bool aos_conn_alive(void)
{
    if (atomic_load(&conn.state) != CONN_UP)
        return false;
    struct pollfd p = {.fd = conn.sock, .events = POLLRDHUP};
    if (poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLRDHUP | POLLERR))) {
        atomic_store(&conn.state, CONN_DEAD);
        debug_line("the daemon went away");
        /* Wake everyone who waits for slots or staging so they can give up. */
        pthread_mutex_lock(&conn.slot_lock);
        pthread_cond_broadcast(&conn.slot_cond);
        pthread_mutex_unlock(&conn.slot_lock);
        pthread_mutex_lock(&conn.staging_lock);
        pthread_cond_broadcast(&conn.staging_cond);
        pthread_mutex_unlock(&conn.staging_lock);
        return false;
    }
    return true;
}

uint32_t aos_conn_device_count(void) { return conn.region.layout.device_count; }

/* ---- Slots ------------------------------------------------------------------------------------ */

static int slot_acquire(void)
{
    uint32_t count = conn.region.layout.slot_count < 64 ? conn.region.layout.slot_count : 64;
    uint64_t all = count == 64 ? UINT64_MAX : ((1ull << count) - 1);
    for (;;) {
        uint64_t busy = atomic_load(&conn.slots_busy);
        while ((busy & all) != all) {
            int i = __builtin_ctzll(~busy);
            if (atomic_compare_exchange_weak(&conn.slots_busy, &busy, busy | (1ull << i)))
                return i;
        }
        pthread_mutex_lock(&conn.slot_lock);
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += SLICE_NS;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        if ((atomic_load(&conn.slots_busy) & all) == all)
            pthread_cond_timedwait(&conn.slot_cond, &conn.slot_lock, &ts);
        pthread_mutex_unlock(&conn.slot_lock);
        if (!aos_conn_alive())
            return -1;
    }
}

static void slot_free(uint32_t i)
{
    struct aos_slot *s = aos_region_slot(&conn.region, i);
    atomic_store(&s->state, AOS_SLOT_FREE);
    atomic_fetch_and(&conn.slots_busy, ~(1ull << i));
    pthread_mutex_lock(&conn.slot_lock);
    pthread_cond_signal(&conn.slot_cond);
    pthread_mutex_unlock(&conn.slot_lock);
}

/* Adaptive spinning, per thread: when the last answer did not come within the spin window,
 * spinning only took CPU time from the daemon (more runnable threads than cores), so the next
 * waits sleep at once; every SPIN_PROBE-th wait spins again to notice when that changes. */
#define SPIN_PROBE 16
static _Thread_local bool spin_useless;
static _Thread_local uint32_t spin_skipped;

/* Waits for slot i's answer: spins for spin_ns first (0 = sleep at once). */
static cl_int slot_wait(uint32_t i, uint64_t spin_ns)
{
    struct aos_slot *s = aos_region_slot(&conn.region, i);
    if (spin_ns && spin_useless && ++spin_skipped % SPIN_PROBE != 0)
        spin_ns = 0;
    uint64_t start = aos_now_ns();
    bool answered_while_spinning = true;
    while (atomic_load_explicit(&s->state, memory_order_acquire) != AOS_SLOT_DONE) {
        if (aos_now_ns() - start < spin_ns)
            continue;
        answered_while_spinning = false;
        atomic_store_explicit(&s->client_sleeping, 1, memory_order_seq_cst);
        if (atomic_load_explicit(&s->state, memory_order_seq_cst) != AOS_SLOT_DONE)
            aos_futex_wait(&s->state, AOS_SLOT_PENDING, SLICE_NS);
        atomic_store_explicit(&s->client_sleeping, 0, memory_order_relaxed);
        if (atomic_load(&s->state) != AOS_SLOT_DONE && !aos_conn_alive())
            return CL_OUT_OF_RESOURCES;
    }
    if (spin_ns)
        spin_useless = !answered_while_spinning;
    return CL_SUCCESS;
}

/* ---- Requests ----------------------------------------------------------------------------- */

uint32_t aos_req_max_len(void) { return aos_ring_max_payload(&conn.req); }
uint32_t aos_reply_capacity(void) { return conn.region.layout.slot_payload; }

void *aos_req_begin(struct aos_req *r, uint32_t len, bool sync)
{
    r->slot = AOS_NO_SLOT;
    r->payload = NULL;
    r->len = len;
    r->error = aos_conn_ensure();
    if (r->error != CL_SUCCESS)
        return NULL;
    if (len > aos_req_max_len()) {
        r->error = CL_OUT_OF_RESOURCES;
        return NULL;
    }
    if (sync) {
        int slot = slot_acquire();
        if (slot < 0) {
            r->error = CL_OUT_OF_RESOURCES;
            return NULL;
        }
        r->slot = (uint32_t)slot;
        atomic_store(&aos_region_slot(&conn.region, r->slot)->state, AOS_SLOT_PENDING);
    }
    pthread_mutex_lock(&conn.producer_lock);
    for (;;) {
        int err = 0;
        void *p = aos_ring_reserve(&conn.req, len, &err);
        if (p) {
            memset(p, 0, len);
            r->payload = p;
            return p;
        }
        if (err == -EAGAIN && aos_conn_alive()) {
            aos_ring_wait_space(&conn.req, SLICE_NS);
            continue;
        }
        pthread_mutex_unlock(&conn.producer_lock);
        if (r->slot != AOS_NO_SLOT)
            slot_free(r->slot);
        r->error = CL_OUT_OF_RESOURCES;
        return NULL;
    }
}

cl_int aos_req_send(struct aos_req *r, uint32_t opcode)
{
    aos_ring_commit(&conn.req, opcode, r->slot, 0);
    pthread_mutex_unlock(&conn.producer_lock);
    return CL_SUCCESS;
}

cl_int aos_req_call(struct aos_req *r, uint32_t opcode, struct aos_reply *rep)
{
    /* A daemon that was asleep needs tens of microseconds to wake; spinning meanwhile would only
     * hold the CPU it needs (2-core machines), so then the client sleeps at once. */
    bool daemon_asleep = atomic_load_explicit(&conn.req.ctl->consumer_sleeping, memory_order_relaxed) != 0;
    aos_ring_commit(&conn.req, opcode, r->slot, 0);
    pthread_mutex_unlock(&conn.producer_lock);
    memset(rep, 0, sizeof(*rep));
    rep->slot = r->slot;
    cl_int err = slot_wait(r->slot, daemon_asleep ? 0 : REPLY_SPIN_NS);
    if (err != CL_SUCCESS) {
        /* The daemon is gone: the slot will never be answered; keep it out of use. */
        rep->slot = AOS_NO_SLOT;
        return err;
    }
    struct aos_slot *s = aos_region_slot(&conn.region, r->slot);
    rep->status = s->status;
    rep->value = s->value;
    rep->value2 = s->value2;
    rep->size = s->size <= conn.region.layout.slot_payload ? s->size : conn.region.layout.slot_payload;
    rep->payload = s + 1;
    return rep->status;
}

void aos_reply_release(struct aos_reply *rep)
{
    if (rep->slot != AOS_NO_SLOT)
        slot_free(rep->slot);
    rep->slot = AOS_NO_SLOT;
}

cl_int aos_send(uint32_t opcode, const void *req, uint32_t len)
{
    struct aos_req r;
    void *p = aos_req_begin(&r, len, false);
    if (!p)
        return r.error;
    memcpy(p, req, len);
    return aos_req_send(&r, opcode);
}

cl_int aos_call(uint32_t opcode, const void *req, uint32_t len, struct aos_reply *rep)
{
    struct aos_req r;
    void *p = aos_req_begin(&r, len, true);
    if (!p) {
        memset(rep, 0, sizeof(*rep));
        rep->slot = AOS_NO_SLOT;
        return r.error;
    }
    memcpy(p, req, len);
    return aos_req_call(&r, opcode, rep);
}

/* ---- Staging --------------------------------------------------------------------------------- */

uint32_t aos_staging_size(void) { return conn.chunks * conn.region.layout.data_chunk; }
uint32_t aos_staging_chunk(void) { return conn.region.layout.data_chunk; }

/* Finds the longest free run of at most want chunks; returns its length and start. */
static uint32_t free_run(uint32_t want, uint32_t *start)
{
    uint32_t best = 0, best_at = 0, run = 0;
    for (uint32_t i = 0; i < conn.chunks; i++) {
        if (conn.staging_busy & (1ull << i)) {
            run = 0;
            continue;
        }
        run++;
        if (run > best) {
            best = run;
            best_at = i + 1 - run;
        }
        if (best == want)
            break;
    }
    *start = best_at;
    return best;
}

void *aos_staging_alloc(uint32_t want, uint32_t min_len, struct aos_span *span)
{
    if (aos_conn_ensure() != CL_SUCCESS)
        return NULL;
    uint32_t chunk = conn.region.layout.data_chunk;
    uint32_t want_chunks = (want + chunk - 1) / chunk;
    uint32_t min_chunks = (min_len + chunk - 1) / chunk;
    if (want_chunks == 0)
        want_chunks = 1;
    if (want_chunks > conn.chunks)
        want_chunks = conn.chunks;
    if (min_chunks == 0)
        min_chunks = 1;
    if (min_chunks > want_chunks)
        min_chunks = want_chunks;
    pthread_mutex_lock(&conn.staging_lock);
    for (;;) {
        uint32_t start, got = free_run(want_chunks, &start);
        if (got >= min_chunks) {
            for (uint32_t i = 0; i < got; i++)
                conn.staging_busy |= 1ull << (start + i);
            pthread_mutex_unlock(&conn.staging_lock);
            span->off = start * chunk;
            /* The span covers exactly what was asked for (or what fits); freeing rounds up. */
            span->len = (uint64_t)got * chunk < want ? got * chunk : want;
            if (span->len == 0)
                span->len = chunk;
            return aos_region_data(&conn.region) + span->off;
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += SLICE_NS;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&conn.staging_cond, &conn.staging_lock, &ts);
        pthread_mutex_unlock(&conn.staging_lock);
        if (!aos_conn_alive())
            return NULL;
        pthread_mutex_lock(&conn.staging_lock);
    }
}

void aos_staging_free(struct aos_span span)
{
    uint32_t chunk = conn.region.layout.data_chunk;
    pthread_mutex_lock(&conn.staging_lock);
    uint32_t end = (uint32_t)((span.off + span.len + chunk - 1) / chunk);
    for (uint32_t i = span.off / chunk; i < end && i < 64; i++)
        conn.staging_busy &= ~(1ull << i);
    pthread_cond_broadcast(&conn.staging_cond);
    pthread_mutex_unlock(&conn.staging_lock);
}

/* ---- Info ------------------------------------------------------------------------------------ */

cl_int aos_get_info_in(uint32_t kind, uint64_t id, uint64_t aux, cl_uint param, const void *in, size_t in_size,
                       size_t size, void *value, size_t *size_ret)
{
    if (value && size == 0)
        return CL_INVALID_VALUE;
    if (in_size > 4096)
        return CL_INVALID_VALUE;
    size_t want = value ? size : 0;
    struct aos_span span = {0, 0};
    void *staged = NULL;
    if (want > aos_reply_capacity()) {
        staged = aos_staging_alloc((uint32_t)(want < UINT32_MAX ? want : UINT32_MAX), (uint32_t)want, &span);
        if (!staged || span.len < want) {
            if (staged)
                aos_staging_free(span);
            return staged ? CL_OUT_OF_RESOURCES : CL_OUT_OF_RESOURCES;
        }
    }
    struct aos_req r;
    struct aos_req_get_info *q = aos_req_begin(&r, (uint32_t)(sizeof(*q) + in_size), true);
    if (!q) {
        if (staged)
            aos_staging_free(span);
        return r.error;
    }
    *q = (struct aos_req_get_info){.kind = kind, .param = param, .id = id, .aux = aux, .value_size = want,
                                   .out = span, .in_size = (uint32_t)in_size};
    if (in_size)
        memcpy(q + 1, in, in_size);
    struct aos_reply rep;
    cl_int err = aos_req_call(&r, AOS_OP_GET_INFO, &rep);
    if (err == CL_SUCCESS) {
        if (value && rep.value > size)
            err = CL_INVALID_VALUE;
        else if (value)
            memcpy(value, staged ? staged : rep.payload, rep.value);
        if (err == CL_SUCCESS && size_ret)
            *size_ret = rep.value;
    }
    aos_reply_release(&rep);
    if (staged)
        aos_staging_free(span);
    return err;
}

cl_int aos_get_info(uint32_t kind, uint64_t id, uint64_t aux, cl_uint param, size_t size, void *value,
                    size_t *size_ret)
{
    return aos_get_info_in(kind, id, aux, param, NULL, 0, size, value, size_ret);
}
