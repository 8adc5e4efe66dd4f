/* The accelOS platform through the real ICD loader: devices mirror the daemon's real devices. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

START_TEST(test_platform_is_listed)
{
    cl_platform_id p = aos_test_platform();
    char vendor[64] = "";
    ck_assert_int_eq(clGetPlatformInfo(p, CL_PLATFORM_VENDOR, sizeof(vendor), vendor, NULL), CL_SUCCESS);
    ck_assert_str_eq(vendor, "accelOS");
    char version[128] = "";
    ck_assert_int_eq(clGetPlatformInfo(p, CL_PLATFORM_VERSION, sizeof(version), version, NULL), CL_SUCCESS);
    ck_assert_int_eq(strncmp(version, "OpenCL ", 7), 0);
}
END_TEST

START_TEST(test_device_info_matches_daemon)
{
    cl_device_id d = aos_test_device();
    char name[256] = "";
    size_t size = 0;
    ck_assert_int_eq(clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof(name), name, &size), CL_SUCCESS);
    ck_assert_uint_eq(size, strlen(name) + 1);
    /* PoCL's CPU device names itself after the CPU, prefixed by its driver. */
    ck_assert_ptr_nonnull(strstr(name, "pthread"));
    cl_uint units = 0;
    ck_assert_int_eq(clGetDeviceInfo(d, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(units), &units, NULL), CL_SUCCESS);
    ck_assert_uint_ge(units, 1);
    cl_platform_id p = NULL;
    ck_assert_int_eq(clGetDeviceInfo(d, CL_DEVICE_PLATFORM, sizeof(p), &p, NULL), CL_SUCCESS);
    ck_assert_ptr_eq(p, aos_test_platform());
    /* Too small a buffer is the caller's error, as natively. */
    ck_assert_int_eq(clGetDeviceInfo(d, CL_DEVICE_NAME, 2, name, NULL), CL_INVALID_VALUE);
}
END_TEST

START_TEST(test_context_and_queue_info)
{
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    cl_uint refs = 0;
    ck_assert_int_eq(clGetContextInfo(ctx, CL_CONTEXT_REFERENCE_COUNT, sizeof(refs), &refs, NULL), CL_SUCCESS);
    ck_assert_uint_eq(refs, 1);
    ck_assert_int_eq(clRetainContext(ctx), CL_SUCCESS);
    ck_assert_int_eq(clGetContextInfo(ctx, CL_CONTEXT_REFERENCE_COUNT, sizeof(refs), &refs, NULL), CL_SUCCESS);
    ck_assert_uint_eq(refs, 2);
    cl_context qctx = NULL;
    ck_assert_int_eq(clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof(qctx), &qctx, NULL), CL_SUCCESS);
    ck_assert_ptr_eq(qctx, ctx);
    ck_assert_int_eq(clFinish(q), CL_SUCCESS);
    ck_assert_int_eq(clReleaseCommandQueue(q), CL_SUCCESS);
    ck_assert_int_eq(clReleaseContext(ctx), CL_SUCCESS);
    ck_assert_int_eq(clReleaseContext(ctx), CL_SUCCESS);
}
END_TEST

START_TEST(test_invalid_handles)
{
    /* The loader itself reads a handle's dispatch pointer, so a dangling handle (freed by the
     * application, still quarantined by ProxyCL) is the worst case that reaches us. */
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    ck_assert_int_eq(clReleaseCommandQueue(q), CL_SUCCESS);
    ck_assert_int_eq(clReleaseContext(ctx), CL_SUCCESS);
    ck_assert_int_eq(clRetainContext(ctx), CL_INVALID_CONTEXT);
    ck_assert_int_eq(clFinish(q), CL_INVALID_COMMAND_QUEUE);
    ck_assert_int_eq(clFinish(NULL), CL_INVALID_COMMAND_QUEUE);
    cl_int err;
    cl_device_id d = aos_test_device();
    ck_assert_ptr_null(clCreateContext(NULL, 0, &d, NULL, NULL, &err));
    ck_assert_int_eq(err, CL_INVALID_VALUE);
}
END_TEST

static void CL_CALLBACK on_complete(cl_event ev, cl_int status, void *data)
{
    (void)ev;
    *(volatile cl_int *)data = status == CL_COMPLETE ? 1 : -1;
}

START_TEST(test_user_event_marker_and_callback)
{
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    cl_int err;
    cl_event user = clCreateUserEvent(ctx, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_event marker;
    ck_assert_int_eq(clEnqueueMarkerWithWaitList(q, 1, &user, &marker), CL_SUCCESS);
    volatile cl_int fired = 0;
    ck_assert_int_eq(clSetEventCallback(marker, CL_COMPLETE, on_complete, (void *)&fired), CL_SUCCESS);
    cl_int status = 0;
    ck_assert_int_eq(clGetEventInfo(marker, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, NULL), CL_SUCCESS);
    ck_assert_int_gt(status, CL_COMPLETE); /* still waiting for the user event */
    ck_assert_int_eq(fired, 0);
    ck_assert_int_eq(clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS);
    ck_assert_int_eq(clSetUserEventStatus(user, CL_COMPLETE), CL_INVALID_OPERATION);
    ck_assert_int_eq(clWaitForEvents(1, &marker), CL_SUCCESS);
    for (int i = 0; i < 200 && !fired; i++)
        usleep(5000);
    ck_assert_int_eq(fired, 1); /* the callback ran in this process */
    cl_command_type type = 0;
    ck_assert_int_eq(clGetEventInfo(marker, CL_EVENT_COMMAND_TYPE, sizeof(type), &type, NULL), CL_SUCCESS);
    ck_assert_uint_eq(type, CL_COMMAND_MARKER);
    clReleaseEvent(marker);
    clReleaseEvent(user);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("platform");
    TCase *tc = tcase_create("platform");
    tcase_add_test(tc, test_platform_is_listed);
    tcase_add_test(tc, test_device_info_matches_daemon);
    tcase_add_test(tc, test_context_and_queue_info);
    tcase_add_test(tc, test_invalid_handles);
    tcase_add_test(tc, test_user_event_marker_and_callback);
    suite_add_tcase(s, tc);
    return aos_test_run_suite(s);
}
