/* Unit tests of the shared-memory message ring and the region layout checks. */
#include <check.h>
#include "check_run.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "accelos/futex.h"
#include "accelos/region.h"
#include "accelos/ring.h"

#define RING_SIZE 4096

static struct aos_ring_ctl ctl;
static uint8_t buf[RING_SIZE];
static struct aos_ring producer, consumer;
static uint8_t out[RING_SIZE];

static void setup(void)
{
    memset(buf, 0, sizeof(buf));
    aos_ring_ctl_init(&ctl);
    aos_ring_attach(&producer, &ctl, buf, RING_SIZE, true);
    aos_ring_attach(&consumer, &ctl, buf, RING_SIZE, false);
}

static void push(uint32_t opcode, uint32_t len, uint8_t fill)
{
    int err = 0;
    uint8_t *p = aos_ring_reserve(&producer, len, &err);
    ck_assert_ptr_nonnull(p);
    memset(p, fill, len);
    aos_ring_commit(&producer, opcode, 7, 0);
}

START_TEST(test_roundtrip_in_order)
{
    push(0x101, 5, 0xaa);
    push(0x102, 100, 0xbb);
    int n = aos_ring_pop(&consumer, out, sizeof(out));
    ck_assert_int_eq(n, 32); /* 16 header + 5 payload rounded up to 16 */
    struct aos_msg_hdr *h = (struct aos_msg_hdr *)out;
    ck_assert_uint_eq(h->opcode, 0x101);
    ck_assert_uint_eq(h->slot, 7);
    ck_assert_uint_eq(out[16], 0xaa);
    n = aos_ring_pop(&consumer, out, sizeof(out));
    ck_assert_int_eq(n, 128);
    ck_assert_uint_eq(((struct aos_msg_hdr *)out)->opcode, 0x102);
    ck_assert_uint_eq(out[16 + 99], 0xbb);
    ck_assert_int_eq(aos_ring_pop(&consumer, out, sizeof(out)), 0);
}
END_TEST

START_TEST(test_wraps_with_padding)
{
    /* Fill and drain repeatedly so messages cross the end of the ring many times. */
    for (int round = 0; round < 200; round++) {
        uint32_t len = (uint32_t)(round * 37 % 900) + 1;
        push((uint32_t)round + 1, len, (uint8_t)round);
        int n = aos_ring_pop(&consumer, out, sizeof(out));
        ck_assert_int_gt(n, 0);
        ck_assert_uint_eq(((struct aos_msg_hdr *)out)->opcode, (uint32_t)round + 1);
        ck_assert_uint_eq(out[16 + len - 1], (uint8_t)round);
    }
}
END_TEST

START_TEST(test_full_ring_reports_eagain)
{
    int err = 0;
    int pushed = 0;
    while (aos_ring_reserve(&producer, 512, &err)) {
        aos_ring_commit(&producer, 1, AOS_NO_SLOT, 0);
        pushed++;
    }
    ck_assert_int_eq(err, -EAGAIN);
    ck_assert_int_eq(pushed, RING_SIZE / (512 + 16));
    ck_assert_ptr_null(aos_ring_reserve(&producer, RING_SIZE, &err));
    ck_assert_int_eq(err, -EMSGSIZE);
}
END_TEST

START_TEST(test_tampered_tail_is_rejected)
{
    push(1, 8, 1);
    atomic_store(&ctl.tail, 5000u); /* claims more data than the ring holds */
    ck_assert_int_eq(aos_ring_pop(&consumer, out, sizeof(out)), -EPROTO);
}
END_TEST

START_TEST(test_tampered_size_is_rejected)
{
    push(1, 8, 1);
    ((struct aos_msg_hdr *)buf)->size = 4096 + 16; /* longer than what was published */
    ck_assert_int_eq(aos_ring_pop(&consumer, out, sizeof(out)), -EPROTO);
    setup();
    push(1, 8, 1);
    ((struct aos_msg_hdr *)buf)->size = 3; /* shorter than a header */
    ck_assert_int_eq(aos_ring_pop(&consumer, out, sizeof(out)), -EPROTO);
}
END_TEST

START_TEST(test_tampered_head_is_rejected_by_producer)
{
    atomic_store(&ctl.head, 123456u);
    int err = 0;
    ck_assert_ptr_null(aos_ring_reserve(&producer, 8, &err));
    ck_assert_int_eq(err, -EPROTO);
}
END_TEST

