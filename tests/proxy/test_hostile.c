/*
 * Hostile clients. A raw client speaks the wire protocol itself (hello over the socket, the
 * region fd by SCM_RIGHTS, then requests in the shared ring, as proxycl/conn.c does) and sends
 * what ProxyCL never would: unknown opcodes, short or overlong messages, spans and offsets
 * outside its data area, a tampered ring, ids it never created, ids of another client. Each
 * violation must cost that client its connection and nothing else: a well-behaved client going
 * through the real ICD loader keeps working before and after, the daemon process stays up and
 * its status request answers. Errors that are plain OpenCL errors (an unknown id in a query)
 * come back as CL_INVALID_* instead; either way nothing of another client is ever touched.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "accelos/futex.h"
#include "accelos/region.h"
#include "accelos/ring.h"
#include "accelos/sock.h"
#include "accelos/wire.h"
#include "accelos/wire_core.h"
#include "accelos/wire_event.h"
#include "accelos/wire_image.h"
#include "accelos/wire_mem.h"
#include "accelos/wire_program.h"
#include "daemon_status.h"
#include "good_client.h"
#include "harness.h"
#include "raw_client.h"

#define HANGUP_MS 3000

/* Clients the daemon serves or is still tearing down, by its status report. */
static int clients_listed(void)
{
    static char text[1 << 16];
    aos_test_status_text(text, sizeof(text));
    int n = 0;
    for (const char *p = text; (p = strstr(p, "\nclient ")); p++)
        n++;
    return n;
}

/* Each test starts once the daemon has torn down the clients of the tests before it (raw clients
 * and the bystander of the previous test process): storage they give back late would move the
 * counts a test measures (test_direct_transfer_abandoned). */
static void setup(void)
{
    int n = 0;
    for (int i = 0; i < 500 && (n = clients_listed()) > 0; i++)
        usleep(10000);
    ck_assert_msg(n == 0, "%d clients of earlier tests are still listed after 5 s", n);
    good_client_setup();
}

/* What the proxy calls an object's wire id. Test-only peek at ProxyCL's object header
 * (proxycl/object.h): dispatch pointer, magic, type, then the 64-bit id. */
static uint64_t wire_id(const void *handle)
{
    const struct {
        const void *dispatch;
        uint32_t magic, type;
        uint64_t id;
    } *header = handle;
    return header->id;
}

/* Sends one malformed message (built by the caller into the ring) and expects only this client
 * to be disconnected. */
static void expect_only_this_client_dropped(struct raw *r, const char *what)
{
    ck_assert_msg(raw_hung_up(r, HANGUP_MS), "the daemon kept serving a client that sent %s", what);
    raw_close(r);
    daemon_healthy();
    good_client_works();
}

/* One malformed message on a fresh raw connection. */
static void send_malformed(const char *what, uint32_t opcode, uint32_t slot, const void *payload, uint32_t len)
{
    struct raw r;
    raw_connect(&r);
    raw_still_served(&r);
    raw_send(&r, opcode, slot, payload, len);
    expect_only_this_client_dropped(&r, what);
}

/* ---- Framing and dispatch ------------------------------------------------------------------ */

START_TEST(test_unknown_opcodes)
{
    good_client_works();
    uint8_t junk[64] = {1, 2, 3};
    send_malformed("an unknown opcode", 0x7777, AOS_NO_SLOT, junk, sizeof(junk));
    send_malformed("opcode 0xffffffff", 0xffffffffu, AOS_NO_SLOT, junk, sizeof(junk));
    send_malformed("an opcode just past an area", AOS_OP_COMPLETE_HOST_STEP + 1, AOS_NO_SLOT, junk, sizeof(junk));
}
END_TEST

START_TEST(test_bad_lengths_and_slots)
{
    struct aos_req_get_info info = {.kind = AOS_INFO_DEVICE, .id = AOS_DEVICE_ID_BASE, .param = CL_DEVICE_NAME,
                                    .value_size = 64};
    send_malformed("a payload shorter than its fixed part", AOS_OP_GET_INFO, 0, &info, 8);
    send_malformed("an empty payload", AOS_OP_CREATE_CONTEXT, 0, NULL, 0);
    send_malformed("a synchronous call without a slot", AOS_OP_GET_INFO, AOS_NO_SLOT, &info, sizeof(info));
    send_malformed("a slot out of range", AOS_OP_GET_INFO, 5000, &info, sizeof(info));
    struct aos_req_object obj = {.type = AOS_OBJ_CONTEXT, .id = AOS_FIRST_CLIENT_ID};
    send_malformed("an asynchronous call with a slot", AOS_OP_RELEASE, 0, &obj, sizeof(obj));

    /* Lengths inside the payload that run past its end. */
    info.in_size = 0xffffffffu;
    send_malformed("an input length past the message", AOS_OP_GET_INFO, 0, &info, sizeof(info));
    struct aos_req_create_context ctx = {.id = raw_fresh_id(), .num_devices = 1000};
    send_malformed("too many devices", AOS_OP_CREATE_CONTEXT, 0, &ctx, sizeof(ctx));
    ctx.num_devices = 4; /* but no ids follow */
    send_malformed("a device list past the message", AOS_OP_CREATE_CONTEXT, 0, &ctx, sizeof(ctx));
    struct aos_req_wait_events wait = {.num = 0x10000000};
    send_malformed("a huge wait list", AOS_OP_WAIT_EVENTS, 0, &wait, sizeof(wait));
}
END_TEST

START_TEST(test_inline_reply_larger_than_slot)
{
    struct aos_req_get_info info = {.kind = AOS_INFO_DEVICE, .id = AOS_DEVICE_ID_BASE, .param = CL_DEVICE_NAME,
                                    .value_size = 1ull << 40};
    send_malformed("a reply larger than its slot", AOS_OP_GET_INFO, 0, &info, sizeof(info));
}
END_TEST

