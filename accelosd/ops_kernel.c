/*
 * Kernels: creation (with the argument descriptions the client validates against), cloning, and
 * NDRange launches that carry the arguments changed since the previous launch.
 *
 * Design note. Arguments that name objects (buffers, images, samplers) arrive as client ids and
 * are resolved in the session's table at every launch, not only when they change: the client may
 * have released a buffer after setting it, and the real kernel must never launch with a real
 * object the session no longer holds. A vanished object fails the launch with
 * CL_INVALID_KERNEL_ARGS on its event.
 *
 * Argument kinds come from the real argument info (programs are built with -cl-kernel-arg-info,
 * see ops_program.c). Without it (some binaries) the kind is probed with real clSetKernelArg calls
 * on the fresh kernel, whose arguments are all unset anyway: a local pointer accepts only a NULL
 * value, a global pointer accepts both NULL and a value.
 *
 * Under the fair policy a kernel whose program has an elastic twin (elastic.h) carries the twin's
 * kernel too. Everything the client can query comes from the native kernel; every argument is
 * set on both, and launches go to the twin whenever launch.c can run them exactly.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "accelos/log.h"
#include "accelos/wire_program.h"
#include "elastic.h"
#include "launch.h"
#include "ndrange_shape.h"
#include "ops.h"
#include "trace_native.h"
#include "vendor.h"

#define MAX_ARG_VALUE 65536u
#define PROBE_SIZE 1024u

struct kern_arg {
    uint32_t kind;  /* last kind set (enum aos_arg_kind), AOS_ARG_UNKNOWN when never set */
    uint64_t id;    /* MEM / SAMPLER: client id last set */
    uint64_t local_size; /* LOCAL: bytes */
    void *bound;    /* the real object last passed to clSetKernelArg for id */
};

struct kern_state {
    struct aos_elastic_kernel *twin; /* fair policy: the rewritten kernel, NULL when native */
    uint32_t num_args;
    struct kern_arg args[];
};

static void kernel_dtor(struct aos_handle *h)
{
    struct kern_state *st = h->extra;
    if (h->object)
        NATIVE(h->object, clReleaseKernel)(h->object);
    if (st)
        aos_elastic_kernel_destroy(st->twin);
    free(st);
}

/* Sets an argument on the real kernel and, when it took it, on the twin. A twin that refuses
 * what the native kernel took is dropped: the kernel launches natively from then on. */
static cl_int kernel_set_arg(struct kern_state *st, cl_kernel k, cl_uint index, size_t size, const void *value)
{
    cl_int err = NATIVE(k, clSetKernelArg)(k, index, size, value);
    if (err == CL_SUCCESS && st->twin) {
        cl_int terr = aos_elastic_kernel_set_arg(st->twin, index, size, value);
        if (terr != CL_SUCCESS) {
            aos_log(AOS_LOG_INFO, "kernel", "twin refused argument %u (%d): kernel stays native", index, terr);
            aos_elastic_kernel_destroy(st->twin);
            st->twin = NULL;
        }
    }
    return err;
}

static struct kern_state *kern_state_new(uint32_t num_args)
{
    struct kern_state *st = calloc(1, sizeof(*st) + (size_t)num_args * sizeof(struct kern_arg));
    if (st)
        st->num_args = num_args;
    return st;
}

/* ---- Argument descriptions -------------------------------------------------------------- */

/* Size of an OpenCL C scalar or vector type name, 0 when it is not one (structs, unions). */
static uint32_t type_size(const char *name, uint32_t *flags)
{
    static const struct {
        const char *base;
        uint32_t size;
    } scalars[] = {
        {"char", 1},   {"uchar", 1},  {"unsigned char", 1}, {"short", 2},  {"ushort", 2},
        {"unsigned short", 2},        {"half", 2},          {"int", 4},    {"uint", 4},
        {"unsigned int", 4},          {"float", 4},         {"long", 8},   {"ulong", 8},
        {"unsigned long", 8},         {"double", 8},        {"bool", 1},
    };
    size_t len = strlen(name);
    size_t digits = 0;
    while (digits < len && name[len - 1 - digits] >= '0' && name[len - 1 - digits] <= '9')
        digits++;
    uint32_t width = 1;
    if (digits) {
        width = (uint32_t)atoi(name + len - digits);
        if (width != 2 && width != 3 && width != 4 && width != 8 && width != 16)
            return 0;
    }
    for (size_t i = 0; i < sizeof(scalars) / sizeof(scalars[0]); i++)
        if (strlen(scalars[i].base) == len - digits && !strncmp(name, scalars[i].base, len - digits)) {
            if (width == 3) {
                *flags |= AOS_ARG_F_VEC3;
                width = 4;
            }
            return scalars[i].size * width;
        }
    return 0;
}

