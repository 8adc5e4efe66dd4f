/* A vector add c = a + b of n floats through the proxy, with its context, buffers and kernel set
 * up: the starting point of the kernel tests under every policy. */
#ifndef ACCELOS_TEST_VADD_FIXTURE_H
#define ACCELOS_TEST_VADD_FIXTURE_H

#include "harness.h"

struct aos_test_vadd {
    cl_context ctx;
    cl_command_queue q;
    cl_program p;
    cl_kernel k; /* vadd(a, b, c, n), all four arguments set */
    cl_mem ma, mb, mc;
    float *a, *b, *c; /* host copies of a and b; c is scratch for reading results */
    cl_uint n;
};

void aos_test_vadd_setup(struct aos_test_vadd *v, cl_uint n);
/* Reads `out` back into v->c and checks every element against a + b. */
void aos_test_vadd_check(struct aos_test_vadd *v, cl_mem out);
void aos_test_vadd_teardown(struct aos_test_vadd *v);

#endif