START_TEST(test_region_layout_checks)
{
    struct aos_region_header l;
    aos_region_layout_default(&l, 1, AOS_ARENA_SIZE);
    ck_assert_int_eq(aos_region_layout_check(&l, l.region_size), 0);
    ck_assert_uint_ge(l.arena_off, l.region_size);
    ck_assert_uint_eq(l.arena_off % AOS_ARENA_ALIGN, 0);
    struct aos_region_header bad = l;
    bad.arena_off = l.region_size - 4096; /* arena over the region */
    ck_assert_int_eq(aos_region_layout_check(&bad, l.region_size), -EPROTO);
    bad = l;
    bad.arena_size = AOS_ARENA_MAX + 4096; /* more than a client maps */
    ck_assert_int_eq(aos_region_layout_check(&bad, l.region_size), -EPROTO);
    bad = l;
    bad.arena_size = 12345; /* not whole pages */
    ck_assert_int_eq(aos_region_layout_check(&bad, l.region_size), -EPROTO);
    bad = l;
    bad.arena_size = 0; /* no arena: fine, whatever the offset */
    ck_assert_int_eq(aos_region_layout_check(&bad, l.region_size), 0);
    bad = l;
    bad.req_size = 3000; /* not a power of two */
    ck_assert_int_eq(aos_region_layout_check(&bad, l.region_size), -EPROTO);
    bad = l;
    bad.data_off = l.region_size - 10; /* data area past the end */
    ck_assert_int_eq(aos_region_layout_check(&bad, l.region_size), -EPROTO);
    ck_assert_int_eq(aos_region_layout_check(&l, l.region_size + 1), -EPROTO);
}
END_TEST

START_TEST(test_region_span_bounds)
{
    struct aos_region r;
    int fd = aos_region_create(&r, 1, AOS_ARENA_SIZE);
    ck_assert_int_ge(fd, 0);
    struct stat st;
    ck_assert_int_eq(fstat(fd, &st), 0);
    ck_assert_uint_eq((uint64_t)st.st_size, r.layout.arena_off + AOS_ARENA_SIZE);
    ck_assert_int_lt(st.st_blocks * 512, 64 << 20); /* sparse: the arena costs nothing yet */
    close(fd);
    struct aos_span ok = {.off = 0, .len = r.layout.data_size};
    struct aos_span past = {.off = r.layout.data_size - 4, .len = 8};
    struct aos_span wrap = {.off = 0xfffffff0u, .len = 0x20};
    ck_assert_ptr_nonnull(aos_region_data_span(&r, ok));
    ck_assert_ptr_null(aos_region_data_span(&r, past));
    ck_assert_ptr_null(aos_region_data_span(&r, wrap));
    ck_assert_ptr_null(aos_region_slot(&r, r.layout.slot_count));
    aos_region_unmap(&r);
}
END_TEST

/* The daemon ends a session by setting its dead flag, then ringing the doorbell. If that lands
 * between the service thread's check of the flag and its sleep, the sleep must not wait for a
 * message the dead client will never send. */
START_TEST(test_wait_returns_when_stopped_before_sleeping)
{
    _Atomic bool stop = true;
    atomic_fetch_add(&ctl.doorbell, 1);
    uint64_t t0 = aos_now_ns();
    ck_assert_int_eq(aos_ring_wait_data_unless(&consumer, 2000000000, &stop), -ECANCELED);
    ck_assert_uint_lt(aos_now_ns() - t0, 1000000000u);
    /* Not stopped and nothing sent: it sleeps until the timeout. */
    stop = false;
    t0 = aos_now_ns();
    ck_assert_int_eq(aos_ring_wait_data_unless(&consumer, 50000000, &stop), -ETIMEDOUT);
    ck_assert_uint_ge(aos_now_ns() - t0, 40000000u);
    /* A message waiting: no sleep at all. */
    push(0x101, 8, 0xcc);
    ck_assert_int_eq(aos_ring_wait_data_unless(&consumer, 2000000000, &stop), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ring");
    TCase *tc = tcase_create("ring");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, test_roundtrip_in_order);
    tcase_add_test(tc, test_wraps_with_padding);
    tcase_add_test(tc, test_full_ring_reports_eagain);
    tcase_add_test(tc, test_tampered_tail_is_rejected);
    tcase_add_test(tc, test_tampered_size_is_rejected);
    tcase_add_test(tc, test_tampered_head_is_rejected_by_producer);
    tcase_add_test(tc, test_region_layout_checks);
    tcase_add_test(tc, test_region_span_bounds);
    tcase_add_test(tc, test_wait_returns_when_stopped_before_sleeping);
    suite_add_tcase(s, tc);
    return aos_check_run(s);
}
