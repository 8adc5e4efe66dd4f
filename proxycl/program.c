/*
 * Programs: creation, build / compile / link, build info and binaries.
 *
 * Design note. Sources, binaries and options go inline in the request when they fit, else through
 * a staging span. A build with a callback is asynchronous: the daemon answers as soon as the
 * build has started on its worker thread, and AOS_NOTE_BUILD_DONE later brings back the token,
 * which is the address of the client's callback record; the notification thread then runs the
 * application's callback in this process. While any build of a program is in flight, the client
 * answers CL_PROGRAM_BUILD_STATUS itself (CL_BUILD_IN_PROGRESS) so the query never waits on the
 * real compiler's lock. Link runs synchronously in the daemon; its callback runs here before
 * clLinkProgram returns, which the spec allows.
 *
 * Handle-valued info (context, devices, binaries) is answered here: real handles never leave the
 * daemon.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "accelos/wire_program.h"
#include "conn.h"
#include "notify.h"
#include "types.h"

cl_platform_id aos_platform(void);

struct build_cb {
    void(CL_CALLBACK *fn)(cl_program, void *);
    void *user_data;
    cl_program program; /* held until the callback ran */
};

/* A piece of a bulk part (source string, binary, options). */
struct piece {
    const void *p;
    size_t len;
};

static void program_cleanup(struct aos_object *obj)
{
    cl_program p = (cl_program)obj;
    free(p->devices);
    pthread_mutex_destroy(&p->lock);
    if (p->context)
        aos_object_unhold(p->context);
}

/* Drops a program the daemon never learned about. */
static void program_drop_local(cl_program p)
{
    atomic_store(&p->obj.refs, 0);
    aos_object_hold(p);
    aos_object_unhold(p);
}

/* Creates the client object for a program on devs (NULL: all of the context's devices). */
static cl_program program_new(cl_context ctx, cl_uint num_devices, const cl_device_id *devs)
{
    cl_program p = aos_object_new(AOS_OBJ_PROGRAM, sizeof(struct _cl_program), program_cleanup);
    if (!p)
        return NULL;
    pthread_mutex_init(&p->lock, NULL);
    if (!devs) {
        num_devices = ctx->num_devices;
        devs = ctx->devices;
    }
    p->devices = malloc(num_devices * sizeof(cl_device_id));
    if (!p->devices) {
        program_drop_local(p);
        return NULL;
    }
    memcpy(p->devices, devs, num_devices * sizeof(cl_device_id));
    p->num_devices = num_devices;
    p->context = ctx;
    aos_object_hold(ctx);
    return p;
}

static bool context_has_device(cl_context ctx, cl_device_id d)
{
    for (cl_uint i = 0; i < ctx->num_devices; i++)
        if (ctx->devices[i] == d)
            return true;
    return false;
}

static bool program_has_device(cl_program p, cl_device_id d)
{
    for (cl_uint i = 0; i < p->num_devices; i++)
        if (p->devices[i] == d)
            return true;
    return false;
}

/* Validates a (num, list) device pair against the context (list NULL with num 0 allowed when
 * optional). */
static cl_int check_device_list(cl_context ctx, cl_uint num, const cl_device_id *list, bool optional)
{
    if ((num == 0) != (list == NULL) || (!optional && !list) || num > AOS_MAX_DEVICES)
        return CL_INVALID_VALUE;
    for (cl_uint i = 0; i < num; i++)
        if (!list[i] || !context_has_device(ctx, list[i]))
            return CL_INVALID_DEVICE;
    return CL_SUCCESS;
}

/*
 * Sends a sync request made of a fixed struct (whose struct aos_span sits at span_off), an inline
 * middle part, and a bulk part assembled from pieces: inline when everything fits one request,
 * else in a staging span. The reply must be released by the caller on every return.
 */
