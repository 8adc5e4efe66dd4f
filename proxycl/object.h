/*
 * Client-side objects. Every handle ProxyCL gives the application points at one of these; the
 * ICD loader requires the dispatch table pointer first.
 *
 * Validation never dereferences an unknown pointer: handles are looked up in a registry of live
 * objects first, so dangling, foreign or garbage handles get the spec's CL_INVALID_* code. Freed
 * objects sit in a quarantine for a while before their memory is reused, because the loader itself
 * reads the dispatch pointer of whatever handle the application passes.
 *
 * Two counts: refs is the application's reference count (what CL_*_REFERENCE_COUNT reports and
 * what validation requires to be non-zero); holds counts internal references from children
 * (a buffer holds its context, a kernel its program). Memory goes when both reach zero.
 */
#ifndef PROXYCL_OBJECT_H
#define PROXYCL_OBJECT_H

#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_0_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_2_0_APIS
#include <CL/cl.h>
#include <CL/cl_icd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "accelos/wire_ops.h"

struct aos_object {
    const cl_icd_dispatch *dispatch; /* must stay first */
    uint32_t magic;
    uint32_t type;                   /* enum aos_obj_type */
    uint64_t id;                     /* wire id */
    _Atomic uint32_t refs;
    _Atomic uint32_t holds;
    _Atomic bool destroyed;          /* the last release and the last unhold may both see zero */
    void (*cleanup)(struct aos_object *obj); /* frees type-specific parts, drops holds on parents */
};

#define AOS_OBJECT_MAGIC 0x61636c6fu
#define AOS_OBJECT_DEAD 0xdeadc10du

/* The single dispatch table every ProxyCL object points at (icd.c). */
extern const cl_icd_dispatch aos_dispatch_table;

/* Allocates a zeroed object of size bytes with one application reference, a fresh wire id and
 * registers it. Returns NULL on allocation failure. */
void *aos_object_new(uint32_t type, size_t size, void (*cleanup)(struct aos_object *));
/* Like aos_object_new with a fixed id (platform and devices). */
void *aos_object_new_with_id(uint32_t type, size_t size, uint64_t id, void (*cleanup)(struct aos_object *));

/* True when handle is a live object of the given type with refs > 0. */
bool aos_object_valid(const void *handle, uint32_t type);
/* True when handle is a live object of the given type (refs may be 0 but still held). */
bool aos_object_alive(const void *handle, uint32_t type);

/* Application retain/release: adjusts refs and mirrors it to the daemon (async, no round trip).
 * Return CL_SUCCESS or invalid_code when the handle is not valid. */
cl_int aos_object_retain(void *handle, uint32_t type, cl_int invalid_code);
cl_int aos_object_release(void *handle, uint32_t type, cl_int invalid_code);

/* A temporary application reference for the library's own use, taken only while the application
 * still holds one (refs > 0), so it never revives an object being destroyed. Not mirrored to the
 * daemon: it only keeps the client object alive. Returns false when refs was already 0.
 * aos_object_put drops it and destroys the object when it was the last reference. */
bool aos_object_get(void *handle);
void aos_object_put(void *handle);

/* Internal holds (children on parents). */
void aos_object_hold(void *handle);
void aos_object_unhold(void *handle);

/* Fresh wire id for an object the daemon will create. */
uint64_t aos_new_id(void);

/* Drops an object the daemon was never told about: no RELEASE is mirrored. */
void aos_object_discard(void *handle);

#endif
