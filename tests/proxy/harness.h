/*
 * Integration-test support: a real accelosd on a private socket, reached through the real ICD
 * loader. ctest sets OCL_ICD_VENDORS to the build tree's vendor directory (only accelos.icd) and
 * ACCELOS_DAEMON_BIN to the built daemon.
 */
#ifndef ACCELOS_TEST_HARNESS_H
#define ACCELOS_TEST_HARNESS_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_0_APIS
#include <CL/cl.h>
#include <check.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Starts accelosd on a fresh socket under a temporary directory, exports ACCELOS_SOCKET and waits
 * until it accepts connections. Extra daemon arguments may be given (NULL-terminated). */
void aos_test_daemon_start(const char *const *extra_args);
/* Stops the daemon (SIGTERM, then waits) and removes the temporary directory. Returns its exit
 * status, 128 + the signal if a signal ended it, or 0 if it had already been reaped. */
int aos_test_daemon_stop(void);
pid_t aos_test_daemon_pid(void);
/* True while the daemon process runs (not exited, not a zombie). Works from any process. */
bool aos_test_daemon_alive(void);
/* The CPU time (user + system) the daemon process has used so far, all its threads, at the
 * kernel's tick. */
uint64_t aos_test_daemon_cpu_ns(void);
/* The CPU time (user + system) the daemon's threads of that name have used so far, at the
 * kernel's tick; fails the test when there is none. */
uint64_t aos_test_daemon_thread_cpu_ns(const char *name);
const char *aos_test_socket_path(void);
/* Prints every thread's stack of process pid to stderr through gdb, where gdb is installed: what
 * a test that found a process stuck reports, so a rare hang in CI says where it hangs. */
void aos_test_print_stacks(pid_t pid, const char *who);

/* The accelOS platform and its first device, found through clGetPlatformIDs. */
cl_platform_id aos_test_platform(void);
cl_device_id aos_test_device(void);
cl_uint aos_test_compute_units(void);
/* A context + in-order queue on the first device (profiling enabled). */
void aos_test_context(cl_context *ctx, cl_command_queue *queue);
/* Another queue on the test device in ctx, with props; fails the test if it cannot be made. */
cl_command_queue aos_test_queue(cl_context ctx, cl_command_queue_properties props);
/* Builds source for the first device; fails the test with the build log on error. */
cl_program aos_test_build(cl_context ctx, const char *source, const char *options);

/* A read-write buffer, filled from init when it is not NULL; fails the test on error. */
cl_mem aos_test_buffer(cl_context ctx, size_t size, const void *init);
/* The kernel `name` of a built program; fails the test on error. */
cl_kernel aos_test_kernel(cl_program program, const char *name);
/* For a forked client: a context and queue, source built, and its kernel `name` (which keeps the
 * program); NULL when the kernel cannot be created, so the child can exit with its setup code. */
cl_kernel aos_test_client_kernel(const char *source, const char *name, cl_context *ctx, cl_command_queue *queue);
/* The same in a test: fails the test when the kernel cannot be created. Release the three with
 * aos_test_app_release. */
cl_kernel aos_test_app_kernel(const char *source, const char *name, cl_context *ctx, cl_command_queue *queue);
void aos_test_app_release(cl_context ctx, cl_command_queue queue, cl_kernel kernel);
/* CL_EVENT_COMMAND_EXECUTION_STATUS of ev. */
cl_int aos_test_event_status(cl_event ev);

/* A forged handle: memory that starts with the proxy's real dispatch table, as a hostile or buggy
 * application could build, but that ProxyCL never handed out. The ICD loader forwards calls on it
 * to the proxy, which must reject it. (All-zero garbage would crash inside the loader itself.) */
void *aos_test_forged_handle(void);

/* Creates a file holding text from a mkstemp template (the template becomes its path); false on
 * failure. Usable outside a test, e.g. for a configuration file before the daemon starts. */
bool aos_test_write_temp(char *path_template, const char *text);

/* Runs a Check suite with the daemon started around it; returns the process exit code. */
int aos_test_run_suite(Suite *suite);
/* The same with extra daemon arguments (NULL-terminated), e.g. {"--policy", "fair", NULL}. */
int aos_test_run_suite_with_args(Suite *suite, const char *const *daemon_args);

/* The same under the fair policy, the daemon tracing to a new empty file whose path replaces the
 * mkstemp template trace_path (the tests read it), with a configuration file holding config when
 * it is not NULL; both files are removed afterwards. */
int aos_test_run_suite_fair_traced(Suite *suite, char *trace_path, const char *config);

/* The same under the fair policy with solo launches off (solo_native_us = 0): every launch of a
 * rewritten kernel is a logical launch, for tests of that machinery. */
int aos_test_run_suite_logical(Suite *suite);

#endif
