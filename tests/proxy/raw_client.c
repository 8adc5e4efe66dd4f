/* A raw client for the hostile-client tests (raw_client.h). */
#include "raw_client.h"

#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "accelos/futex.h"
#include "accelos/sock.h"
#include "accelos/wire.h"
#include "accelos/wire_core.h"
#include "accelos/wire_mem.h"
#include "accelos/wire_program.h"
#include "daemon_status.h"

void raw_connect(struct raw *r)
{
    r->sock = aos_sock_connect(aos_test_socket_path());
    ck_assert_int_ge(r->sock, 0);
    struct aos_hello hello = {.magic = AOS_WIRE_MAGIC, .version = AOS_WIRE_VERSION, .kind = AOS_HELLO_CLIENT};
    ck_assert_int_eq(aos_sock_send(r->sock, &hello, sizeof(hello), -1), 0);
    struct aos_welcome welcome;
    int fd = -1;
    ck_assert_int_eq(aos_sock_recv(r->sock, &welcome, sizeof(welcome), &fd, 5000), 0);
    ck_assert_int_eq(welcome.status, 0);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(aos_region_attach(&r->region, fd, welcome.region_size), 0);
    r->fd = fd;
    aos_region_ring(&r->region, &r->req, &r->note, 0);
}

void raw_close(struct raw *r)
{
    aos_region_unmap(&r->region);
    close(r->fd);
    close(r->sock);
}

bool raw_hung_up(struct raw *r, int timeout_ms)
{
    uint64_t deadline = aos_now_ns() + (uint64_t)timeout_ms * 1000000u;
    for (;;) {
        struct pollfd p = {.fd = r->sock, .events = POLLIN | POLLRDHUP};
        uint64_t now = aos_now_ns();
        int left = now >= deadline ? 0 : (int)((deadline - now) / 1000000u);
        int n = poll(&p, 1, left);
        if (n > 0 && (p.revents & (POLLHUP | POLLRDHUP | POLLERR)))
            return true;
        if (n > 0 && (p.revents & POLLIN)) {
            char c;
            if (recv(r->sock, &c, 1, MSG_DONTWAIT) == 0)
                return true;
        }
        if (n == 0 || now >= deadline)
            return false;
    }
}

void raw_send(struct raw *r, uint32_t opcode, uint32_t slot, const void *payload, uint32_t len)
{
    int err = 0;
    void *p = aos_ring_reserve(&r->req, len, &err);
    ck_assert_msg(p != NULL, "ring reserve: %d", err);
    if (len)
        memcpy(p, payload, len);
    aos_ring_commit(&r->req, opcode, slot, 0);
}

enum raw_outcome raw_call_within(struct raw *r, uint32_t opcode, const void *payload, uint32_t len, int timeout_ms,
                                 cl_int *status, uint64_t *value)
{
    struct aos_slot *slot = aos_region_slot(&r->region, 0);
    atomic_store(&slot->state, AOS_SLOT_PENDING);
    raw_send(r, opcode, 0, payload, len);
    uint64_t deadline = aos_now_ns() + (uint64_t)timeout_ms * 1000000u;
    while (atomic_load(&slot->state) != AOS_SLOT_DONE) {
        if (raw_hung_up(r, 1))
            return RAW_HUNG_UP;
        if (aos_now_ns() >= deadline)
            return RAW_NO_ANSWER;
    }
    *status = slot->status;
    if (value)
        *value = slot->value;
    atomic_store(&slot->state, AOS_SLOT_FREE);
    return RAW_ANSWERED;
}

bool raw_call(struct raw *r, uint32_t opcode, const void *payload, uint32_t len, cl_int *status, uint64_t *value)
{
    enum raw_outcome o = raw_call_within(r, opcode, payload, len, 5000, status, value);
    ck_assert_msg(o != RAW_NO_ANSWER, "no answer to opcode 0x%x", opcode);
    return o == RAW_ANSWERED;
}

void raw_still_served(struct raw *r)
{
    cl_int status = 1;
    ck_assert_msg(raw_call(r, AOS_OP_NOP, NULL, 0, &status, NULL), "the daemon dropped a client that did nothing wrong");
    ck_assert_int_eq(status, CL_SUCCESS);
}