static cl_int call_with_bulk(uint32_t opcode, void *fixed, uint32_t fixed_len, size_t span_off, const void *mid,
                             uint32_t mid_len, const struct piece *pieces, uint32_t npieces, struct aos_reply *rep)
{
    memset(rep, 0, sizeof(*rep));
    rep->slot = AOS_NO_SLOT;
    cl_int err = aos_conn_ensure();
    if (err != CL_SUCCESS)
        return err;
    uint64_t total = 0;
    for (uint32_t i = 0; i < npieces; i++)
        total += pieces[i].len;
    bool inline_bulk = (uint64_t)fixed_len + mid_len + total <= aos_req_max_len();
    struct aos_span span = {0, 0};
    uint8_t *staged = NULL;
    if (!inline_bulk) {
        if (total > aos_staging_size())
            return CL_OUT_OF_RESOURCES;
        if (!(staged = aos_staging_alloc((uint32_t)total, (uint32_t)total, &span)))
            return CL_OUT_OF_RESOURCES;
        uint8_t *at = staged;
        for (uint32_t i = 0; i < npieces; i++) {
            if (pieces[i].len)
                memcpy(at, pieces[i].p, pieces[i].len);
            at += pieces[i].len;
        }
        memcpy((uint8_t *)fixed + span_off, &span, sizeof(span));
    }
    uint32_t len = fixed_len + mid_len + (inline_bulk ? (uint32_t)total : 0);
    struct aos_req r;
    uint8_t *q = aos_req_begin(&r, len, true);
    if (!q) {
        if (staged)
            aos_staging_free(span);
        return r.error;
    }
    memcpy(q, fixed, fixed_len);
    if (mid_len)
        memcpy(q + fixed_len, mid, mid_len);
    if (inline_bulk) {
        uint8_t *at = q + fixed_len + mid_len;
        for (uint32_t i = 0; i < npieces; i++) {
            if (pieces[i].len)
                memcpy(at, pieces[i].p, pieces[i].len);
            at += pieces[i].len;
        }
    }
    err = aos_req_call(&r, opcode, rep);
    if (staged)
        aos_staging_free(span);
    return err;
}

/* ---- Creation ----------------------------------------------------------------------------- */

static cl_program create_from_blob(cl_context ctx, uint32_t opcode, const struct piece *pieces, uint32_t npieces,
                                   cl_int *errcode_ret)
{
    cl_int err = CL_SUCCESS;
    cl_program p = program_new(ctx, 0, NULL);
    if (!p) {
        err = CL_OUT_OF_HOST_MEMORY;
    } else {
        struct aos_req_create_program_blob q = {.id = p->obj.id, .context = ctx->obj.id};
        for (uint32_t i = 0; i < npieces; i++)
            q.len += pieces[i].len;
        struct aos_reply rep;
        err = call_with_bulk(opcode, &q, sizeof(q), offsetof(struct aos_req_create_program_blob, span), NULL, 0,
                             pieces, npieces, &rep);
        aos_reply_release(&rep);
        if (err != CL_SUCCESS) {
            program_drop_local(p);
            p = NULL;
        }
    }
    if (errcode_ret)
        *errcode_ret = err;
    return p;
}

cl_program CL_API_CALL clCreateProgramWithSource(cl_context ctx, cl_uint count, const char **strings,
                                                 const size_t *lengths, cl_int *errcode_ret)
{
    cl_int err = CL_SUCCESS;
    if (!aos_object_valid(ctx, AOS_OBJ_CONTEXT))
        err = CL_INVALID_CONTEXT;
    else if (count == 0 || !strings)
        err = CL_INVALID_VALUE;
    for (cl_uint i = 0; err == CL_SUCCESS && i < count; i++)
        if (!strings[i])
            err = CL_INVALID_VALUE;
    struct piece *pieces = NULL;
    if (err == CL_SUCCESS && !(pieces = malloc(count * sizeof(*pieces))))
        err = CL_OUT_OF_HOST_MEMORY;
    if (err != CL_SUCCESS) {
        if (errcode_ret)
            *errcode_ret = err;
        return NULL;
    }
    for (cl_uint i = 0; i < count; i++)
        pieces[i] = (struct piece){strings[i], lengths && lengths[i] ? lengths[i] : strlen(strings[i])};
    cl_program p = create_from_blob(ctx, AOS_OP_CREATE_PROGRAM_SOURCE, pieces, count, errcode_ret);
    free(pieces);
    return p;
}

