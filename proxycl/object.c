#include "object.h"

#include <stdlib.h>
#include <string.h>

#include "accelos/wire_core.h"
#include "conn.h"

/* Registry of live objects: an open-addressing set of pointers. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static uintptr_t *registry;
static size_t registry_cap, registry_count, registry_tombs;
#define TOMB ((uintptr_t)1)

/* Freed objects wait here before their memory is returned (see object.h). */
#define QUARANTINE 4096
static struct aos_object *quarantine[QUARANTINE];
static size_t quarantine_next;

static _Atomic uint64_t next_id = AOS_FIRST_CLIENT_ID;

uint64_t aos_new_id(void) { return atomic_fetch_add(&next_id, 1); }

static size_t hash_ptr(uintptr_t p) { return (size_t)((p >> 4) * 0x9e3779b97f4a7c15ull); }

static bool registry_grow(void)
{
    size_t cap = registry_cap ? registry_cap * 2 : 1024;
    if (registry_count * 2 < registry_cap)
        cap = registry_cap;
    uintptr_t *slots = calloc(cap, sizeof(*slots));
    if (!slots)
        return false;
    for (size_t i = 0; i < registry_cap; i++) {
        uintptr_t p = registry[i];
        if (p <= TOMB)
            continue;
        size_t j = hash_ptr(p) & (cap - 1);
        while (slots[j])
            j = (j + 1) & (cap - 1);
        slots[j] = p;
    }
    free(registry);
    registry = slots;
    registry_cap = cap;
    registry_tombs = 0;
    return true;
}

static bool registry_add(const void *obj)
{
    pthread_mutex_lock(&registry_lock);
    bool ok = true;
    if ((registry_count + registry_tombs + 1) * 4 >= registry_cap * 3)
        ok = registry_grow();
    if (ok) {
        size_t i = hash_ptr((uintptr_t)obj) & (registry_cap - 1);
        while (registry[i] > TOMB)
            i = (i + 1) & (registry_cap - 1);
        if (registry[i] == TOMB)
            registry_tombs--;
        registry[i] = (uintptr_t)obj;
        registry_count++;
    }
    pthread_mutex_unlock(&registry_lock);
    return ok;
}

static size_t registry_find_locked(const void *obj)
{
    if (!registry_cap)
        return SIZE_MAX;
    for (size_t i = hash_ptr((uintptr_t)obj) & (registry_cap - 1), n = 0; n < registry_cap;
         i = (i + 1) & (registry_cap - 1), n++) {
        if (registry[i] == (uintptr_t)obj)
            return i;
        if (!registry[i])
            return SIZE_MAX;
    }
    return SIZE_MAX;
}

static void registry_remove(const void *obj)
{
    pthread_mutex_lock(&registry_lock);
    size_t i = registry_find_locked(obj);
    if (i != SIZE_MAX) {
        registry[i] = TOMB;
        registry_count--;
        registry_tombs++;
    }
    pthread_mutex_unlock(&registry_lock);
}

bool aos_object_alive(const void *handle, uint32_t type)
{
    if (!handle)
        return false;
    pthread_mutex_lock(&registry_lock);
    bool found = registry_find_locked(handle) != SIZE_MAX;
    pthread_mutex_unlock(&registry_lock);
    if (!found)
        return false;
    const struct aos_object *o = handle;
    return o->magic == AOS_OBJECT_MAGIC && o->type == type;
}

bool aos_object_valid(const void *handle, uint32_t type)
{
    return aos_object_alive(handle, type) && atomic_load(&((const struct aos_object *)handle)->refs) > 0;
}

void *aos_object_new_with_id(uint32_t type, size_t size, uint64_t id, void (*cleanup)(struct aos_object *))
{
    struct aos_object *o = calloc(1, size);
    if (!o)
        return NULL;
    o->dispatch = &aos_dispatch_table;
    o->magic = AOS_OBJECT_MAGIC;
    o->type = type;
    o->id = id;
    o->cleanup = cleanup;
    atomic_init(&o->refs, 1);
    atomic_init(&o->holds, 0);
    atomic_init(&o->destroyed, false);
    if (!registry_add(o)) {
        free(o);
        return NULL;
    }
    return o;
}

void *aos_object_new(uint32_t type, size_t size, void (*cleanup)(struct aos_object *))
{
    return aos_object_new_with_id(type, size, aos_new_id(), cleanup);
}

static void destroy(struct aos_object *o)
{
    registry_remove(o);
    if (o->cleanup)
        o->cleanup(o);
    o->magic = AOS_OBJECT_DEAD;
    pthread_mutex_lock(&registry_lock);
    struct aos_object *old = quarantine[quarantine_next];
    quarantine[quarantine_next] = o;
    quarantine_next = (quarantine_next + 1) % QUARANTINE;
    pthread_mutex_unlock(&registry_lock);
    free(old);
}

/* The application's last release and a notification thread's last unhold can both find refs and
 * holds at zero (test_api_fuzz found the double free): one of them destroys. The quarantine keeps
 * o readable for the other. */
static void destroy_once(struct aos_object *o)
{
    if (!atomic_exchange(&o->destroyed, true))
        destroy(o);
}

static void maybe_destroy(struct aos_object *o)
{
    if (atomic_load(&o->refs) == 0 && atomic_load(&o->holds) == 0)
        destroy_once(o);
}

bool aos_object_get(void *handle)
{
    struct aos_object *o = handle;
    uint32_t refs = atomic_load(&o->refs);
    do {
        if (refs == 0)
            return false;
    } while (!atomic_compare_exchange_weak(&o->refs, &refs, refs + 1));
    return true;
}

void aos_object_put(void *handle)
{
    struct aos_object *o = handle;
    if (atomic_fetch_sub(&o->refs, 1) == 1)
        maybe_destroy(o);
}

void aos_object_hold(void *handle)
{
    atomic_fetch_add(&((struct aos_object *)handle)->holds, 1);
}

void aos_object_unhold(void *handle)
{
    struct aos_object *o = handle;
    if (atomic_fetch_sub(&o->holds, 1) == 1 && atomic_load(&o->refs) == 0)
        destroy_once(o);
}

static void mirror(uint32_t opcode, const struct aos_object *o)
{
    if (o->type < AOS_OBJ_CONTEXT)
        return; /* platform and devices are not reference counted by the daemon */
    struct aos_req_object r = {.type = o->type, .id = o->id};
    aos_send(opcode, &r, sizeof(r));
}

cl_int aos_object_retain(void *handle, uint32_t type, cl_int invalid_code)
{
    if (!aos_object_valid(handle, type))
        return invalid_code;
    struct aos_object *o = handle;
    atomic_fetch_add(&o->refs, 1);
    mirror(AOS_OP_RETAIN, o);
    return CL_SUCCESS;
}

cl_int aos_object_release(void *handle, uint32_t type, cl_int invalid_code)
{
    if (!aos_object_valid(handle, type))
        return invalid_code;
    struct aos_object *o = handle;
    uint32_t refs = atomic_load(&o->refs);
    do {
        if (refs == 0)
            return invalid_code; /* lost a race with another releasing thread */
    } while (!atomic_compare_exchange_weak(&o->refs, &refs, refs - 1));
    mirror(AOS_OP_RELEASE, o);
    if (refs == 1)
        maybe_destroy(o);
    return CL_SUCCESS;
}

void aos_object_discard(void *handle)
{
    struct aos_object *o = handle;
    atomic_store(&o->refs, 0);
    maybe_destroy(o);
}
