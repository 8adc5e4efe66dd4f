/* Flooding: a client that enqueues many launches at once is held to max_inflight_per_client (2 in
 * this file's configuration) launches in flight. It is blocked, not dropped: every launch runs,
 * with correct results. And a client whose launches wait on its own user event is not deadlocked
 * by the limit. */
#include <stdint.h>

#include "harness.h"
#include "spin_kernel.h"
#include "trace_read.h"

static char trace_path[64] = "/tmp/accelos-limit-trace-XXXXXX";

static const char *src = "kernel void flood(global uint *out, uint salt)\n"
                         "{ size_t i = get_global_id(0); uint h = (uint)i ^ salt;\n"
                         "  for (uint r = 0; r < 3000u; r++) " AOS_SPIN_STEP "\n"
                         "  out[i] = h; }\n";

enum { LIMIT = 2, QUEUES = 4, PER_QUEUE = 3, LAUNCHES = QUEUES * PER_QUEUE, N = 4096 };

static uint32_t expect(size_t i, uint32_t salt)
{
    return aos_spin_expect((uint32_t)i ^ salt, 3000u);
}

/* Counts trace lines of kernel `flood` into admitted/ended (host times); returns how many. */
static size_t read_intervals(unsigned long long *admitted, unsigned long long *ended, size_t cap)
{
    size_t n = 0;
    for (int tries = 0; tries < 500 && n < cap; tries++) {
        n = 0;
        FILE *f = fopen(trace_path, "r");
        char line[2048];
        while (f && fgets(line, sizeof(line), f))
            if (strstr(line, "\"kernel\":\"flood\"") && n < cap) {
                admitted[n] = trace_field(line, "admitted_host_ns");
                ended[n] = trace_field(line, "ended_host_ns");
                n++;
            }
        if (f)
            fclose(f);
        if (n < cap)
            usleep(10000);
    }
    return n;
}

START_TEST(test_flooding_client_is_held_to_the_limit)
{
    cl_context ctx;
    cl_command_queue q[QUEUES];
    aos_test_context(&ctx, &q[0]);
    cl_int err;
    for (int i = 1; i < QUEUES; i++)
        q[i] = aos_test_queue(ctx, 0);
    cl_program p = aos_test_build(ctx, src, NULL);
    cl_kernel k = clCreateKernel(p, "flood", &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_mem out[LAUNCHES];
    size_t global = N, local = 16;
    for (uint32_t j = 0; j < LAUNCHES; j++) {
        out[j] = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * sizeof(uint32_t), NULL, &err);
        ck_assert_int_eq(err, CL_SUCCESS);
        ck_assert_int_eq(clSetKernelArg(k, 0, sizeof(out[j]), &out[j]), CL_SUCCESS);
        ck_assert_int_eq(clSetKernelArg(k, 1, sizeof(j), &j), CL_SUCCESS);
        ck_assert_int_eq(clEnqueueNDRangeKernel(q[j % QUEUES], k, 1, NULL, &global, &local, 0, NULL, NULL),
                         CL_SUCCESS);
    }
    for (int i = 0; i < QUEUES; i++)
        ck_assert_int_eq(clFinish(q[i]), CL_SUCCESS);
    uint32_t *got = malloc(N * sizeof(uint32_t));
    for (uint32_t j = 0; j < LAUNCHES; j++) {
        ck_assert_int_eq(clEnqueueReadBuffer(q[0], out[j], CL_TRUE, 0, N * sizeof(uint32_t), got, 0, NULL, NULL),
                         CL_SUCCESS);
        for (size_t i = 0; i < N; i++)
            ck_assert_msg(got[i] == expect(i, j), "launch %u item %zu: %u != %u", j, i, got[i], expect(i, j));
    }
    free(got);

    unsigned long long admitted[LAUNCHES], ended[LAUNCHES];
    ck_assert_uint_eq(read_intervals(admitted, ended, LAUNCHES), LAUNCHES);
    /* At every admission, at most LIMIT launches (this one included) are between admission and end. */
    int most = 0;
    for (int a = 0; a < LAUNCHES; a++) {
        int at_once = 0;
        for (int b = 0; b < LAUNCHES; b++)
            at_once += admitted[b] <= admitted[a] && ended[b] > admitted[a];
        most = at_once > most ? at_once : most;
    }
    ck_assert_int_le(most, LIMIT);
    ck_assert_int_ge(most, 1);
    for (uint32_t j = 0; j < LAUNCHES; j++)
        clReleaseMemObject(out[j]);
    clReleaseKernel(k);
    clReleaseProgram(p);
    for (int i = 0; i < QUEUES; i++)
        clReleaseCommandQueue(q[i]);
    clReleaseContext(ctx);
}
END_TEST

/* More launches than the limit, all behind the client's own user event: blocking the client until
 * one ends would wait forever, so the daemon lets them through; all run once the event is set. */
START_TEST(test_launches_behind_own_user_event_do_not_deadlock)
{
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    cl_int err;
    cl_program p = aos_test_build(ctx, src, NULL);
    cl_kernel k = clCreateKernel(p, "flood", &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_event gate = clCreateUserEvent(ctx, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * sizeof(uint32_t), NULL, &err);
    uint32_t salt = 77;
    ck_assert_int_eq(clSetKernelArg(k, 0, sizeof(out), &out), CL_SUCCESS);
    ck_assert_int_eq(clSetKernelArg(k, 1, sizeof(salt), &salt), CL_SUCCESS);
    size_t global = N, local = 16;
    for (int j = 0; j < 3 * LIMIT; j++)
        ck_assert_int_eq(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 1, &gate, NULL), CL_SUCCESS);
    /* A round trip: answered only once the daemon has taken every launch above. */
    cl_uint refs = 0;
    ck_assert_int_eq(clGetEventInfo(gate, CL_EVENT_REFERENCE_COUNT, sizeof(refs), &refs, NULL), CL_SUCCESS);
    ck_assert_int_eq(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
    ck_assert_int_eq(clFinish(q), CL_SUCCESS);
    uint32_t *got = malloc(N * sizeof(uint32_t));
    ck_assert_int_eq(clEnqueueReadBuffer(q, out, CL_TRUE, 0, N * sizeof(uint32_t), got, 0, NULL, NULL), CL_SUCCESS);
    for (size_t i = 0; i < N; i++)
        ck_assert_uint_eq(got[i], expect(i, salt));
    free(got);
    clReleaseEvent(gate);
    clReleaseMemObject(out);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fair_limit");
    TCase *tc = tcase_create("fair_limit");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_flooding_client_is_held_to_the_limit);
    tcase_add_test(tc, test_launches_behind_own_user_event_do_not_deadlock);
    suite_add_tcase(s, tc);
    return aos_test_run_suite_fair_traced(s, trace_path, "max_inflight_per_client = 2\n");
}