START_TEST(test_spans_out_of_range)
{
    struct raw probe;
    raw_connect(&probe);
    uint32_t data_size = probe.region.layout.data_size;
    raw_close(&probe);

    struct aos_req_get_info info = {.kind = AOS_INFO_DEVICE, .id = AOS_DEVICE_ID_BASE, .param = CL_DEVICE_NAME,
                                    .value_size = 64, .out = {.off = data_size - 8, .len = 64}};
    send_malformed("an info span past the data area", AOS_OP_GET_INFO, 0, &info, sizeof(info));
    info.out = (struct aos_span){.off = 0xfffffff0u, .len = 0x20};
    send_malformed("an info span whose end wraps", AOS_OP_GET_INFO, 0, &info, sizeof(info));
    info.out = (struct aos_span){.off = 0, .len = 16};
    send_malformed("a value larger than its span", AOS_OP_GET_INFO, 0, &info, sizeof(info));

    struct aos_req_create_buffer buf = {.id = raw_fresh_id(), .context = AOS_FIRST_CLIENT_ID, .flags = CL_MEM_COPY_HOST_PTR,
                                        .size = 4096, .init = {.off = data_size - 100, .len = 4096}};
    send_malformed("initial contents past the data area", AOS_OP_CREATE_BUFFER, 0, &buf, sizeof(buf));
    buf.flags = CL_MEM_USE_HOST_PTR;
    buf.init = (struct aos_span){0, 4096};
    send_malformed("a host pointer", AOS_OP_CREATE_BUFFER, 0, &buf, sizeof(buf));

    struct aos_req_buffer_rw rw = {.enq = {.queue = AOS_FIRST_CLIENT_ID}, .buffer = AOS_FIRST_CLIENT_ID,
                                   .data = {.off = data_size, .len = 1}};
    send_malformed("a write span past the data area", AOS_OP_WRITE_BUFFER, AOS_NO_SLOT, &rw, sizeof(rw));
    rw.data = (struct aos_span){.off = 1u << 31, .len = 1u << 31};
    send_malformed("a read span of 2 GiB", AOS_OP_READ_BUFFER, AOS_NO_SLOT, &rw, sizeof(rw));
    rw.data = (struct aos_span){0, 64};
    rw.enq.blocking = 1;
    send_malformed("a blocking flag on an asynchronous request", AOS_OP_WRITE_BUFFER, AOS_NO_SLOT, &rw, sizeof(rw));
}
END_TEST

START_TEST(test_out_of_range_offsets_are_cl_errors)
{
    /* Offsets into a real buffer are the runtime's to check: an OpenCL error, not a disconnect,
     * and the bytes around the buffer are untouched. */
    struct raw r;
    raw_connect(&r);
    uint64_t ctx = raw_context(&r, raw_fresh_id());
    uint64_t q = raw_queue(&r, ctx);
    uint64_t buffer = raw_buffer(&r, ctx, CL_MEM_READ_WRITE, 4096, NULL);
    cl_int status;
    struct aos_req_buffer_rw rw = {.enq = {.queue = q, .blocking = 1}, .buffer = buffer, .offset = 4000,
                                   .data = {.off = 0, .len = 4096}};
    ck_assert(raw_call(&r, AOS_OP_WRITE_BUFFER_BLOCKING, &rw, sizeof(rw), &status, NULL));
    ck_assert_int_eq(status, CL_INVALID_VALUE);
    rw.offset = UINT64_MAX - 10;
    ck_assert(raw_call(&r, AOS_OP_READ_BUFFER_BLOCKING, &rw, sizeof(rw), &status, NULL));
    ck_assert_int_eq(status, CL_INVALID_VALUE);
    raw_still_served(&r);
    raw_close(&r);
    daemon_healthy();
    good_client_works();
}
END_TEST

/* The status a wait on one event answers. */
static cl_int raw_wait_status(struct raw *r, uint64_t event)
{
    struct {
        struct aos_req_wait_events w;
        uint64_t id;
    } q = {.w = {.num = 1}, .id = event};
    cl_int status = 1;
    ck_assert(raw_call(r, AOS_OP_WAIT_EVENTS, &q, sizeof(q), &status, NULL));
    return status;
}