cl_program CL_API_CALL clCreateProgramWithIL(cl_context ctx, const void *il, size_t length, cl_int *errcode_ret)
{
    cl_int err = CL_SUCCESS;
    if (!aos_object_valid(ctx, AOS_OBJ_CONTEXT))
        err = CL_INVALID_CONTEXT;
    else if (!il || length == 0)
        err = CL_INVALID_VALUE;
    if (err == CL_SUCCESS) {
        /* CL_INVALID_OPERATION when no device of the context takes IL. */
        bool any = false;
        for (cl_uint i = 0; i < ctx->num_devices && !any; i++) {
            size_t sz = 0;
            if (aos_dispatch_table.clGetDeviceInfo(ctx->devices[i], CL_DEVICE_IL_VERSION, 0, NULL, &sz) ==
                    CL_SUCCESS &&
                sz > 1)
                any = true;
        }
        if (!any)
            err = CL_INVALID_OPERATION;
    }
    if (err != CL_SUCCESS) {
        if (errcode_ret)
            *errcode_ret = err;
        return NULL;
    }
    struct piece piece = {il, length};
    return create_from_blob(ctx, AOS_OP_CREATE_PROGRAM_IL, &piece, 1, errcode_ret);
}

cl_program CL_API_CALL clCreateProgramWithBinary(cl_context ctx, cl_uint num_devices, const cl_device_id *device_list,
                                                 const size_t *lengths, const unsigned char **binaries,
                                                 cl_int *binary_status, cl_int *errcode_ret)
{
    cl_int err = CL_SUCCESS;
    cl_program p = NULL;
    if (!aos_object_valid(ctx, AOS_OBJ_CONTEXT))
        err = CL_INVALID_CONTEXT;
    else
        err = check_device_list(ctx, num_devices, device_list, false);
    if (err == CL_SUCCESS && (!lengths || !binaries))
        err = CL_INVALID_VALUE;
    for (cl_uint i = 0; err == CL_SUCCESS && i < num_devices; i++)
        if (lengths[i] == 0 || !binaries[i] || lengths[i] > UINT32_MAX) {
            if (binary_status)
                for (cl_uint j = 0; j < num_devices; j++)
                    binary_status[j] = (lengths[j] == 0 || !binaries[j]) ? CL_INVALID_VALUE : CL_SUCCESS;
            err = CL_INVALID_VALUE;
        }
    uint64_t mid[2 * AOS_MAX_DEVICES];
    struct piece pieces[AOS_MAX_DEVICES];
    if (err == CL_SUCCESS && !(p = program_new(ctx, num_devices, device_list)))
        err = CL_OUT_OF_HOST_MEMORY;
    if (err == CL_SUCCESS) {
        for (cl_uint i = 0; i < num_devices; i++) {
            mid[i] = device_list[i]->obj.id;
            mid[num_devices + i] = lengths[i];
            pieces[i] = (struct piece){binaries[i], lengths[i]};
        }
        struct aos_req_create_program_binary q = {.id = p->obj.id, .context = ctx->obj.id, .num_devices = num_devices};
        struct aos_reply rep;
        err = call_with_bulk(AOS_OP_CREATE_PROGRAM_BINARY, &q, sizeof(q),
                             offsetof(struct aos_req_create_program_binary, span), mid,
                             2 * num_devices * (uint32_t)sizeof(uint64_t), pieces, num_devices, &rep);
        if (binary_status && rep.payload && rep.size >= num_devices * sizeof(cl_int))
            memcpy(binary_status, rep.payload, num_devices * sizeof(cl_int));
        aos_reply_release(&rep);
        if (err != CL_SUCCESS) {
            program_drop_local(p);
            p = NULL;
        }
    }
    if (errcode_ret)
        *errcode_ret = err;
    return p;
}