static void describe_arg(cl_kernel k, cl_uint i, struct aos_arg_desc *d)
{
    static const uint8_t zeros[PROBE_SIZE];
    cl_kernel_arg_address_qualifier addr = 0;
    char type[256] = {0};
    *d = (struct aos_arg_desc){.kind = AOS_ARG_UNKNOWN};
    if (NATIVE(k, clGetKernelArgInfo)(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof(addr), &addr, NULL) ==
            CL_SUCCESS &&
        NATIVE(k, clGetKernelArgInfo)(k, i, CL_KERNEL_ARG_TYPE_NAME, sizeof(type) - 1, type, NULL) == CL_SUCCESS) {
        d->flags |= AOS_ARG_F_INFO;
        d->address = (uint32_t)addr;
        bool image = !strncmp(type, "image", 5);
        if (addr == CL_KERNEL_ARG_ADDRESS_LOCAL) {
            d->kind = AOS_ARG_LOCAL;
        } else if (addr == CL_KERNEL_ARG_ADDRESS_GLOBAL || addr == CL_KERNEL_ARG_ADDRESS_CONSTANT || image ||
                   !strncmp(type, "pipe", 4)) {
            d->kind = AOS_ARG_MEM;
            if (image)
                d->flags |= AOS_ARG_F_IMAGE;
        } else if (!strcmp(type, "sampler_t")) {
            d->kind = AOS_ARG_SAMPLER;
        } else {
            d->kind = AOS_ARG_VALUE;
            uint32_t size = type_size(type, &d->flags);
            /* Trust the parsed size only when the real runtime agrees. */
            if (size && size <= PROBE_SIZE && NATIVE(k, clSetKernelArg)(k, i, size, zeros) == CL_SUCCESS)
                d->size = size;
            else
                d->flags &= ~AOS_ARG_F_VEC3;
        }
        return;
    }
    bool null_ok = NATIVE(k, clSetKernelArg)(k, i, sizeof(void *), NULL) == CL_SUCCESS;
    bool value_ok = NATIVE(k, clSetKernelArg)(k, i, sizeof(void *), zeros) == CL_SUCCESS;
    if (null_ok)
        d->kind = value_ok ? AOS_ARG_MEM : AOS_ARG_LOCAL;
}

static uint64_t device_wire_id(cl_device_id dev)
{
    for (uint32_t i = 0; i < aos_device_count(); i++)
        if (aos_device_at(i)->device == dev)
            return AOS_DEVICE_ID_BASE + aos_device_at(i)->index;
    return 0;
}

static void describe_device(cl_kernel k, cl_device_id dev, struct aos_kernel_device *d)
{
    size_t v = 0, three[3] = {0};
    cl_uint dims = 0;
    cl_bool nonuni = CL_FALSE;
    *d = (struct aos_kernel_device){.device = device_wire_id(dev)};
    if (NATIVE(k, clGetKernelWorkGroupInfo)(k, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof(v), &v, NULL) == CL_SUCCESS)
        d->wg_size = v;
    if (NATIVE(k, clGetKernelWorkGroupInfo)(k, dev, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof(three), three, NULL) ==
        CL_SUCCESS)
        for (int j = 0; j < 3; j++)
            d->compile_wg[j] = three[j];
    if (NATIVE(dev, clGetDeviceInfo)(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(v), &v, NULL) == CL_SUCCESS)
        d->max_wg = v;
    if (NATIVE(dev, clGetDeviceInfo)(dev, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, sizeof(dims), &dims, NULL) ==
            CL_SUCCESS &&
        dims >= 1 && dims <= 3) {
        d->max_dims = dims;
        size_t items[3] = {0};
        /* Ask for exactly dims entries: the query fails when the buffer is too small. */
        if (NATIVE(dev, clGetDeviceInfo)(dev, CL_DEVICE_MAX_WORK_ITEM_SIZES, dims * sizeof(size_t), items, NULL) ==
            CL_SUCCESS)
            for (cl_uint j = 0; j < dims; j++)
                d->max_items[j] = items[j];
    }
    if (NATIVE(dev, clGetDeviceInfo)(dev, CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, sizeof(nonuni), &nonuni, NULL) ==
        CL_SUCCESS)
        d->non_uniform = nonuni ? 1 : 0;
}