static _Atomic uint64_t raw_next_id = AOS_FIRST_CLIENT_ID + 0x1000000;

uint64_t raw_fresh_id(void)
{
    return atomic_fetch_add(&raw_next_id, 1);
}

uint64_t raw_context(struct raw *r, uint64_t id)
{
    struct {
        struct aos_req_create_context c;
        uint64_t device;
    } q = {.c = {.id = id, .num_devices = 1}, .device = AOS_DEVICE_ID_BASE};
    cl_int status;
    ck_assert(raw_call(r, AOS_OP_CREATE_CONTEXT, &q, sizeof(q), &status, NULL));
    ck_assert_int_eq(status, CL_SUCCESS);
    return id;
}

uint64_t raw_queue(struct raw *r, uint64_t context)
{
    struct aos_req_create_queue q = {.id = raw_fresh_id(), .context = context, .device = AOS_DEVICE_ID_BASE};
    cl_int status;
    ck_assert(raw_call(r, AOS_OP_CREATE_QUEUE, &q, sizeof(q), &status, NULL));
    ck_assert_int_eq(status, CL_SUCCESS);
    return q.id;
}

uint64_t raw_queue_with(struct raw *r, uint64_t context, uint64_t properties, cl_int *status)
{
    struct {
        struct aos_req_create_queue q;
        uint64_t pair[2];
    } req = {.q = {.id = raw_fresh_id(), .context = context, .device = AOS_DEVICE_ID_BASE, .num_props = 1},
             .pair = {CL_QUEUE_PROPERTIES, properties}};
    ck_assert(raw_call(r, AOS_OP_CREATE_QUEUE, &req, sizeof(req), status, NULL));
    return req.q.id;
}

uint64_t raw_buffer(struct raw *r, uint64_t context, uint64_t flags, uint64_t size, uint64_t *shared)
{
    struct aos_req_create_buffer buf = {.id = raw_fresh_id(), .context = context, .flags = flags, .size = size};
    cl_int status;
    ck_assert(raw_call(r, AOS_OP_CREATE_BUFFER, &buf, sizeof(buf), &status, shared));
    ck_assert_int_eq(status, CL_SUCCESS);
    return buf.id;
}

uint64_t raw_kernel(struct raw *r, uint64_t context, const char *source, const char *name, uint64_t *program)
{
    uint32_t len = (uint32_t)strlen(source), name_len = (uint32_t)strlen(name);
    if (len > r->region.layout.data_size || name_len > 15)
        return 0;
    memcpy(aos_region_data(&r->region), source, len);
    struct aos_req_create_program_blob prog = {.id = raw_fresh_id(), .context = context, .len = len,
                                               .span = {.off = 0, .len = len}};
    struct aos_req_build build = {.program = prog.id, .context = context};
    struct {
        struct aos_req_create_kernel k;
        char name[16];
    } kernel = {.k = {.id = raw_fresh_id(), .program = prog.id, .name_len = name_len}};
    memcpy(kernel.name, name, name_len);
    const void *requests[] = {&prog, &build, &kernel};
    const uint32_t opcodes[] = {AOS_OP_CREATE_PROGRAM_SOURCE, AOS_OP_BUILD_PROGRAM, AOS_OP_CREATE_KERNEL};
    const uint32_t lens[] = {sizeof(prog), sizeof(build), sizeof(kernel)};
    for (int i = 0; i < 3; i++) {
        cl_int status = CL_SUCCESS;
        if (raw_call_within(r, opcodes[i], requests[i], lens[i], 60000, &status, NULL) != RAW_ANSWERED ||
            status != CL_SUCCESS)
            return 0;
    }
    *program = prog.id;
    return kernel.k.id;
}

void daemon_healthy(void)
{
    ck_assert_msg(aos_test_daemon_alive(), "the daemon died");
    char text[256];
    aos_test_status_text(text, sizeof(text));
    ck_assert_int_gt(strlen(text), 0);
    ck_assert_ptr_nonnull(strstr(text, "accelosd "));
}