cl_program CL_API_CALL clCreateProgramWithBuiltInKernels(cl_context ctx, cl_uint num_devices,
                                                         const cl_device_id *device_list, const char *kernel_names,
                                                         cl_int *errcode_ret)
{
    cl_int err = CL_SUCCESS;
    cl_program p = NULL;
    if (!aos_object_valid(ctx, AOS_OBJ_CONTEXT))
        err = CL_INVALID_CONTEXT;
    else
        err = check_device_list(ctx, num_devices, device_list, false);
    size_t names_len = kernel_names ? strlen(kernel_names) : 0;
    if (err == CL_SUCCESS && (!kernel_names || names_len == 0 || names_len > 65536))
        err = CL_INVALID_VALUE;
    if (err == CL_SUCCESS && !(p = program_new(ctx, num_devices, device_list)))
        err = CL_OUT_OF_HOST_MEMORY;
    if (err == CL_SUCCESS) {
        struct aos_req r;
        struct aos_req_create_program_builtin *q =
            aos_req_begin(&r, (uint32_t)(sizeof(*q) + num_devices * sizeof(uint64_t) + names_len), true);
        if (!q) {
            err = r.error;
        } else {
            *q = (struct aos_req_create_program_builtin){.id = p->obj.id, .context = ctx->obj.id,
                                                         .num_devices = num_devices, .names_len = (uint32_t)names_len};
            uint64_t *ids = (uint64_t *)(q + 1);
            for (cl_uint i = 0; i < num_devices; i++)
                ids[i] = device_list[i]->obj.id;
            memcpy(ids + num_devices, kernel_names, names_len);
            struct aos_reply rep;
            err = aos_req_call(&r, AOS_OP_CREATE_PROGRAM_BUILTIN, &rep);
            aos_reply_release(&rep);
        }
        if (err != CL_SUCCESS) {
            program_drop_local(p);
            p = NULL;
        }
    }
    if (errcode_ret)
        *errcode_ret = err;
    return p;
}

cl_int CL_API_CALL clRetainProgram(cl_program p)
{
    return aos_object_retain(p, AOS_OBJ_PROGRAM, CL_INVALID_PROGRAM);
}

cl_int CL_API_CALL clReleaseProgram(cl_program p)
{
    return aos_object_release(p, AOS_OBJ_PROGRAM, CL_INVALID_PROGRAM);
}

/* ---- Build, compile, link ----------------------------------------------------------------- */

void aos_program_build_done_note(const struct aos_note_build_done *n)
{
    struct build_cb *cb = (struct build_cb *)(uintptr_t)n->token;
    if (!cb)
        return;
    cl_program p = cb->program;
    atomic_fetch_sub(&p->building, 1);
    cb->fn(p, cb->user_data);
    aos_object_unhold(p);
    free(cb);
}