/* Writes the reply payload of a kernel creation. Returns the bytes used, or 0 when it does not
 * fit (*err set). */
static uint32_t describe_kernel(cl_kernel k, cl_program prog, void *out, uint32_t cap, cl_int *err)
{
    cl_uint nargs = 0, ndev = 0;
    cl_device_id devs[AOS_MAX_DEVICES];
    *err = NATIVE(k, clGetKernelInfo)(k, CL_KERNEL_NUM_ARGS, sizeof(nargs), &nargs, NULL);
    if (*err == CL_SUCCESS)
        *err = NATIVE(prog, clGetProgramInfo)(prog, CL_PROGRAM_NUM_DEVICES, sizeof(ndev), &ndev, NULL);
    if (*err == CL_SUCCESS && ndev > AOS_MAX_DEVICES)
        *err = CL_OUT_OF_RESOURCES;
    if (*err == CL_SUCCESS)
        *err = NATIVE(prog, clGetProgramInfo)(prog, CL_PROGRAM_DEVICES, ndev * sizeof(cl_device_id), devs, NULL);
    if (*err != CL_SUCCESS)
        return 0;
    uint64_t need = sizeof(struct aos_kernel_desc) + (uint64_t)nargs * sizeof(struct aos_arg_desc) +
                    (uint64_t)ndev * sizeof(struct aos_kernel_device);
    if (need > cap) {
        *err = CL_OUT_OF_RESOURCES;
        return 0;
    }
    struct aos_kernel_desc *kd = out;
    struct aos_arg_desc *ad = (struct aos_arg_desc *)(kd + 1);
    struct aos_kernel_device *dd = (struct aos_kernel_device *)(ad + nargs);
    kd->num_args = nargs;
    kd->num_devices = ndev;
    for (cl_uint i = 0; i < nargs; i++)
        describe_arg(k, i, &ad[i]);
    for (cl_uint i = 0; i < ndev; i++)
        describe_device(k, devs[i], &dd[i]);
    return (uint32_t)need;
}

/* ---- Creation ------------------------------------------------------------------------------ */

static int op_create_kernel(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    const struct aos_req_create_kernel *r = payload;
    struct aos_tail tail;
    aos_tail_init(&tail, payload, len, sizeof(*r));
    const char *name = aos_tail_take(&tail, r->name_len);
    if (!name || aos_handles_find(&s->handles, r->id, AOS_OBJ_NONE))
        return -EPROTO;
    cl_program prog = aos_handles_object(&s->handles, r->program, AOS_OBJ_PROGRAM);
    if (!prog) {
        aos_reply_status(s, slot, CL_INVALID_PROGRAM);
        return 0;
    }
    char *copy = strndup(name, r->name_len);
    if (!copy) {
        aos_reply_status(s, slot, CL_OUT_OF_HOST_MEMORY);
        return 0;
    }
    cl_int err = CL_SUCCESS;
    cl_kernel k = NATIVE(prog, clCreateKernel)(prog, copy, &err);
    uint32_t used = 0, cap = 0;
    struct aos_kernel_desc *out = aos_reply_payload(s, slot, &cap);
    if (err == CL_SUCCESS)
        used = describe_kernel(k, prog, out, cap, &err);
    struct kern_state *st = NULL;
    if (err == CL_SUCCESS && !(st = kern_state_new(out->num_args)))
        err = CL_OUT_OF_HOST_MEMORY;
    if (err != CL_SUCCESS) {
        free(copy);
        if (k)
            NATIVE(k, clReleaseKernel)(k);
        aos_reply_status(s, slot, err);
        return 0;
    }
    struct aos_elastic_program *twin = aos_program_twin(s, r->program);
    if (twin) {
        st->twin = aos_elastic_kernel_new(twin, copy, out->num_args);
        aos_elastic_program_unref(twin);
    }
    free(copy);
    if (aos_handles_add(&s->handles, r->id, AOS_OBJ_KERNEL, k, st) < 0) {
        NATIVE(k, clReleaseKernel)(k);
        aos_elastic_kernel_destroy(st->twin);
        free(st);
        return -EPROTO;
    }
    if (st->twin)
        atomic_fetch_add(&s->elastic_kernels, 1);
    aos_reply(s, slot, CL_SUCCESS, 0, 0, used);
    return 0;
}

