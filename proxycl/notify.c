#include "notify.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>

#include "conn.h"

static struct aos_ring *ring;
static uint8_t *buffer;

static void *notify_main(void *arg)
{
    pthread_setname_np(pthread_self(), "accelos-notify"); /* what top -H shows in the application */
    sem_post(arg); /* running: the thread's start-up (its allocations) is over */
    uint32_t cap = ring->size / 2;
    for (;;) {
        int size = aos_ring_pop(ring, buffer, cap);
        if (size < 0)
            break;
        if (size == 0) {
            aos_ring_wait_data(ring, 100000000);
            if (!aos_ring_has_data(ring) && !aos_conn_alive())
                break;
            continue;
        }
        const struct aos_msg_hdr *hdr = (const struct aos_msg_hdr *)buffer;
        uint32_t len = (uint32_t)size - (uint32_t)sizeof(*hdr);
        const void *payload = hdr + 1;
        switch (hdr->opcode) {
        case AOS_NOTE_EVENT_CALLBACK:
            if (len >= sizeof(struct aos_note_event_callback))
                aos_event_callback_note(payload);
            break;
        case AOS_NOTE_HOST_STEP:
            if (len >= sizeof(struct aos_note_host_step))
                aos_host_step_note(payload);
            break;
        case AOS_NOTE_BUILD_DONE:
            if (len >= sizeof(struct aos_note_build_done))
                aos_program_build_done_note(payload);
            break;
        default:
            break;
        }
    }
    /* The daemon is gone: nothing will complete the host steps still armed. */
    aos_host_steps_fail_all(CL_OUT_OF_RESOURCES);
    aos_contexts_report_error("accelOS: lost the connection to accelosd; this context can no longer be used");
    return NULL;
}

int aos_notify_start(struct aos_ring *note)
{
    ring = note;
    if (!buffer)
        buffer = malloc(note->size / 2);
    if (!buffer)
        return -1;
    /* The connection counts as up only once the thread runs. An application that forks right
     * after its first call would otherwise fork while the new thread may still be starting up,
     * inside the allocator: where the allocator has no fork handlers (GCC 12's ASan runtime), the
     * child inherits its lock held and hangs at its next allocation (test_clients, CI). */
    sem_t started;
    if (sem_init(&started, 0, 0) != 0)
        return -1;
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&t, &attr, notify_main, &started);
    pthread_attr_destroy(&attr);
    while (rc == 0 && sem_wait(&started) != 0 && errno == EINTR)
        ;
    sem_destroy(&started);
    return rc == 0 ? 0 : -1;
}

void aos_notify_after_fork(void)
{
    /* The thread did not survive the fork; a new one starts with the next connection. */
    ring = NULL;
    aos_host_steps_after_fork();
}

__attribute__((weak)) void aos_program_build_done_note(const struct aos_note_build_done *n) { (void)n; }
