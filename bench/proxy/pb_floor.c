#include "pb_floor.h"

#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pb_util.h"

/* The busy poker's pause; with 1 ns timer slack it pokes about every 25 us here. */
#define PB_POKE_PAUSE_NS 5000

struct pb_floor {
    _Atomic uint32_t request;         /* client -> server: sequence number of the last call */
    _Atomic uint32_t reply;           /* server -> client: sequence number answered */
    _Atomic uint32_t pokes;           /* poker -> server: async "calls" */
    _Atomic uint32_t doorbell;        /* the server sleeps on this */
    _Atomic uint32_t server_sleeping;
    _Atomic uint32_t client_sleeping;
    atomic_bool stop;
};

static void futex_wait(_Atomic uint32_t *word, uint32_t expected)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *word)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void ring_doorbell(struct pb_floor *f)
{
    if (atomic_load(&f->server_sleeping)) {
        atomic_fetch_add(&f->doorbell, 1);
        futex_wake(&f->doorbell);
    }
}

/* accelosd's service thread: answer at once, poll for 50 us, then sleep until the doorbell. */
static void *server_main(void *arg)
{
    struct pb_floor *f = arg;
    uint32_t answered = 0, poked = 0;
    uint64_t idle_since = 0;
    while (!atomic_load(&f->stop)) {
        uint32_t req = atomic_load(&f->request), pokes = atomic_load(&f->pokes);
        if (req != answered) {
            answered = req;
            atomic_store(&f->reply, req);
            if (atomic_load(&f->client_sleeping))
                futex_wake(&f->reply);
            idle_since = 0;
            continue;
        }
        if (pokes != poked) {
            poked = pokes;
            idle_since = 0;
            continue;
        }
        uint64_t now = pb_now_ns();
        if (!idle_since)
            idle_since = now;
        if (now - idle_since < PB_FLOOR_SERVER_SPIN_NS)
            continue;
        uint32_t bell = atomic_load(&f->doorbell);
        atomic_store(&f->server_sleeping, 1);
        if (atomic_load(&f->request) == answered && atomic_load(&f->pokes) == poked && !atomic_load(&f->stop))
            futex_wait(&f->doorbell, bell);
        atomic_store(&f->server_sleeping, 0);
        idle_since = 0;
    }
    return NULL;
}

/* A third thread's async calls, as the busy rows' helper makes them. */
static void *poker_main(void *arg)
{
    struct pb_floor *f = arg;
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    while (!atomic_load(&f->stop)) {
        atomic_fetch_add(&f->pokes, 1);
        ring_doorbell(f);
        pb_sleep_ns(PB_POKE_PAUSE_NS);
    }
    return NULL;
}

/* ProxyCL's blocking call: publish, wake the server if it sleeps, poll 20 us, then sleep. */
static void call(struct pb_floor *f)
{
    uint32_t seq = atomic_load(&f->request) + 1;
    atomic_store(&f->request, seq);
    ring_doorbell(f);
    uint64_t start = pb_now_ns();
    while (atomic_load(&f->reply) != seq) {
        if (pb_now_ns() - start < PB_FLOOR_CLIENT_SPIN_NS)
            continue;
        atomic_store(&f->client_sleeping, 1);
        if (atomic_load(&f->reply) != seq)
            futex_wait(&f->reply, seq - 1);
        atomic_store(&f->client_sleeping, 0);
    }
}

double pb_floor_measure(enum pb_regime regime, int n, int gap_us, double *samples)
{
    struct pb_floor f = {0};
    pthread_t server, poker;
    if (pthread_create(&server, NULL, server_main, &f) != 0)
        return -1;
    bool poking = regime == PB_BUSY && pthread_create(&poker, NULL, poker_main, &f) == 0;
    int warm = n / 10 + 1;
    for (int i = -warm; i < n; i++) {
        if (regime != PB_BACK_TO_BACK)
            pb_sleep_ns((uint64_t)gap_us * 1000u);
        uint64_t t0 = pb_now_ns();
        call(&f);
        uint64_t t1 = pb_now_ns();
        if (i >= 0)
            samples[i] = (double)(t1 - t0) / 1e3;
    }
    atomic_store(&f.stop, true);
    atomic_fetch_add(&f.doorbell, 1);
    futex_wake(&f.doorbell);
    pthread_join(server, NULL);
    if (poking)
        pthread_join(poker, NULL);
    if (regime == PB_BUSY && !poking)
        return -1;
    return pb_median(samples, n);
}