/* Common part of clBuildProgram and clCompileProgram. */
static cl_int build_or_compile(uint32_t opcode, cl_program p, cl_uint num_devices, const cl_device_id *device_list,
                               const char *options, cl_uint num_headers, const cl_program *headers,
                               const char **header_names, void(CL_CALLBACK *fn)(cl_program, void *),
                               void *user_data)
{
    if (!aos_object_valid(p, AOS_OBJ_PROGRAM))
        return CL_INVALID_PROGRAM;
    if ((num_devices == 0) != (device_list == NULL) || num_devices > AOS_MAX_DEVICES || (!fn && user_data))
        return CL_INVALID_VALUE;
    if ((num_headers == 0) != (headers == NULL) || (num_headers && !header_names))
        return CL_INVALID_VALUE;
    for (cl_uint i = 0; i < num_devices; i++)
        if (!program_has_device(p, device_list[i]))
            return CL_INVALID_DEVICE;
    size_t names_len = 0;
    for (cl_uint i = 0; i < num_headers; i++) {
        if (!aos_object_valid(headers[i], AOS_OBJ_PROGRAM))
            return CL_INVALID_PROGRAM;
        if (!header_names[i])
            return CL_INVALID_VALUE;
        names_len += strlen(header_names[i]) + 1;
    }
    pthread_mutex_lock(&p->lock);
    cl_uint attached = p->kernels_attached;
    pthread_mutex_unlock(&p->lock);
    if (attached)
        return CL_INVALID_OPERATION;

    struct build_cb *cb = NULL;
    if (fn) {
        if (!(cb = malloc(sizeof(*cb))))
            return CL_OUT_OF_HOST_MEMORY;
        *cb = (struct build_cb){.fn = fn, .user_data = user_data, .program = p};
        aos_object_hold(p);
    }
    uint32_t mid_len = (num_devices + num_headers) * (uint32_t)sizeof(uint64_t);
    uint64_t *mid = malloc(mid_len ? mid_len : 1);
    struct piece *pieces = malloc((1 + num_headers) * sizeof(*pieces));
    if (!mid || !pieces) {
        free(mid);
        free(pieces);
        if (cb) {
            aos_object_unhold(p);
            free(cb);
        }
        return CL_OUT_OF_HOST_MEMORY;
    }
    for (cl_uint i = 0; i < num_devices; i++)
        mid[i] = device_list[i]->obj.id;
    for (cl_uint i = 0; i < num_headers; i++) {
        mid[num_devices + i] = headers[i]->obj.id;
        pieces[1 + i] = (struct piece){header_names[i], strlen(header_names[i]) + 1};
    }
    size_t options_len = options ? strlen(options) : 0;
    pieces[0] = (struct piece){options ? options : "", options_len};
    struct aos_req_build q = {.program = p->obj.id, .context = p->context->obj.id,
                              .token = (uint64_t)(uintptr_t)cb, .num_devices = num_devices,
                              .num_inputs = num_headers, .options_len = (uint32_t)options_len,
                              .names_len = (uint32_t)names_len};
    atomic_fetch_add(&p->building, 1);
    struct aos_reply rep;
    cl_int err = call_with_bulk(opcode, &q, sizeof(q), offsetof(struct aos_req_build, span), mid, mid_len, pieces,
                                1 + num_headers, &rep);
    aos_reply_release(&rep);
    free(mid);
    free(pieces);
    if (cb && err == CL_SUCCESS)
        return CL_SUCCESS; /* the note ends the build: it drops building, runs fn, unholds p */
    atomic_fetch_sub(&p->building, 1);
    if (cb) {
        aos_object_unhold(p);
        free(cb);
    }
    return err;
}

cl_int CL_API_CALL clBuildProgram(cl_program p, cl_uint num_devices, const cl_device_id *device_list,
                                  const char *options, void(CL_CALLBACK *fn)(cl_program, void *), void *user_data)
{
    return build_or_compile(AOS_OP_BUILD_PROGRAM, p, num_devices, device_list, options, 0, NULL, NULL, fn, user_data);
}

cl_int CL_API_CALL clCompileProgram(cl_program p, cl_uint num_devices, const cl_device_id *device_list,
                                    const char *options, cl_uint num_headers, const cl_program *headers,
                                    const char **header_names, void(CL_CALLBACK *fn)(cl_program, void *),
                                    void *user_data)
{
    return build_or_compile(AOS_OP_COMPILE_PROGRAM, p, num_devices, device_list, options, num_headers, headers,
                            header_names, fn, user_data);
}

