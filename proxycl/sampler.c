/*
 * Samplers. Creation is one synchronous call; the legacy clCreateSampler is sent as the
 * equivalent property list. Info is answered locally.
 */
#include <stdlib.h>
#include <string.h>

#include "accelos/wire_image.h"
#include "conn.h"
#include "mem.h"

static void sampler_cleanup(struct aos_object *obj)
{
    cl_sampler s = (cl_sampler)obj;
    free(s->prop_list);
    if (s->context)
        aos_object_unhold(s->context);
}

static cl_sampler create_sampler(cl_context ctx, const cl_sampler_properties *props, cl_bool normalized,
                                 cl_addressing_mode addressing, cl_filter_mode filter, cl_int *errcode_ret)
{
    cl_int err;
    cl_sampler s = NULL;
    size_t n = 0;
    if (!aos_object_valid(ctx, AOS_OBJ_CONTEXT)) {
        err = CL_INVALID_CONTEXT;
        goto out;
    }
    if (props) {
        for (n = 0; props[2 * n]; n++) {
            switch (props[2 * n]) {
            case CL_SAMPLER_NORMALIZED_COORDS: normalized = (cl_bool)props[2 * n + 1]; break;
            case CL_SAMPLER_ADDRESSING_MODE: addressing = (cl_addressing_mode)props[2 * n + 1]; break;
            case CL_SAMPLER_FILTER_MODE: filter = (cl_filter_mode)props[2 * n + 1]; break;
            default: err = CL_INVALID_PROPERTY; goto out;
            }
            for (size_t j = 0; j < n; j++)
                if (props[2 * j] == props[2 * n]) {
                    err = CL_INVALID_PROPERTY;
                    goto out;
                }
        }
    }
    if ((normalized != CL_TRUE && normalized != CL_FALSE) || addressing < CL_ADDRESS_NONE ||
        addressing > CL_ADDRESS_MIRRORED_REPEAT || (filter != CL_FILTER_NEAREST && filter != CL_FILTER_LINEAR)) {
        err = CL_INVALID_VALUE;
        goto out;
    }
    s = aos_object_new(AOS_OBJ_SAMPLER, sizeof(struct _cl_sampler), sampler_cleanup);
    if (!s) {
        err = CL_OUT_OF_HOST_MEMORY;
        goto out;
    }
    s->context = ctx;
    aos_object_hold(ctx);
    s->normalized = normalized;
    s->addressing = addressing;
    s->filter = filter;
    if (props) {
        s->prop_list_size = (2 * n + 1) * sizeof(*props);
        s->prop_list = malloc(s->prop_list_size);
        if (!s->prop_list) {
            err = CL_OUT_OF_HOST_MEMORY;
            goto out;
        }
        memcpy(s->prop_list, props, s->prop_list_size);
    }
    struct aos_req r;
    struct aos_req_create_sampler *q = aos_req_begin(&r, sizeof(*q) + 3 * 16, true);
    if (!q) {
        err = r.error;
        goto out;
    }
    q->id = s->obj.id;
    q->context = ctx->obj.id;
    q->num_props = 3;
    uint64_t *kv = (uint64_t *)(q + 1);
    kv[0] = CL_SAMPLER_NORMALIZED_COORDS, kv[1] = normalized;
    kv[2] = CL_SAMPLER_ADDRESSING_MODE, kv[3] = addressing;
    kv[4] = CL_SAMPLER_FILTER_MODE, kv[5] = filter;
    struct aos_reply rep;
    err = aos_req_call(&r, AOS_OP_CREATE_SAMPLER, &rep);
    aos_reply_release(&rep);
    if (err != CL_SUCCESS)
        goto out;
    if (errcode_ret)
        *errcode_ret = CL_SUCCESS;
    return s;

out:
    if (s) { /* the daemon never learnt of it */
        aos_object_hold(s);
        atomic_store(&s->obj.refs, 0);
        aos_object_unhold(s);
    }
    if (errcode_ret)
        *errcode_ret = err;
    return NULL;
}

cl_sampler CL_API_CALL clCreateSampler(cl_context context, cl_bool normalized, cl_addressing_mode addressing,
                                       cl_filter_mode filter, cl_int *errcode_ret)
{
    return create_sampler(context, NULL, normalized, addressing, filter, errcode_ret);
}

cl_sampler CL_API_CALL clCreateSamplerWithProperties(cl_context context, const cl_sampler_properties *props,
                                                     cl_int *errcode_ret)
{
    return create_sampler(context, props, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, errcode_ret);
}

cl_int CL_API_CALL clRetainSampler(cl_sampler sampler)
{
    return aos_object_retain(sampler, AOS_OBJ_SAMPLER, CL_INVALID_SAMPLER);
}

cl_int CL_API_CALL clReleaseSampler(cl_sampler sampler)
{
    return aos_object_release(sampler, AOS_OBJ_SAMPLER, CL_INVALID_SAMPLER);
}

cl_int CL_API_CALL clGetSamplerInfo(cl_sampler s, cl_sampler_info param, size_t size, void *value, size_t *size_ret)
{
    if (!aos_object_valid(s, AOS_OBJ_SAMPLER))
        return CL_INVALID_SAMPLER;
    union {
        cl_uint u;
        cl_context c;
        cl_bool b;
        cl_addressing_mode a;
        cl_filter_mode f;
    } v;
    size_t n;
    switch (param) {
    case CL_SAMPLER_REFERENCE_COUNT: v.u = atomic_load(&s->obj.refs); n = sizeof(v.u); break;
    case CL_SAMPLER_CONTEXT: v.c = s->context; n = sizeof(v.c); break;
    case CL_SAMPLER_NORMALIZED_COORDS: v.b = s->normalized; n = sizeof(v.b); break;
    case CL_SAMPLER_ADDRESSING_MODE: v.a = s->addressing; n = sizeof(v.a); break;
    case CL_SAMPLER_FILTER_MODE: v.f = s->filter; n = sizeof(v.f); break;
    case CL_SAMPLER_PROPERTIES: return aos_info_value(s->prop_list, s->prop_list_size, size, value, size_ret);
    default: return CL_INVALID_VALUE;
    }
    return aos_info_value(&v, n, size, value, size_ret);
}