START_TEST(test_wrapping_offsets_and_pitches_are_cl_errors)
{
    /* Offsets and pitches whose sums or products wrap in size_t: PoCL's own checks let a row pitch
     * of 2^64-1 through and read outside the buffer, in the daemon's process. */
    struct raw r;
    raw_connect(&r);
    uint64_t ctx = raw_context(&r, raw_fresh_id());
    uint64_t q = raw_queue(&r, ctx);
    uint64_t buffer = raw_buffer(&r, ctx, CL_MEM_READ_WRITE, 65536, NULL);
    cl_int status;

    struct aos_req_buffer_rect rect = {.enq = {.queue = q, .blocking = 1}, .buffer = buffer, .origin = {13, 4, 0},
                                       .region = {64, 16, 1}, .row_pitch = UINT64_MAX, .data = {.off = 0, .len = 1024}};
    ck_assert(raw_call(&r, AOS_OP_READ_BUFFER_RECT_BLOCKING, &rect, sizeof(rect), &status, NULL));
    ck_assert_int_eq(status, CL_INVALID_VALUE);
    rect.row_pitch = 1ull << 62; /* the slice pitch's product wraps */
    rect.origin[2] = 4;
    ck_assert(raw_call(&r, AOS_OP_WRITE_BUFFER_RECT_BLOCKING, &rect, sizeof(rect), &status, NULL));
    ck_assert_int_eq(status, CL_INVALID_VALUE);
    rect.row_pitch = 256; /* in bounds: served */
    rect.origin[2] = 0;
    ck_assert(raw_call(&r, AOS_OP_READ_BUFFER_RECT_BLOCKING, &rect, sizeof(rect), &status, NULL));
    ck_assert_int_eq(status, CL_SUCCESS);

    struct aos_req_create_sub_buffer sub = {.id = raw_fresh_id(), .parent = buffer, .flags = CL_MEM_READ_WRITE,
                                            .origin = UINT64_MAX - 15, .size = 32};
    ck_assert(raw_call(&r, AOS_OP_CREATE_SUB_BUFFER, &sub, sizeof(sub), &status, NULL));
    ck_assert_int_eq(status, CL_INVALID_VALUE);

    /* Asynchronous commands: their events fail instead. */
    struct aos_req_copy_buffer copy = {.enq = {.queue = q, .event = raw_fresh_id()}, .src = buffer, .dst = buffer,
                                       .src_offset = UINT64_MAX - 1, .dst_offset = 0, .size = 4096};
    raw_send(&r, AOS_OP_COPY_BUFFER, AOS_NO_SLOT, &copy, sizeof(copy));
    ck_assert_int_eq(raw_wait_status(&r, copy.enq.event), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    struct aos_req_copy_buffer_rect crect = {.enq = {.queue = q, .event = raw_fresh_id()}, .src = buffer, .dst = buffer,
                                             .src_origin = {0, 2, 0}, .dst_origin = {0, 0, 0}, .region = {64, 16, 1},
                                             .src_row_pitch = UINT64_MAX, .dst_row_pitch = 256};
    raw_send(&r, AOS_OP_COPY_BUFFER_RECT, AOS_NO_SLOT, &crect, sizeof(crect));
    ck_assert_int_eq(raw_wait_status(&r, crect.enq.event), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    struct {
        struct aos_req_fill_buffer f;
        uint32_t pattern;
    } fill = {.f = {.enq = {.queue = q, .event = raw_fresh_id()}, .buffer = buffer, .offset = UINT64_MAX - 3,
                    .size = 8, .pattern_size = 4},
              .pattern = 7};
    raw_send(&r, AOS_OP_FILL_BUFFER, AOS_NO_SLOT, &fill, sizeof(fill));
    ck_assert_int_eq(raw_wait_status(&r, fill.f.enq.event), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);

    raw_still_served(&r);
    raw_close(&r);
    daemon_healthy();
    good_client_works();
}
END_TEST

START_TEST(test_image_boxes_past_the_image_are_cl_errors)
{
    /* PoCL 3.1 does not check a 1D image array's layers: a fill of 16 rows into one layer wrote
     * past the image and corrupted the daemon's heap (found by test_fuzz). */
    struct raw r;
    raw_connect(&r);
    uint64_t ctx = raw_context(&r, raw_fresh_id());
    uint64_t q = raw_queue(&r, ctx);
    struct aos_req_create_image im = {.id = raw_fresh_id(), .context = ctx, .flags = CL_MEM_READ_WRITE,
                                      .channel_order = CL_RGBA, .channel_data_type = CL_UNORM_INT8,
                                      .image_type = CL_MEM_OBJECT_IMAGE1D_ARRAY, .width = 32, .array_size = 1};
    cl_int status;
    ck_assert(raw_call(&r, AOS_OP_CREATE_IMAGE, &im, sizeof(im), &status, NULL));
    ck_assert_int_eq(status, CL_SUCCESS);
    struct aos_req_fill_image fill = {.enq = {.queue = q, .event = raw_fresh_id()}, .image = im.id,
                                      .region = {32, 16, 1}};
    const float green[4] = {0.0f, 1.0f, 0.0f, 1.0f}; /* UNORM_INT8 images fill from floats */
    memcpy(fill.color, green, sizeof(green));
    raw_send(&r, AOS_OP_FILL_IMAGE, AOS_NO_SLOT, &fill, sizeof(fill));
    ck_assert_int_eq(raw_wait_status(&r, fill.enq.event), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    fill.region[1] = 1; /* the one layer: served */
    fill.enq.event = raw_fresh_id();
    raw_send(&r, AOS_OP_FILL_IMAGE, AOS_NO_SLOT, &fill, sizeof(fill));
    ck_assert_int_eq(raw_wait_status(&r, fill.enq.event), CL_SUCCESS);
    struct aos_req_image_rw rw = {.enq = {.queue = q, .blocking = 1}, .image = im.id, .origin = {16, 0, 0},
                                  .region = {32, 1, 1}, .data = {.off = 0, .len = 32 * 4}};
    ck_assert(raw_call(&r, AOS_OP_READ_IMAGE_BLOCKING, &rw, sizeof(rw), &status, NULL));
    ck_assert_int_eq(status, CL_INVALID_VALUE); /* 16 + 32 pixels past a row of 32 */
    rw.origin[0] = 0;
    ck_assert(raw_call(&r, AOS_OP_READ_IMAGE_BLOCKING, &rw, sizeof(rw), &status, NULL));
    ck_assert_int_eq(status, CL_SUCCESS);
    ck_assert_uint_eq(aos_region_data(&r.region)[1], 255); /* pixel 0's green, as filled */
    ck_assert_uint_eq(aos_region_data(&r.region)[31 * 4 + 1], 255);
    raw_still_served(&r);
    raw_close(&r);
    daemon_healthy();
    good_client_works();
}
END_TEST

START_TEST(test_zero_local_size_is_a_cl_error)
{
    /* PoCL 3.1 crashes on a local size of 0 in a used dimension (found by test_fuzz); ProxyCL
     * checks it on the client's side, a raw client does not. */
    struct raw r;
    raw_connect(&r);
    uint64_t ctx = raw_context(&r, raw_fresh_id());
    uint64_t q = raw_queue(&r, ctx);
    uint64_t buffer = raw_buffer(&r, ctx, CL_MEM_READ_WRITE, 65536, NULL);
    uint64_t program = 0;
    uint64_t kernel = raw_kernel(&r, ctx, "kernel void k(global int *a) { a[get_global_id(0)] = 1; }", "k", &program);
    ck_assert_uint_ne(kernel, 0);
    struct {
        struct aos_req_ndrange n;
        struct aos_wire_arg arg;
    } launch = {.n = {.hdr = {.queue = q, .event = raw_fresh_id()}, .kernel = kernel, .work_dim = 3, .num_args = 1,
                      .has_local = 1, .global = {64, 4, 2}, .local = {16, 2, 0}},
                .arg = {.index = 0, .kind = AOS_ARG_MEM, .id = buffer}};
    raw_send(&r, AOS_OP_ENQUEUE_NDRANGE, AOS_NO_SLOT, &launch, sizeof(launch));
    ck_assert_int_eq(raw_wait_status(&r, launch.n.hdr.event), CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    launch.n.local[2] = 1;
    launch.n.hdr.event = raw_fresh_id();
    launch.n.num_args = 0; /* set already */
    raw_send(&r, AOS_OP_ENQUEUE_NDRANGE, AOS_NO_SLOT, &launch.n, sizeof(launch.n));
    ck_assert_int_eq(raw_wait_status(&r, launch.n.hdr.event), CL_SUCCESS);
    raw_still_served(&r);
    raw_close(&r);
    daemon_healthy();
    good_client_works();
}
END_TEST

START_TEST(test_device_side_queue_is_a_cl_error)
{
    /* PoCL 3.1 exits the process on any request for a device-side queue (found by test_fuzz).
     * ProxyCL refuses one itself; a raw client asks the daemon. */
    struct raw r;
    raw_connect(&r);
    uint64_t ctx = raw_context(&r, raw_fresh_id());
    cl_int status;
    raw_queue_with(&r, ctx, CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &status);
    ck_assert_int_eq(status, CL_INVALID_QUEUE_PROPERTIES);
    raw_queue_with(&r, ctx, CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
                   &status);
    ck_assert_int_eq(status, CL_INVALID_QUEUE_PROPERTIES);
    raw_queue_with(&r, ctx, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE, &status);
    ck_assert_int_eq(status, CL_SUCCESS);
    raw_still_served(&r);
    raw_close(&r);
    daemon_healthy();
    good_client_works();
}
END_TEST

/* Writes one message header straight into the request ring and publishes it. */
static void ring_inject(struct raw *r, uint32_t size, uint32_t advance_tail)
{
    struct aos_msg_hdr *hdr = (struct aos_msg_hdr *)(r->req.buf + (r->req.pos & (r->req.size - 1)));
    hdr->size = size;
    hdr->opcode = AOS_OP_NOP;
    hdr->slot = AOS_NO_SLOT;
    hdr->flags = 0;
    r->req.pos += advance_tail;
    atomic_store(&r->req.ctl->tail, r->req.pos);
    atomic_fetch_add(&r->req.ctl->doorbell, 1);
    aos_futex_wake(&r->req.ctl->doorbell, 1);
}

START_TEST(test_tampered_request_ring)
{
    struct {
        const char *what;
        uint32_t size, advance;
    } cases[] = {
        {"a message of size 0", 0, 16},
        {"a size that is not a multiple of 16", 24, 32},
        {"a size larger than what was published", 4096, 16},
        {"a size past the end of the ring", 1u << 21, 1u << 19},
        {"a tail more than a ring ahead", 16, (1u << 20) * 3},
        {"a tail that is not aligned", 16, 8},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct raw r;
        raw_connect(&r);
        raw_still_served(&r);
        ring_inject(&r, cases[i].size, cases[i].advance);
        expect_only_this_client_dropped(&r, cases[i].what);
    }

    /* A tail moved backwards behind what the daemon has consumed. */
    struct raw r;
    raw_connect(&r);
    raw_still_served(&r);
    r.req.pos -= 64;
    atomic_store(&r.req.ctl->tail, r.req.pos);
    atomic_fetch_add(&r.req.ctl->doorbell, 1);
    aos_futex_wake(&r.req.ctl->doorbell, 1);
    expect_only_this_client_dropped(&r, "a tail behind the head");

    /* Scribbling over the shared header's copy of the layout changes nothing for the daemon. */
    raw_connect(&r);
    struct aos_region_header *shared = aos_region_shared_header(&r.region);
    shared->slot_count = 1u << 30;
    shared->data_size = 0xffffffffu;
    shared->req_size = 16;
    raw_still_served(&r);
    struct aos_req_get_info info = {.kind = AOS_INFO_DEVICE, .id = AOS_DEVICE_ID_BASE, .param = CL_DEVICE_NAME,
                                    .value_size = 64, .out = {.off = r.region.layout.data_size, .len = 64}};
    raw_send(&r, AOS_OP_GET_INFO, 0, &info, sizeof(info));
    expect_only_this_client_dropped(&r, "a span checked against a forged layout");
}
END_TEST

START_TEST(test_tampered_notification_ring)
{
    /* The client is the consumer of the notification ring; a head it moves past what the daemon
     * produced is caught when the daemon next writes a notification. */
    struct raw r;
    raw_connect(&r);
    uint64_t ctx = raw_context(&r, raw_fresh_id());
    struct aos_req_create_user_event ue = {.id = raw_fresh_id(), .context = ctx};
    raw_send(&r, AOS_OP_CREATE_USER_EVENT, AOS_NO_SLOT, &ue, sizeof(ue));
    struct aos_req_event_callback cb = {.event = ue.id, .token = 1, .callback_type = CL_COMPLETE};
    raw_send(&r, AOS_OP_SET_EVENT_CALLBACK, AOS_NO_SLOT, &cb, sizeof(cb));
    raw_still_served(&r);
    atomic_store(&r.note.ctl->head, atomic_load(&r.note.ctl->tail) + 12345);
    struct aos_req_event_status st = {.event = ue.id, .status = CL_COMPLETE};
    raw_send(&r, AOS_OP_SET_USER_EVENT_STATUS, AOS_NO_SLOT, &st, sizeof(st));
    expect_only_this_client_dropped(&r, "a corrupted notification ring");
}
END_TEST

START_TEST(test_socket_misuse)
{
    /* Wrong magic: closed without a region. */
    int s = aos_sock_connect(aos_test_socket_path());
    ck_assert_int_ge(s, 0);
    struct aos_hello hello = {.magic = 0x12345678, .version = AOS_WIRE_VERSION, .kind = AOS_HELLO_CLIENT};
    ck_assert_int_eq(aos_sock_send(s, &hello, sizeof(hello), -1), 0);
    struct aos_welcome welcome;
    int fd = -1;
    ck_assert_int_eq(aos_sock_recv(s, &welcome, sizeof(welcome), &fd, 5000), -ECONNRESET);
    ck_assert_int_eq(fd, -1);
    close(s);
    /* Another protocol version: refused with a reason, no region. */
    s = aos_sock_connect(aos_test_socket_path());
    hello = (struct aos_hello){.magic = AOS_WIRE_MAGIC, .version = AOS_WIRE_VERSION + 7, .kind = AOS_HELLO_CLIENT};
    ck_assert_int_eq(aos_sock_send(s, &hello, sizeof(hello), -1), 0);
    ck_assert_int_eq(aos_sock_recv(s, &welcome, sizeof(welcome), &fd, 5000), 0);
    ck_assert_int_eq(welcome.status, -EPROTONOSUPPORT);
    ck_assert_int_eq(fd, -1);
    close(s);
    /* An unknown hello kind: refused as well. */
    s = aos_sock_connect(aos_test_socket_path());
    hello = (struct aos_hello){.magic = AOS_WIRE_MAGIC, .version = AOS_WIRE_VERSION, .kind = 99};
    ck_assert_int_eq(aos_sock_send(s, &hello, sizeof(hello), -1), 0);
    int rc = aos_sock_recv(s, &welcome, sizeof(welcome), &fd, 5000);
    ck_assert(rc == -ECONNRESET || (rc == 0 && welcome.status < 0));
    ck_assert_int_eq(fd, -1);
    close(s);
    /* Bytes on the socket after the hello: the client is dropped. */
    struct raw r;
    raw_connect(&r);
    ck_assert_int_eq(send(r.sock, "junk", 4, MSG_NOSIGNAL), 4);
    expect_only_this_client_dropped(&r, "bytes after its hello");
}
END_TEST

START_TEST(test_silent_connections_do_not_stall_others)
{
    /* Peers that connect and never say hello (or say half of it) must not hold up the daemon:
     * others still get their welcome at once. */
    int silent[6];
    for (int i = 0; i < 6; i++) {
        silent[i] = aos_sock_connect(aos_test_socket_path());
        ck_assert_int_ge(silent[i], 0);
        if (i % 2)
            ck_assert_int_eq(send(silent[i], "ACO", 3, MSG_NOSIGNAL), 3);
    }
    usleep(20000);
    uint64_t t0 = aos_now_ns();
    struct raw r;
    raw_connect(&r);
    double seconds = (double)(aos_now_ns() - t0) * 1e-9;
    ck_assert_msg(seconds < 1.0, "a welcome took %.2f s behind silent peers", seconds);
    raw_still_served(&r);
    raw_close(&r);
    good_client_works();
    daemon_healthy();
    /* The silent ones are dropped after the handshake timeout. */
    for (int i = 0; i < 6; i++) {
        struct pollfd p = {.fd = silent[i], .events = POLLIN | POLLRDHUP};
        ck_assert_int_eq(poll(&p, 1, 5000), 1);
        char c;
        ck_assert_int_le(recv(silent[i], &c, 1, MSG_DONTWAIT), 0);
        close(silent[i]);
    }
}
END_TEST

/* ---- Ids --------------------------------------------------------------------------------- */

START_TEST(test_bogus_ids)
{
    /* Queries on unknown ids are OpenCL errors; the client stays connected. */
    struct raw r;
    raw_connect(&r);
    static const struct {
        uint32_t kind;
        cl_int expect;
    } kinds[] = {
        {AOS_INFO_CONTEXT, CL_INVALID_CONTEXT}, {AOS_INFO_QUEUE, CL_INVALID_COMMAND_QUEUE},
        {AOS_INFO_MEM, CL_INVALID_MEM_OBJECT},  {AOS_INFO_PROGRAM, CL_INVALID_PROGRAM},
        {AOS_INFO_KERNEL, CL_INVALID_KERNEL},   {AOS_INFO_EVENT, CL_INVALID_EVENT},
        {AOS_INFO_DEVICE, CL_INVALID_DEVICE},   {AOS_INFO_PLATFORM, CL_INVALID_PLATFORM},
    };
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        struct aos_req_get_info info = {.kind = kinds[i].kind, .id = 0xdeadbeefull, .param = 0x1000, .value_size = 8};
        cl_int status;
        ck_assert(raw_call(&r, AOS_OP_GET_INFO, &info, sizeof(info), &status, NULL));
        ck_assert_int_eq(status, kinds[i].expect);
    }
    /* A real handle of the daemon's is never handed out, even where a value is a handle. */
    uint64_t ctx = raw_context(&r, raw_fresh_id());
    struct aos_req_get_info info = {.kind = AOS_INFO_CONTEXT, .id = ctx, .param = CL_CONTEXT_DEVICES, .value_size = 8};
    cl_int status;
    ck_assert(raw_call(&r, AOS_OP_GET_INFO, &info, sizeof(info), &status, NULL));
    ck_assert_int_eq(status, CL_INVALID_VALUE);
    /* An enqueue on a known queue waiting for an unknown event fails that command's event. */
    uint64_t q = raw_queue(&r, ctx);
    struct {
        struct aos_req_enqueue_sync m;
        uint64_t wait_for;
    } marker = {.m = {.enq = {.queue = q, .event = raw_fresh_id(), .num_wait = 1}}, .wait_for = 0xdeadbeefull};
    raw_send(&r, AOS_OP_ENQUEUE_MARKER, AOS_NO_SLOT, &marker, sizeof(marker));
    struct {
        struct aos_req_wait_events w;
        uint64_t id;
    } wait = {.w = {.num = 1}, .id = marker.m.enq.event};
    ck_assert(raw_call(&r, AOS_OP_WAIT_EVENTS, &wait, sizeof(wait), &status, NULL));
    ck_assert_int_eq(status, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    raw_still_served(&r);
    /* On an unknown queue there is no context to record a failed event in: dropped. */
    marker.m.enq.queue = 0xdeadbeefull;
    marker.m.enq.event = raw_fresh_id();
    raw_send(&r, AOS_OP_ENQUEUE_MARKER, AOS_NO_SLOT, &marker, sizeof(marker));
    expect_only_this_client_dropped(&r, "a command with its own event on an unknown queue");

    /* Reference counting on ids it does not have means a confused or hostile client. */
    struct aos_req_object obj = {.type = AOS_OBJ_MEM, .id = 0xdeadbeefull};
    send_malformed("a release of an unknown id", AOS_OP_RELEASE, AOS_NO_SLOT, &obj, sizeof(obj));
    obj = (struct aos_req_object){.type = 99, .id = AOS_FIRST_CLIENT_ID};
    send_malformed("a retain of an unknown type", AOS_OP_RETAIN, AOS_NO_SLOT, &obj, sizeof(obj));
    /* Ids must be fresh and in the client's range. */
    raw_connect(&r);
    ctx = raw_context(&r, raw_fresh_id());
    struct aos_req_create_context again = {.id = ctx, .num_devices = 1};
    struct {
        struct aos_req_create_context c;
        uint64_t device;
    } dup = {.c = again, .device = AOS_DEVICE_ID_BASE};
    raw_send(&r, AOS_OP_CREATE_CONTEXT, 0, &dup, sizeof(dup));
    expect_only_this_client_dropped(&r, "an id it already uses");
    raw_connect(&r);
    dup.c.id = 5;
    raw_send(&r, AOS_OP_CREATE_CONTEXT, 0, &dup, sizeof(dup));
    expect_only_this_client_dropped(&r, "an id in the daemon's own range");
}
END_TEST

START_TEST(test_other_clients_ids)
{
    /* The raw client names the good client's objects by their wire ids: it must get nothing. */
    cl_int err;
    cl_event user = clCreateUserEvent(good_ctx, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    uint64_t their_ctx = wire_id(good_ctx), their_queue = wire_id(good_queue), their_buf = wire_id(good_buffer),
             their_event = wire_id(user);
    struct raw r;
    raw_connect(&r);
    cl_int status;
    struct aos_req_get_info info = {.kind = AOS_INFO_MEM, .id = their_buf, .param = CL_MEM_SIZE, .value_size = 8};
    ck_assert(raw_call(&r, AOS_OP_GET_INFO, &info, sizeof(info), &status, NULL));
    ck_assert_int_eq(status, CL_INVALID_MEM_OBJECT);
    info = (struct aos_req_get_info){.kind = AOS_INFO_CONTEXT, .id = their_ctx, .param = CL_CONTEXT_NUM_DEVICES,
                                     .value_size = 4};
    ck_assert(raw_call(&r, AOS_OP_GET_INFO, &info, sizeof(info), &status, NULL));
    ck_assert_int_eq(status, CL_INVALID_CONTEXT);
    info = (struct aos_req_get_info){.kind = AOS_INFO_QUEUE, .id = their_queue, .param = CL_QUEUE_PROPERTIES,
                                     .value_size = 8};
    ck_assert(raw_call(&r, AOS_OP_GET_INFO, &info, sizeof(info), &status, NULL));
    ck_assert_int_eq(status, CL_INVALID_COMMAND_QUEUE);
    struct aos_req_create_queue cq = {.id = raw_fresh_id(), .context = their_ctx, .device = AOS_DEVICE_ID_BASE};
    ck_assert(raw_call(&r, AOS_OP_CREATE_QUEUE, &cq, sizeof(cq), &status, NULL));
    ck_assert_int_eq(status, CL_INVALID_CONTEXT);
    struct {
        struct aos_req_wait_events w;
        uint64_t id;
    } wait = {.w = {.num = 1}, .id = their_event};
    ck_assert(raw_call(&r, AOS_OP_WAIT_EVENTS, &wait, sizeof(wait), &status, NULL));
    ck_assert_int_eq(status, CL_INVALID_EVENT);

    /* Its own context may even carry the same number: ids are per client. */
    uint64_t ctx = raw_context(&r, their_ctx);
    uint64_t q = raw_queue(&r, ctx);
    /* Writing into their buffer through its own queue: refused, their data unchanged. */
    uint8_t *data = aos_region_data(&r.region);
    memset(data, 0xee, 4096);
    struct aos_req_buffer_rw rw = {.enq = {.queue = q, .blocking = 1}, .buffer = their_buf, .data = {0, 4096}};
    ck_assert(raw_call(&r, AOS_OP_WRITE_BUFFER_BLOCKING, &rw, sizeof(rw), &status, NULL));
    ck_assert_int_eq(status, CL_INVALID_MEM_OBJECT);
    ck_assert(raw_call(&r, AOS_OP_READ_BUFFER_BLOCKING, &rw, sizeof(rw), &status, NULL));
    ck_assert_int_eq(status, CL_INVALID_MEM_OBJECT);
    ck_assert_uint_eq(data[0], 0xee);
    /* Completing their user event, or waiting on it through a command, does not reach it. */
    struct aos_req_event_status st = {.event = their_event, .status = CL_COMPLETE};
    raw_send(&r, AOS_OP_SET_USER_EVENT_STATUS, AOS_NO_SLOT, &st, sizeof(st));
    ck_assert_msg(raw_hung_up(&r, HANGUP_MS), "the daemon accepted a status for another client's event");
    raw_close(&r);
    cl_int ev_status = 0;
    ck_assert_int_eq(clGetEventInfo(user, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(ev_status), &ev_status, NULL),
                     CL_SUCCESS);
    ck_assert_int_eq(ev_status, CL_SUBMITTED);

    /* Releasing their objects drops the raw client, never their objects. */
    struct aos_req_object obj = {.type = AOS_OBJ_MEM, .id = their_buf};
    send_malformed("a release of another client's buffer", AOS_OP_RELEASE, AOS_NO_SLOT, &obj, sizeof(obj));
    obj = (struct aos_req_object){.type = AOS_OBJ_CONTEXT, .id = their_ctx};
    send_malformed("a release of another client's context", AOS_OP_RELEASE, AOS_NO_SLOT, &obj, sizeof(obj));
    ck_assert_int_eq(clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS);
    ck_assert_int_eq(clWaitForEvents(1, &user), CL_SUCCESS);
    ck_assert_int_eq(clReleaseEvent(user), CL_SUCCESS);
    good_client_works();
}
END_TEST

/* ---- Clients that leave work behind -------------------------------------------------------- */

START_TEST(test_disconnect_with_pending_work)
{
    /* A raw client enqueues a non-blocking write from its data area, gated on a user event it
     * never sets, plus work chained behind it, and hangs up. The daemon must end that work
     * without reading the region after it is gone, and stay up. */
    for (int round = 0; round < 3; round++) {
        struct raw r;
        raw_connect(&r);
        uint64_t ctx = raw_context(&r, raw_fresh_id());
        uint64_t q = raw_queue(&r, ctx);
        uint64_t buffer = raw_buffer(&r, ctx, 0, 1u << 20, NULL);
        struct aos_req_create_user_event ue = {.id = raw_fresh_id(), .context = ctx};
        raw_send(&r, AOS_OP_CREATE_USER_EVENT, AOS_NO_SLOT, &ue, sizeof(ue));
        struct {
            struct aos_req_buffer_rw rw;
            uint64_t wait;
        } w = {.rw = {.enq = {.queue = q, .num_wait = 1}, .buffer = buffer, .data = {0, 1u << 20}}, .wait = ue.id};
        raw_send(&r, AOS_OP_WRITE_BUFFER, AOS_NO_SLOT, &w, sizeof(w));
        struct aos_req_enqueue_sync m = {.enq = {.queue = q, .event = raw_fresh_id()}};
        raw_send(&r, AOS_OP_ENQUEUE_MARKER, AOS_NO_SLOT, &m, sizeof(m));
        struct aos_req_object rel = {.type = AOS_OBJ_EVENT, .id = m.enq.event};
        raw_send(&r, AOS_OP_RELEASE, AOS_NO_SLOT, &rel, sizeof(rel));
        if (round == 1) {
            /* Fail it instead, then leave. */
            struct aos_req_event_status st = {.event = ue.id, .status = -42};
            raw_send(&r, AOS_OP_SET_USER_EVENT_STATUS, AOS_NO_SLOT, &st, sizeof(st));
        }
        raw_still_served(&r);
        raw_close(&r);
        daemon_healthy();
    }
    /* A client process killed with gated work through the ICD. */
    int pipefd[2];
    ck_assert_int_eq(pipe(pipefd), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        cl_context c;
        cl_command_queue cq;
        aos_test_context(&c, &cq);
        cl_int err;
        cl_event gate = clCreateUserEvent(c, &err);
        cl_mem m = clCreateBuffer(c, CL_MEM_READ_WRITE, 8u << 20, NULL, &err);
        static uint8_t host[8u << 20];
        clEnqueueWriteBuffer(cq, m, CL_FALSE, 0, sizeof(host), host, 1, &gate, NULL);
        clEnqueueReadBuffer(cq, m, CL_FALSE, 0, sizeof(host), host, 0, NULL, NULL);
        clFlush(cq);
        char ok = 'y';
        if (write(pipefd[1], &ok, 1) != 1)
            _exit(1);
        pause();
        _exit(0);
    }
    char ok;
    ck_assert_int_eq(read(pipefd[0], &ok, 1), 1);
    usleep(50000);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    close(pipefd[0]);
    close(pipefd[1]);
    usleep(200000);
    daemon_healthy();
    good_client_works();
}
END_TEST

START_TEST(test_released_queue_with_failed_work)
{
    /* A long fill runs; a fill behind it on the same in-order queue also waits on a user event
     * that the client fails, so it fails while the long one still runs. The client then releases
     * the queue and hangs up while the long fill is still running. PoCL 3.1 mishandles failed
     * events linked from pending ones (ops_event.c); the daemon must outlive that. */
    for (int round = 0; round < 8; round++) {
        struct raw r;
        raw_connect(&r);
        uint64_t ctx = raw_context(&r, raw_fresh_id());
        uint64_t q = raw_queue(&r, ctx);
        uint64_t buffer = raw_buffer(&r, ctx, 0, 64u << 20, NULL);
        struct aos_req_create_user_event ue = {.id = raw_fresh_id(), .context = ctx};
        raw_send(&r, AOS_OP_CREATE_USER_EVENT, AOS_NO_SLOT, &ue, sizeof(ue));
        struct { /* the request, then its 16-byte pattern */
            struct aos_req_fill_buffer f;
            uint32_t pattern[4];
        } fill = {.f = {.enq = {.queue = q, .event = raw_fresh_id()}, .buffer = buffer, .size = 64u << 20,
                        .pattern_size = 16}};
        raw_send(&r, AOS_OP_FILL_BUFFER, AOS_NO_SLOT, &fill, sizeof(fill));
        struct aos_req_object rel = {.type = AOS_OBJ_EVENT, .id = fill.f.enq.event};
        raw_send(&r, AOS_OP_RELEASE, AOS_NO_SLOT, &rel, sizeof(rel));
        struct { /* the request, its wait list, then its pattern */
            struct aos_req_fill_buffer f;
            uint64_t wait;
            uint32_t pattern[4];
        } gated = {.f = {.enq = {.queue = q, .event = raw_fresh_id(), .num_wait = 1}, .buffer = buffer, .size = 4096,
                         .pattern_size = 16},
                   .wait = ue.id};
        raw_send(&r, AOS_OP_FILL_BUFFER, AOS_NO_SLOT, &gated, sizeof(gated));
        struct aos_req_event_status st = {.event = ue.id, .status = -42};
        raw_send(&r, AOS_OP_SET_USER_EVENT_STATUS, AOS_NO_SLOT, &st, sizeof(st));
        rel.id = gated.f.enq.event;
        raw_send(&r, AOS_OP_RELEASE, AOS_NO_SLOT, &rel, sizeof(rel));
        rel = (struct aos_req_object){.type = AOS_OBJ_QUEUE, .id = q};
        raw_send(&r, AOS_OP_RELEASE, AOS_NO_SLOT, &rel, sizeof(rel));
        raw_still_served(&r);
        raw_close(&r);
        usleep(50000); /* the long fill ends after the session is gone */
        daemon_healthy();
    }
    good_client_works();
}
END_TEST

/* A 1 MiB buffer in the raw client's session; the daemon must have put it in the shared arena. */
static uint64_t raw_shared_buffer(struct raw *r, uint64_t ctx)
{
    uint64_t shared = 0;
    uint64_t buffer = raw_buffer(r, ctx, CL_MEM_READ_WRITE, 1u << 20, &shared);
    ck_assert_uint_eq(shared, 1);
    return buffer;
}

START_TEST(test_direct_transfer_misuse)
{
    /* Each malformed direct-transfer request costs that client its connection. */
    static const char *what[] = {"an asynchronous direct transfer without a host-step token",
                                 "a direct transfer past the buffer's end", "a direct transfer whose offset wraps",
                                 "a direct transfer without an event id", "a blocking direct transfer with a token"};
    for (int kind = 0; kind < 5; kind++) {
        struct raw r;
        raw_connect(&r);
        uint64_t ctx = raw_context(&r, raw_fresh_id());
        uint64_t q = raw_queue(&r, ctx);
        uint64_t buffer = raw_shared_buffer(&r, ctx);
        struct aos_req_buffer_direct d = {
            .enq = {.queue = q, .event = raw_fresh_id()}, .buffer = buffer, .size = 1u << 20, .token = 7};
        uint32_t opcode = AOS_OP_BUFFER_DIRECT, slot = AOS_NO_SLOT;
        switch (kind) {
        case 0: d.token = 0; break;
        case 1: d.offset = 1; break;
        case 2: d.offset = UINT64_MAX - 4, d.size = 8; break;
        case 3: d.enq.event = 0; break;
        default:
            opcode = AOS_OP_BUFFER_DIRECT_BLOCKING, slot = 0, d.enq.blocking = 1;
            atomic_store(&aos_region_slot(&r.region, 0)->state, AOS_SLOT_PENDING);
            break;
        }
        raw_send(&r, opcode, slot, &d, sizeof(d));
        expect_only_this_client_dropped(&r, what[kind]);
    }
}
END_TEST

START_TEST(test_direct_transfer_abandoned)
{
    /* A client that was told it may copy into its buffer, and holds its queue so, but hangs up
     * instead of reporting the copy done: the daemon must end the held queue and give the buffer's
     * storage back. Nor can the client shrink the shared file under the daemon's mappings. */
    long long before = aos_test_status_shared_in_use();
    struct raw r;
    raw_connect(&r);
    uint64_t ctx = raw_context(&r, raw_fresh_id());
    uint64_t q = raw_queue(&r, ctx);
    uint64_t buffer = raw_shared_buffer(&r, ctx);
    ck_assert_int_eq(aos_test_status_shared_in_use() - before, 1u << 20);
    struct aos_req_buffer_direct d = {
        .enq = {.queue = q, .event = raw_fresh_id(), .blocking = 1}, .buffer = buffer, .size = 1u << 20};
    cl_int status = 1;
    uint64_t armed = 0;
    ck_assert(raw_call(&r, AOS_OP_BUFFER_DIRECT_BLOCKING, &d, sizeof(d), &status, &armed));
    ck_assert_int_eq(status, CL_SUCCESS);
    ck_assert_uint_eq(armed, 1);
    struct aos_req_enqueue_sync m = {.enq = {.queue = q, .event = raw_fresh_id()}};
    raw_send(&r, AOS_OP_ENQUEUE_MARKER, AOS_NO_SLOT, &m, sizeof(m));
    ck_assert_int_eq(ftruncate(r.fd, 4096), -1); /* sealed */
    raw_still_served(&r);
    raw_close(&r);
    long long now = -1;
    for (int i = 0; i < 300 && (now = aos_test_status_shared_in_use()) != before; i++)
        usleep(10000);
    ck_assert_int_eq(now, before);
    daemon_healthy();
    good_client_works();
}
END_TEST

/* The next notification in the raw client's ring, of kind opcode, within 5 s; fails the test
 * otherwise. Copies at most cap bytes of its payload into out; returns the payload's length (the
 * ring pads messages, so it may be longer than the payload's struct). */
static uint32_t raw_note(struct raw *r, uint32_t opcode, void *out, uint32_t cap)
{
    static uint8_t msg[4096];
    for (int i = 0; i < 500; i++) {
        int size = aos_ring_pop(&r->note, msg, sizeof(msg));
        ck_assert_int_ge(size, 0);
        if (size == 0) {
            aos_ring_wait_data(&r->note, 10000000);
            continue;
        }
        const struct aos_msg_hdr *hdr = (const struct aos_msg_hdr *)msg;
        if (hdr->opcode != opcode)
            continue;
        uint32_t len = (uint32_t)size - (uint32_t)sizeof(*hdr);
        memcpy(out, hdr + 1, len < cap ? len : cap);
        return len;
    }
    ck_abort_msg("no notification %u within 5 s", opcode);
    return 0;
}

START_TEST(test_host_step_failure_reported_after_success)
{
    /* A client that reports its host step failed when its device part completed: the step's event
     * completes all the same (fail_gate.h: only an event that may fail may fail, or its failure
     * could meet a completion in PoCL), and the queue goes on with the written data. */
    struct raw r;
    raw_connect(&r);
    uint64_t ctx = raw_context(&r, raw_fresh_id());
    uint64_t q = raw_queue(&r, ctx);
    uint64_t buffer = raw_buffer(&r, ctx, CL_MEM_READ_WRITE, 4096, NULL);
    uint8_t *data = aos_region_data(&r.region);
    for (int i = 0; i < 64; i++)
        data[i] = (uint8_t)(0x5a ^ i);
    struct aos_req_buffer_rw write = {.enq = {.queue = q, .event = raw_fresh_id()}, .buffer = buffer, .token = 42,
                                      .data = {.off = 0, .len = 64}};
    raw_send(&r, AOS_OP_WRITE_BUFFER, AOS_NO_SLOT, &write, sizeof(write));
    struct aos_note_host_step note;
    ck_assert_uint_ge(raw_note(&r, AOS_NOTE_HOST_STEP, &note, sizeof(note)), sizeof(note));
    ck_assert_uint_eq(note.event, write.enq.event);
    ck_assert_uint_eq(note.token, 42);
    ck_assert_int_eq(note.status, CL_COMPLETE);
    struct aos_req_event_status lie = {.event = write.enq.event, .status = CL_OUT_OF_RESOURCES};
    raw_send(&r, AOS_OP_COMPLETE_HOST_STEP, AOS_NO_SLOT, &lie, sizeof(lie));
    ck_assert_int_eq(raw_wait_status(&r, write.enq.event), CL_SUCCESS);

    memset(data + 1024, 0, 64);
    struct aos_req_buffer_rw read = {.enq = {.queue = q, .blocking = 1}, .buffer = buffer,
                                     .data = {.off = 1024, .len = 64}};
    cl_int status = 1;
    ck_assert(raw_call(&r, AOS_OP_READ_BUFFER_BLOCKING, &read, sizeof(read), &status, NULL));
    ck_assert_int_eq(status, CL_SUCCESS);
    ck_assert_int_eq(memcmp(data + 1024, data, 64), 0);
    raw_still_served(&r);
    raw_close(&r);
    daemon_healthy();
    good_client_works();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("hostile");
    TCase *tc = tcase_create("hostile");
    tcase_add_checked_fixture(tc, setup, good_client_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_unknown_opcodes);
    tcase_add_test(tc, test_bad_lengths_and_slots);
    tcase_add_test(tc, test_inline_reply_larger_than_slot);
    tcase_add_test(tc, test_spans_out_of_range);
    tcase_add_test(tc, test_out_of_range_offsets_are_cl_errors);
    tcase_add_test(tc, test_wrapping_offsets_and_pitches_are_cl_errors);
    tcase_add_test(tc, test_zero_local_size_is_a_cl_error);
    tcase_add_test(tc, test_device_side_queue_is_a_cl_error);
    tcase_add_test(tc, test_image_boxes_past_the_image_are_cl_errors);
    tcase_add_test(tc, test_tampered_request_ring);
    tcase_add_test(tc, test_tampered_notification_ring);
    tcase_add_test(tc, test_socket_misuse);
    tcase_add_test(tc, test_silent_connections_do_not_stall_others);
    tcase_add_test(tc, test_bogus_ids);
    tcase_add_test(tc, test_other_clients_ids);
    tcase_add_test(tc, test_disconnect_with_pending_work);
    tcase_add_test(tc, test_released_queue_with_failed_work);
    tcase_add_test(tc, test_direct_transfer_misuse);
    tcase_add_test(tc, test_direct_transfer_abandoned);
    tcase_add_test(tc, test_host_step_failure_reported_after_success);
    suite_add_tcase(s, tc);
    return aos_test_run_suite(s);
}