static int op_clone_kernel(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    (void)len;
    const struct aos_req_clone_kernel *r = payload;
    if (aos_handles_find(&s->handles, r->id, AOS_OBJ_NONE))
        return -EPROTO;
    struct aos_handle *h = aos_handles_find(&s->handles, r->source, AOS_OBJ_KERNEL);
    if (!h) {
        aos_reply_status(s, slot, CL_INVALID_KERNEL);
        return 0;
    }
    cl_kernel src = h->object;
    const struct kern_state *sst = h->extra;
    if (!NATIVE(src, clCloneKernel)) {
        aos_reply_status(s, slot, CL_INVALID_OPERATION);
        return 0;
    }
    cl_int err = CL_SUCCESS;
    cl_kernel k = NATIVE(src, clCloneKernel)(src, &err);
    struct kern_state *st = NULL;
    if (err == CL_SUCCESS) {
        size_t size = sizeof(*st) + (size_t)sst->num_args * sizeof(struct kern_arg);
        if ((st = malloc(size))) {
            memcpy(st, sst, size);
            st->twin = aos_elastic_kernel_clone(sst->twin); /* NULL: the clone runs natively */
        } else {
            err = CL_OUT_OF_HOST_MEMORY;
        }
    }
    if (err != CL_SUCCESS) {
        if (k)
            NATIVE(k, clReleaseKernel)(k);
        aos_reply_status(s, slot, err);
        return 0;
    }
    if (aos_handles_add(&s->handles, r->id, AOS_OBJ_KERNEL, k, st) < 0) {
        NATIVE(k, clReleaseKernel)(k);
        aos_elastic_kernel_destroy(st->twin);
        free(st);
        return -EPROTO;
    }
    if (st->twin)
        atomic_fetch_add(&s->elastic_kernels, 1);
    aos_reply_status(s, slot, CL_SUCCESS);
    return 0;
}

/* ---- Launch -------------------------------------------------------------------------------- */

