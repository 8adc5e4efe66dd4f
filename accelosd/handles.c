#include "handles.h"

#include <errno.h>
#include <stdlib.h>

#include "accelos/wire_core.h"

#define DELETED UINT64_MAX

static aos_handle_dtor dtors[AOS_OBJ_TYPE_COUNT];

void aos_handles_set_dtor(uint32_t type, aos_handle_dtor dtor)
{
    if (type < AOS_OBJ_TYPE_COUNT)
        dtors[type] = dtor;
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

void aos_handles_init(struct aos_handle_table *t)
{
    t->slots = NULL;
    t->capacity = 0;
    t->count = 0;
    t->tombstones = 0;
}

static void run_dtor(struct aos_handle *h)
{
    if (h->type < AOS_OBJ_TYPE_COUNT && dtors[h->type])
        dtors[h->type](h);
}

void aos_handles_destroy(struct aos_handle_table *t)
{
    /* Events and kernels first, then programs, memory, queues, contexts: children before parents
     * keeps each real release cheap (the real runtime also counts, so order is not correctness). */
    static const uint32_t order[] = {AOS_OBJ_EVENT, AOS_OBJ_KERNEL, AOS_OBJ_PROGRAM, AOS_OBJ_SAMPLER,
                                     AOS_OBJ_MEM, AOS_OBJ_QUEUE, AOS_OBJ_CONTEXT};
    for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++)
        for (uint32_t i = 0; i < t->capacity; i++) {
            struct aos_handle *h = &t->slots[i];
            if (h->id != 0 && h->id != DELETED && h->type == order[k]) {
                run_dtor(h);
                h->id = DELETED;
            }
        }
    free(t->slots);
    aos_handles_init(t);
}

void aos_handles_for_each(struct aos_handle_table *t, uint32_t type, void (*fn)(struct aos_handle *h, void *ctx),
                          void *ctx)
{
    for (uint32_t i = 0; i < t->capacity; i++) {
        struct aos_handle *h = &t->slots[i];
        if (h->id != 0 && h->id != DELETED && (type == AOS_OBJ_NONE || h->type == type))
            fn(h, ctx);
    }
}

static struct aos_handle *probe(struct aos_handle_table *t, uint64_t id)
{
    if (!t->capacity)
        return NULL;
    uint32_t mask = t->capacity - 1;
    for (uint32_t i = (uint32_t)mix(id) & mask, n = 0; n < t->capacity; i = (i + 1) & mask, n++) {
        struct aos_handle *h = &t->slots[i];
        if (h->id == id)
            return h;
        if (h->id == 0)
            return NULL;
    }
    return NULL;
}

static int grow(struct aos_handle_table *t)
{
    uint32_t cap = t->capacity ? t->capacity * 2 : 64;
    if (t->count * 2 < t->capacity)
        cap = t->capacity; /* mostly tombstones: rehash in place size */
    struct aos_handle *slots = calloc(cap, sizeof(*slots));
    if (!slots)
        return -ENOMEM;
    for (uint32_t i = 0; i < t->capacity; i++) {
        struct aos_handle *h = &t->slots[i];
        if (h->id == 0 || h->id == DELETED)
            continue;
        uint32_t j = (uint32_t)mix(h->id) & (cap - 1);
        while (slots[j].id)
            j = (j + 1) & (cap - 1);
        slots[j] = *h;
    }
    free(t->slots);
    t->slots = slots;
    t->capacity = cap;
    t->tombstones = 0;
    return 0;
}

int aos_handles_add(struct aos_handle_table *t, uint64_t id, uint32_t type, void *object, void *extra)
{
    if (id < AOS_FIRST_CLIENT_ID || id == DELETED)
        return -EINVAL;
    if (probe(t, id))
        return -EEXIST;
    if ((t->count + t->tombstones + 1) * 4 >= t->capacity * 3 && grow(t) < 0)
        return -ENOMEM;
    uint32_t mask = t->capacity - 1;
    uint32_t i = (uint32_t)mix(id) & mask;
    while (t->slots[i].id != 0 && t->slots[i].id != DELETED)
        i = (i + 1) & mask;
    if (t->slots[i].id == DELETED)
        t->tombstones--;
    t->slots[i] = (struct aos_handle){.id = id, .type = type, .refs = 1, .object = object, .extra = extra};
    t->count++;
    return 0;
}

struct aos_handle *aos_handles_find(struct aos_handle_table *t, uint64_t id, uint32_t type)
{
    if (id == 0 || id == DELETED)
        return NULL;
    struct aos_handle *h = probe(t, id);
    if (!h || (type != AOS_OBJ_NONE && h->type != type))
        return NULL;
    return h;
}

void *aos_handles_object(struct aos_handle_table *t, uint64_t id, uint32_t type)
{
    struct aos_handle *h = aos_handles_find(t, id, type);
    return h ? h->object : NULL;
}

int aos_handles_retain(struct aos_handle_table *t, uint64_t id, uint32_t type)
{
    struct aos_handle *h = aos_handles_find(t, id, type);
    if (!h || h->refs == UINT32_MAX)
        return -ENOENT;
    h->refs++;
    return 0;
}

int aos_handles_release(struct aos_handle_table *t, uint64_t id, uint32_t type)
{
    struct aos_handle *h = aos_handles_find(t, id, type);
    if (!h)
        return -ENOENT;
    if (--h->refs > 0)
        return 0;
    run_dtor(h);
    h->id = DELETED;
    h->object = NULL;
    h->extra = NULL;
    t->count--;
    t->tombstones++;
    return 0;
}
