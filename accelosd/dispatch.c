/* Opcode-indexed dispatch with per-opcode size and slot checks before any handler runs. */
#include <errno.h>
#include <string.h>

#include "accelos/log.h"
#include "ops.h"

#define OPCODE_LIMIT 0x0900u

static const struct aos_op_entry *table[OPCODE_LIMIT];

static void add_all(const struct aos_op_entry *entries)
{
    for (const struct aos_op_entry *e = entries; e && e->opcode; e++)
        if (e->opcode < OPCODE_LIMIT)
            table[e->opcode] = e;
}

void aos_dispatch_init(void)
{
    aos_ops_core_init();
    aos_ops_mem_init();
    aos_ops_image_init();
    aos_ops_program_init();
    aos_ops_kernel_init();
    aos_ops_event_init();
    const struct aos_op_entry *areas[] = {aos_ops_core, aos_ops_queue, aos_ops_mem, aos_ops_image,
                                          aos_ops_program, aos_ops_kernel, aos_ops_event};
    for (size_t i = 0; i < sizeof(areas) / sizeof(areas[0]); i++)
        add_all(areas[i]);
}

int aos_dispatch(struct aos_session *s, const void *msg, uint32_t size)
{
    const struct aos_msg_hdr *hdr = msg;
    const struct aos_op_entry *e = hdr->opcode < OPCODE_LIMIT ? table[hdr->opcode] : NULL;
    uint32_t len = size - (uint32_t)sizeof(*hdr);
    if (!e) {
        aos_log(AOS_LOG_WARN, "dispatch", "unknown opcode 0x%x", hdr->opcode);
        return -EPROTO;
    }
    const char *why = NULL;
    if (len < e->min_len)
        why = "payload shorter than the fixed part";
    else if (e->sync != (hdr->slot != AOS_NO_SLOT))
        why = e->sync ? "synchronous call without a reply slot" : "asynchronous call with a reply slot";
    else if (e->sync && hdr->slot >= s->region.layout.slot_count)
        why = "reply slot out of range";
    if (why) {
        aos_log(AOS_LOG_WARN, "dispatch", "client %llu: %s (0x%x): %s", (unsigned long long)s->serial,
                e->name ? e->name : "?", hdr->opcode, why);
        return -EPROTO;
    }
    int rc = e->fn(s, hdr->slot, hdr + 1, len);
    if (rc < 0)
        aos_log(AOS_LOG_WARN, "dispatch", "client %llu: %s (0x%x): rejected as malformed",
                (unsigned long long)s->serial, e->name ? e->name : "?", hdr->opcode);
    return rc;
}

void aos_tail_init(struct aos_tail *t, const void *payload, uint32_t len, uint32_t fixed)
{
    t->at = (const uint8_t *)payload + fixed;
    t->left = len - fixed;
}

const void *aos_tail_take(struct aos_tail *t, uint64_t n)
{
    if (n > t->left)
        return NULL;
    const void *p = t->at;
    t->at += n;
    t->left -= (uint32_t)n;
    return p;
}

void aos_async_error(struct aos_session *s, const char *op, cl_int err)
{
    aos_log(AOS_LOG_DEBUG, "dispatch", "client %llu: %s failed with %d", (unsigned long long)s->serial, op, err);
}

/* Areas not yet present in a build fall back to empty tables. */
#define WEAK_AREA(name)                                                                                    \
    __attribute__((weak)) const struct aos_op_entry aos_ops_##name[] = {{0, 0, false, NULL, NULL}};      \
    __attribute__((weak)) void aos_ops_##name##_init(void) {}
WEAK_AREA(mem)
WEAK_AREA(image)
WEAK_AREA(program)
WEAK_AREA(kernel)