cl_program CL_API_CALL clLinkProgram(cl_context ctx, cl_uint num_devices, const cl_device_id *device_list,
                                     const char *options, cl_uint num_inputs, const cl_program *inputs,
                                     void(CL_CALLBACK *fn)(cl_program, void *), void *user_data, cl_int *errcode_ret)
{
    cl_int err = CL_SUCCESS;
    cl_program p = NULL;
    if (!aos_object_valid(ctx, AOS_OBJ_CONTEXT))
        err = CL_INVALID_CONTEXT;
    else if (!fn && user_data)
        err = CL_INVALID_VALUE;
    else
        err = check_device_list(ctx, num_devices, device_list, true);
    if (err == CL_SUCCESS && (num_inputs == 0 || !inputs))
        err = CL_INVALID_VALUE;
    for (cl_uint i = 0; err == CL_SUCCESS && i < num_inputs; i++)
        if (!aos_object_valid(inputs[i], AOS_OBJ_PROGRAM))
            err = CL_INVALID_PROGRAM;
        else if (inputs[i]->context != ctx)
            err = CL_INVALID_CONTEXT;
    uint64_t *mid = NULL;
    uint32_t mid_len = (num_devices + num_inputs) * (uint32_t)sizeof(uint64_t);
    if (err == CL_SUCCESS && !(mid = malloc(mid_len)))
        err = CL_OUT_OF_HOST_MEMORY;
    if (err == CL_SUCCESS && !(p = program_new(ctx, num_devices, device_list)))
        err = CL_OUT_OF_HOST_MEMORY;
    if (err == CL_SUCCESS) {
        for (cl_uint i = 0; i < num_devices; i++)
            mid[i] = device_list[i]->obj.id;
        for (cl_uint i = 0; i < num_inputs; i++)
            mid[num_devices + i] = inputs[i]->obj.id;
        size_t options_len = options ? strlen(options) : 0;
        struct piece piece = {options ? options : "", options_len};
        struct aos_req_build q = {.program = p->obj.id, .context = ctx->obj.id, .num_devices = num_devices,
                                  .num_inputs = num_inputs, .options_len = (uint32_t)options_len};
        struct aos_reply rep;
        err = call_with_bulk(AOS_OP_LINK_PROGRAM, &q, sizeof(q), offsetof(struct aos_req_build, span), mid, mid_len,
                             &piece, 1, &rep);
        bool created = rep.value != 0;
        aos_reply_release(&rep);
        if (!created) {
            program_drop_local(p);
            p = NULL;
        } else if (fn) {
            fn(p, user_data);
        }
    }
    free(mid);
    if (errcode_ret)
        *errcode_ret = err;
    return p;
}

cl_int CL_API_CALL clUnloadCompiler(void)
{
    return CL_SUCCESS;
}

cl_int CL_API_CALL clUnloadPlatformCompiler(cl_platform_id platform)
{
    return platform && platform == aos_platform() ? CL_SUCCESS : CL_INVALID_PLATFORM;
}

cl_int CL_API_CALL clSetProgramReleaseCallback(cl_program p, void(CL_CALLBACK *fn)(cl_program, void *),
                                               void *user_data)
{
    (void)user_data;
    if (!aos_object_valid(p, AOS_OBJ_PROGRAM))
        return CL_INVALID_PROGRAM;
    if (!fn)
        return CL_INVALID_VALUE;
    return CL_INVALID_OPERATION; /* optional in OpenCL 3.0: no global destructors supported */
}

cl_int CL_API_CALL clSetProgramSpecializationConstant(cl_program p, cl_uint spec_id, size_t spec_size,
                                                      const void *spec_value)
{
    (void)spec_id, (void)spec_size;
    if (!aos_object_valid(p, AOS_OBJ_PROGRAM))
        return CL_INVALID_PROGRAM;
    if (!spec_value)
        return CL_INVALID_VALUE;
    return CL_INVALID_OPERATION; /* specialization constants are not forwarded */
}

/* ---- Info ---------------------------------------------------------------------------------- */

