#include "accelos/ring.h"

#include <errno.h>
#include <string.h>

#include "accelos/futex.h"

void aos_ring_ctl_init(struct aos_ring_ctl *ctl)
{
    atomic_store(&ctl->head, 0);
    atomic_store(&ctl->tail, 0);
    atomic_store(&ctl->consumer_sleeping, 0);
    atomic_store(&ctl->producer_sleeping, 0);
    atomic_store(&ctl->doorbell, 0);
    atomic_store(&ctl->space_bell, 0);
}

void aos_ring_attach(struct aos_ring *ring, struct aos_ring_ctl *ctl, void *buf, uint32_t size,
                     bool producer)
{
    ring->ctl = ctl;
    ring->buf = buf;
    ring->size = size;
    ring->pos = producer ? atomic_load_explicit(&ctl->tail, memory_order_relaxed)
                         : atomic_load_explicit(&ctl->head, memory_order_relaxed);
}

uint32_t aos_ring_max_payload(const struct aos_ring *ring)
{
    /* Half the ring, so a message plus the padding before it always fits an empty ring. */
    return ring->size / 2 - (uint32_t)sizeof(struct aos_msg_hdr);
}

static uint32_t msg_bytes(uint32_t payload)
{
    return (uint32_t)((sizeof(struct aos_msg_hdr) + payload + AOS_MSG_ALIGN - 1) & ~(AOS_MSG_ALIGN - 1));
}

void *aos_ring_reserve(struct aos_ring *ring, uint32_t len, int *err)
{
    if (len > aos_ring_max_payload(ring)) {
        *err = -EMSGSIZE;
        return NULL;
    }
    uint32_t head = atomic_load_explicit(&ring->ctl->head, memory_order_acquire);
    uint32_t used = ring->pos - head;
    if (used > ring->size) {
        *err = -EPROTO;
        return NULL;
    }
    uint32_t need = msg_bytes(len);
    uint32_t at = ring->pos & (ring->size - 1);
    uint32_t to_end = ring->size - at;
    uint32_t pad = need > to_end ? to_end : 0;
    if (used + pad + need > ring->size) {
        *err = -EAGAIN;
        return NULL;
    }
    if (pad) {
        struct aos_msg_hdr *filler = (struct aos_msg_hdr *)(ring->buf + at);
        filler->size = pad;
        filler->opcode = AOS_OP_PAD;
        filler->slot = AOS_NO_SLOT;
        filler->flags = 0;
        ring->pos += pad;
        at = 0;
    }
    struct aos_msg_hdr *hdr = (struct aos_msg_hdr *)(ring->buf + at);
    hdr->size = need;
    return hdr + 1;
}

void aos_ring_commit(struct aos_ring *ring, uint32_t opcode, uint32_t slot, uint32_t flags)
{
    struct aos_msg_hdr *hdr = (struct aos_msg_hdr *)(ring->buf + (ring->pos & (ring->size - 1)));
    hdr->opcode = opcode;
    hdr->slot = slot;
    hdr->flags = flags;
    ring->pos += hdr->size;
    atomic_store_explicit(&ring->ctl->tail, ring->pos, memory_order_seq_cst);
    if (atomic_load_explicit(&ring->ctl->consumer_sleeping, memory_order_seq_cst)) {
        atomic_fetch_add(&ring->ctl->doorbell, 1);
        aos_futex_wake(&ring->ctl->doorbell, 1);
    }
}

int aos_ring_wait_space(struct aos_ring *ring, int64_t timeout_ns)
{
    uint32_t bell = atomic_load(&ring->ctl->space_bell);
    atomic_store(&ring->ctl->producer_sleeping, 1);
    int rc = aos_futex_wait(&ring->ctl->space_bell, bell, timeout_ns);
    atomic_store(&ring->ctl->producer_sleeping, 0);
    return rc;
}

bool aos_ring_has_data(const struct aos_ring *ring)
{
    return atomic_load_explicit(&ring->ctl->tail, memory_order_acquire) != ring->pos;
}

int aos_ring_pop(struct aos_ring *ring, void *out, uint32_t cap)
{
    for (;;) {
        uint32_t tail = atomic_load_explicit(&ring->ctl->tail, memory_order_acquire);
        uint32_t avail = tail - ring->pos;
        if (avail == 0)
            return 0;
        if (avail > ring->size || avail % AOS_MSG_ALIGN)
            return -EPROTO;
        uint32_t at = ring->pos & (ring->size - 1);
        struct aos_msg_hdr hdr;
        memcpy(&hdr, ring->buf + at, sizeof(hdr));
        if (hdr.size < sizeof(hdr) || hdr.size % AOS_MSG_ALIGN || hdr.size > avail ||
            hdr.size > ring->size - at)
            return -EPROTO;
        if (hdr.opcode == AOS_OP_PAD) {
            ring->pos += hdr.size;
            atomic_store_explicit(&ring->ctl->head, ring->pos, memory_order_release);
            continue;
        }
        if (hdr.size > cap)
            return -EPROTO;
        /* Copy out before parsing: the producer could change the bytes underneath us. */
        memcpy(out, ring->buf + at, hdr.size);
        ((struct aos_msg_hdr *)out)->size = hdr.size;
        ring->pos += hdr.size;
        atomic_store_explicit(&ring->ctl->head, ring->pos, memory_order_seq_cst);
        if (atomic_load_explicit(&ring->ctl->producer_sleeping, memory_order_seq_cst)) {
            atomic_fetch_add(&ring->ctl->space_bell, 1);
            aos_futex_wake(&ring->ctl->space_bell, 1);
        }
        return (int)hdr.size;
    }
}

int aos_ring_wait_data(struct aos_ring *ring, int64_t timeout_ns)
{
    return aos_ring_wait_data_unless(ring, timeout_ns, NULL);
}

int aos_ring_wait_data_unless(struct aos_ring *ring, int64_t timeout_ns, _Atomic bool *stop)
{
    uint32_t bell = atomic_load(&ring->ctl->doorbell);
    /* After the bell is read: whoever sets *stop and then rings either changed the bell before
     * this read (so *stop is seen here) or after it (so the futex does not sleep on it). */
    if (stop && atomic_load(stop))
        return -ECANCELED;
    atomic_store_explicit(&ring->ctl->consumer_sleeping, 1, memory_order_seq_cst);
    int rc = 0;
    if (!aos_ring_has_data(ring))
        rc = aos_futex_wait(&ring->ctl->doorbell, bell, timeout_ns);
    atomic_store_explicit(&ring->ctl->consumer_sleeping, 0, memory_order_relaxed);
    return rc;
}
