/* The vector-add fixture of the kernel tests (vadd_fixture.h). */
#include "vadd_fixture.h"

#include <stdlib.h>

static const char *vadd_src =
    "kernel void vadd(global const float *a, global const float *b, global float *c, uint n)\n"
    "{ size_t i = get_global_id(0); if (i < n) c[i] = a[i] + b[i]; }\n";

void aos_test_vadd_setup(struct aos_test_vadd *v, cl_uint n)
{
    aos_test_context(&v->ctx, &v->q);
    v->n = n;
    v->a = malloc(n * sizeof(float));
    v->b = malloc(n * sizeof(float));
    v->c = malloc(n * sizeof(float));
    ck_assert(v->a && v->b && v->c);
    for (cl_uint i = 0; i < n; i++) {
        v->a[i] = (float)i * 0.5f;
        v->b[i] = 1000.0f - (float)i;
    }
    v->ma = aos_test_buffer(v->ctx, n * sizeof(float), v->a);
    v->mb = aos_test_buffer(v->ctx, n * sizeof(float), v->b);
    v->mc = aos_test_buffer(v->ctx, n * sizeof(float), NULL);
    v->p = aos_test_build(v->ctx, vadd_src, NULL);
    v->k = aos_test_kernel(v->p, "vadd");
    ck_assert_int_eq(clSetKernelArg(v->k, 0, sizeof(cl_mem), &v->ma), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(v->k, 1, sizeof(cl_mem), &v->mb), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(v->k, 2, sizeof(cl_mem), &v->mc), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(v->k, 3, sizeof(n), &n), CL_SUCCESS);
}

void aos_test_vadd_check(struct aos_test_vadd *v, cl_mem out)
{
    ck_assert_int_eq(clEnqueueReadBuffer(v->q, out, CL_TRUE, 0, v->n * sizeof(float), v->c, 0, NULL, NULL),
                     CL_SUCCESS);
    for (cl_uint i = 0; i < v->n; i++)
        ck_assert_msg(v->c[i] == v->a[i] + v->b[i], "element %u: %g != %g", i, v->c[i], v->a[i] + v->b[i]);
}

void aos_test_vadd_teardown(struct aos_test_vadd *v)
{
    free(v->a);
    free(v->b);
    free(v->c);
    clReleaseKernel(v->k);
    clReleaseProgram(v->p);
    clReleaseMemObject(v->ma);
    clReleaseMemObject(v->mb);
    clReleaseMemObject(v->mc);
    clReleaseCommandQueue(v->q);
    clReleaseContext(v->ctx);
}