/* Applies one changed argument. Returns CL_SUCCESS, a CL error for the launch, or sets *proto. */
static cl_int arg_apply(struct aos_session *s, cl_kernel k, struct kern_state *st, const struct aos_wire_arg *a,
                        struct aos_tail *tail, bool *proto)
{
    if (a->index >= st->num_args) {
        *proto = true;
        return CL_INVALID_ARG_INDEX;
    }
    struct kern_arg *ka = &st->args[a->index];
    switch (a->kind) {
    case AOS_ARG_VALUE: {
        if (a->size == 0 || a->size > MAX_ARG_VALUE) {
            *proto = true;
            return CL_INVALID_ARG_SIZE;
        }
        uint64_t padded = (a->size + AOS_ARG_VALUE_ALIGN - 1) & ~(uint64_t)(AOS_ARG_VALUE_ALIGN - 1);
        const void *value = aos_tail_take(tail, padded);
        if (!value) {
            *proto = true;
            return CL_INVALID_ARG_SIZE;
        }
        *ka = (struct kern_arg){.kind = AOS_ARG_VALUE};
        return kernel_set_arg(st, k, a->index, (size_t)a->size, value);
    }
    case AOS_ARG_LOCAL:
        *ka = (struct kern_arg){.kind = AOS_ARG_LOCAL, .local_size = a->size};
        return kernel_set_arg(st, k, a->index, (size_t)a->size, NULL);
    case AOS_ARG_MEM:
    case AOS_ARG_SAMPLER: {
        bool mem = a->kind == AOS_ARG_MEM;
        void *obj = NULL;
        if (a->id && !(obj = aos_handles_object(&s->handles, a->id, mem ? AOS_OBJ_MEM : AOS_OBJ_SAMPLER))) {
            *ka = (struct kern_arg){.kind = AOS_ARG_UNKNOWN};
            return mem ? CL_INVALID_MEM_OBJECT : CL_INVALID_SAMPLER;
        }
        *ka = (struct kern_arg){.kind = a->kind, .id = a->id, .bound = obj};
        return kernel_set_arg(st, k, a->index, sizeof(void *), &obj);
    }
    default:
        *proto = true;
        return CL_INVALID_VALUE;
    }
}

/* Re-resolves every object argument so the launch never uses an object the client released. */
static cl_int args_revalidate(struct aos_session *s, cl_kernel k, struct kern_state *st)
{
    for (uint32_t i = 0; i < st->num_args; i++) {
        struct kern_arg *ka = &st->args[i];
        if ((ka->kind != AOS_ARG_MEM && ka->kind != AOS_ARG_SAMPLER) || !ka->id)
            continue;
        void *obj = aos_handles_object(&s->handles, ka->id, ka->kind == AOS_ARG_MEM ? AOS_OBJ_MEM : AOS_OBJ_SAMPLER);
        if (!obj)
            return CL_INVALID_KERNEL_ARGS;
        if (obj != ka->bound) {
            cl_int err = kernel_set_arg(st, k, i, sizeof(void *), &obj);
            if (err != CL_SUCCESS)
                return err;
            ka->bound = obj;
        }
    }
    return CL_SUCCESS;
}

/* Runs the launch on the twin as a logical launch, keeping its argument objects alive. */
static bool launch_elastic(struct aos_session *s, struct aos_enqueue *e, struct kern_state *st,
                           const struct aos_launch_target *t, cl_event *ev, struct aos_logical **logical)
{
    struct aos_logical_held *held = st->num_args ? malloc(st->num_args * sizeof(*held)) : NULL;
    uint32_t n = 0;
    if (st->num_args && !held)
        return false;
    for (uint32_t i = 0; i < st->num_args; i++) {
        if ((st->args[i].kind == AOS_ARG_MEM || st->args[i].kind == AOS_ARG_SAMPLER) && st->args[i].bound)
            held[n++] = (struct aos_logical_held){.object = st->args[i].bound,
                                                  .sampler = st->args[i].kind == AOS_ARG_SAMPLER};
        else if (st->args[i].kind == AOS_ARG_LOCAL)
            held[n++] = (struct aos_logical_held){.local = true, .index = i, .size = (size_t)st->args[i].local_size};
    }
    bool ok = aos_launch_elastic(s, e, st->twin, t, held, n, ev, logical);
    free(held);
    return ok;
}