/* Copies one device's binary into dst (size bytes) through staging, in chunks. */
static cl_int fetch_binary(cl_program p, cl_device_id d, unsigned char *dst, size_t size)
{
    size_t done = 0;
    while (done < size) {
        uint32_t want = size - done < aos_staging_size() ? (uint32_t)(size - done) : aos_staging_size();
        uint32_t min = want < aos_staging_chunk() ? want : aos_staging_chunk();
        struct aos_span span;
        uint8_t *buf = aos_staging_alloc(want, min, &span);
        if (!buf)
            return CL_OUT_OF_RESOURCES;
        struct aos_req_program_binary q = {.program = p->obj.id, .device = d->obj.id, .offset = done, .span = span};
        struct aos_reply rep;
        cl_int err = aos_call(AOS_OP_GET_PROGRAM_BINARY, &q, sizeof(q), &rep);
        uint64_t copied = rep.value2;
        aos_reply_release(&rep);
        if (err == CL_SUCCESS && copied > span.len)
            err = CL_OUT_OF_RESOURCES;
        if (err == CL_SUCCESS)
            memcpy(dst + done, buf, copied);
        aos_staging_free(span);
        if (err != CL_SUCCESS)
            return err;
        if (copied == 0)
            break; /* binary shrank (rebuilt meanwhile): keep what we have */
        done += copied;
    }
    return CL_SUCCESS;
}

static cl_int program_binaries(cl_program p, size_t size, void *value, size_t *size_ret)
{
    size_t need = p->num_devices * sizeof(unsigned char *);
    if (size_ret)
        *size_ret = need;
    if (!value)
        return CL_SUCCESS;
    if (size < need)
        return CL_INVALID_VALUE;
    size_t sizes[AOS_MAX_DEVICES];
    cl_int err = aos_get_info(AOS_INFO_PROGRAM, p->obj.id, 0, CL_PROGRAM_BINARY_SIZES,
                              p->num_devices * sizeof(size_t), sizes, NULL);
    unsigned char **out = value;
    for (cl_uint i = 0; err == CL_SUCCESS && i < p->num_devices; i++)
        if (out[i] && sizes[i])
            err = fetch_binary(p, p->devices[i], out[i], sizes[i]);
    return err;
}

cl_int CL_API_CALL clGetProgramInfo(cl_program p, cl_program_info param, size_t size, void *value, size_t *size_ret)
{
    if (!aos_object_valid(p, AOS_OBJ_PROGRAM))
        return CL_INVALID_PROGRAM;
    switch (param) {
    case CL_PROGRAM_REFERENCE_COUNT: {
        cl_uint refs = atomic_load(&p->obj.refs);
        return aos_info_value(&refs, sizeof(refs), size, value, size_ret);
    }
    case CL_PROGRAM_CONTEXT:
        return aos_info_value(&p->context, sizeof(p->context), size, value, size_ret);
    case CL_PROGRAM_NUM_DEVICES:
        return aos_info_value(&p->num_devices, sizeof(p->num_devices), size, value, size_ret);
    case CL_PROGRAM_DEVICES:
        return aos_info_value(p->devices, p->num_devices * sizeof(cl_device_id), size, value, size_ret);
    case CL_PROGRAM_BINARIES:
        return program_binaries(p, size, value, size_ret);
    default:
        return aos_get_info(AOS_INFO_PROGRAM, p->obj.id, 0, param, size, value, size_ret);
    }
}

cl_int CL_API_CALL clGetProgramBuildInfo(cl_program p, cl_device_id d, cl_program_build_info param, size_t size,
                                         void *value, size_t *size_ret)
{
    if (!aos_object_valid(p, AOS_OBJ_PROGRAM))
        return CL_INVALID_PROGRAM;
    if (!d || !program_has_device(p, d))
        return CL_INVALID_DEVICE;
    if (param == CL_PROGRAM_BUILD_STATUS && atomic_load(&p->building)) {
        cl_build_status st = CL_BUILD_IN_PROGRESS;
        return aos_info_value(&st, sizeof(st), size, value, size_ret);
    }
    return aos_get_info(AOS_INFO_PROGRAM_BUILD, p->obj.id, d->obj.id, param, size, value, size_ret);
}

/* Kernels attach to and detach from their program (kernel.c). */
void aos_program_kernel_attach(cl_program p, int delta);
void aos_program_kernel_attach(cl_program p, int delta)
{
    pthread_mutex_lock(&p->lock);
    p->kernels_attached += (cl_uint)delta;
    pthread_mutex_unlock(&p->lock);
}
