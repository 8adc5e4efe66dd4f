/*
 * Per-client object table: client-chosen 64-bit ids -> real OpenCL objects.
 * Only the client's service thread reads or changes a table, so it needs no lock. Lookups check
 * the type, so an id of the wrong kind is as invalid as an unknown one.
 */
#ifndef ACCELOSD_HANDLES_H
#define ACCELOSD_HANDLES_H

#include <stdint.h>

#include "accelos/wire_ops.h"

struct aos_handle {
    uint64_t id;     /* 0: empty bucket; UINT64_MAX: deleted */
    uint32_t type;   /* enum aos_obj_type */
    uint32_t refs;   /* the client's references */
    void *object;    /* the real cl_* object (one real reference held) */
    void *extra;     /* per-type daemon data, freed by the type's destructor */
};

/* Called when the client's last reference goes: drops the real object and frees extra. */
typedef void (*aos_handle_dtor)(struct aos_handle *handle);

struct aos_handle_table {
    struct aos_handle *slots;
    uint32_t capacity;  /* power of two */
    uint32_t count;
    uint32_t tombstones;
};

void aos_handles_init(struct aos_handle_table *t);
/* Runs every live handle's destructor, then frees the table. */
void aos_handles_destroy(struct aos_handle_table *t);

/* Registers a new id with one client reference. -EEXIST when the id is taken, -EINVAL when the id
 * is outside the client's range, -ENOMEM. On failure the caller still owns object/extra. */
int aos_handles_add(struct aos_handle_table *t, uint64_t id, uint32_t type, void *object, void *extra);
/* Finds an id of the given type (AOS_OBJ_NONE: any type), or NULL. */
struct aos_handle *aos_handles_find(struct aos_handle_table *t, uint64_t id, uint32_t type);
/* The real object behind id if it has the given type, else NULL. */
void *aos_handles_object(struct aos_handle_table *t, uint64_t id, uint32_t type);
/* Drops one client reference; at zero runs the destructor and removes the id. -ENOENT if unknown. */
int aos_handles_release(struct aos_handle_table *t, uint64_t id, uint32_t type);
int aos_handles_retain(struct aos_handle_table *t, uint64_t id, uint32_t type);

/* Calls fn for every live handle of the given type (AOS_OBJ_NONE: all). fn must not add or
 * remove handles. */
void aos_handles_for_each(struct aos_handle_table *t, uint32_t type, void (*fn)(struct aos_handle *h, void *ctx),
                          void *ctx);

/* Destructors per type are registered once at start-up by each ops_*.c. */
void aos_handles_set_dtor(uint32_t type, aos_handle_dtor dtor);

#endif