static int op_enqueue_ndrange(struct aos_session *s, uint32_t slot, const void *payload, uint32_t len)
{
    const struct aos_req_ndrange *r = payload;
    struct aos_tail tail;
    aos_tail_init(&tail, payload, len, sizeof(*r));
    struct aos_enqueue e;
    bool proto = false;
    cl_int err = aos_enqueue_parse(s, payload, &tail, slot, &e, &proto);
    if (proto)
        return -EPROTO;
    cl_int shape_err = aos_ndrange_shape_check(r->work_dim, r->has_offset ? r->offset : NULL, r->global,
                                               r->has_local ? r->local : NULL);
    if (shape_err == CL_INVALID_WORK_DIMENSION) {
        aos_enqueue_done(s, &e, CL_INVALID_WORK_DIMENSION, NULL);
        return 0;
    }
    struct aos_handle *h = aos_handles_find(&s->handles, r->kernel, AOS_OBJ_KERNEL);
    cl_kernel k = h ? h->object : NULL;
    struct kern_state *st = h ? h->extra : NULL;
    if (!h && err == CL_SUCCESS)
        err = CL_INVALID_KERNEL;
    /* Arguments are applied even when the launch fails, so the kernel's state matches the
     * client's, which has marked them sent. */
    for (uint32_t i = 0; i < r->num_args; i++) {
        const struct aos_wire_arg *a = aos_tail_take(&tail, sizeof(*a));
        if (!a) {
            aos_enqueue_done(s, &e, CL_INVALID_VALUE, NULL);
            return -EPROTO;
        }
        if (!h) {
            if (a->kind == AOS_ARG_VALUE &&
                !aos_tail_take(&tail, (a->size + AOS_ARG_VALUE_ALIGN - 1) & ~(uint64_t)(AOS_ARG_VALUE_ALIGN - 1))) {
                aos_enqueue_done(s, &e, CL_INVALID_VALUE, NULL);
                return -EPROTO;
            }
            continue;
        }
        cl_int aerr = arg_apply(s, k, st, a, &tail, &proto);
        if (proto) {
            aos_enqueue_done(s, &e, CL_INVALID_VALUE, NULL);
            return -EPROTO;
        }
        if (err == CL_SUCCESS && aerr != CL_SUCCESS)
            err = aerr;
    }
    if (err == CL_SUCCESS)
        err = args_revalidate(s, k, st);
    if (err == CL_SUCCESS)
        err = shape_err;
    cl_event ev = NULL;
    if (err == CL_SUCCESS) {
        size_t off[3], gws[3], lws[3];
        for (uint32_t d = 0; d < r->work_dim; d++) {
            off[d] = (size_t)r->offset[d];
            gws[d] = (size_t)r->global[d];
            lws[d] = (size_t)r->local[d];
        }
        struct aos_launch_shape shape = {.work_dim = r->work_dim, .offset = r->has_offset ? off : NULL,
                                         .global = gws, .local = r->has_local ? lws : NULL};
        struct aos_logical *logical = NULL;
        struct aos_launch_target target;
        bool rewritten = st->twin && aos_launch_target(e.queue, st->twin, &shape, &target);
        struct aos_solo_launch solo;
        if (rewritten && aos_launch_solo(s, e.queue, st->twin, k, &shape, &target, e.num_wait, e.wait, &solo)) {
            atomic_fetch_add(&s->solo_launches, 1);
            aos_trace_native_launch(s, k, solo.command, r->work_dim, gws, shape.local);
            aos_enqueue_done_solo(s, &e, &solo);
            return 0;
        }
        if (rewritten && launch_elastic(s, &e, st, &target, &ev, &logical)) {
            atomic_fetch_add(&s->elastic_launches, 1);
            aos_enqueue_done_logical(s, &e, ev, logical);
            return 0;
        }
        err = NATIVE(e.queue, clEnqueueNDRangeKernel)(e.queue, k, r->work_dim, shape.offset, gws, shape.local,
                                                      e.num_wait, e.wait, &ev);
        if (err == CL_SUCCESS)
            aos_trace_native_launch(s, k, ev, r->work_dim, gws, shape.local);
    }
    aos_enqueue_done(s, &e, err, ev);
    return 0;
}

void aos_ops_kernel_init(void)
{
    aos_handles_set_dtor(AOS_OBJ_KERNEL, kernel_dtor);
}

const struct aos_op_entry aos_ops_kernel[] = {
    {AOS_OP_CREATE_KERNEL, sizeof(struct aos_req_create_kernel), true, op_create_kernel, "create_kernel"},
    {AOS_OP_CLONE_KERNEL, sizeof(struct aos_req_clone_kernel), true, op_clone_kernel, "clone_kernel"},
    {AOS_OP_ENQUEUE_NDRANGE, sizeof(struct aos_req_ndrange), false, op_enqueue_ndrange, "enqueue_ndrange"},
    {0, 0, false, NULL, NULL},
};
