/*
 * Other processes in integration tests: application processes forked before the parent touches
 * OpenCL (each child is then its own client of the daemon), a go/ready gate that starts them at
 * the same moment, and daemon runs that must refuse to start.
 */
#ifndef ACCELOS_TEST_CLIENTS_H
#define ACCELOS_TEST_CLIENTS_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>
#include <stdbool.h>
#include <sys/types.h>

/* Forks a child that runs body(index, arg) and exits with its return value. The child dies with
 * the test process, so a failed test never leaves clients behind. */
pid_t aos_test_fork_client(int (*body)(int index, void *arg), int index, void *arg);
/* Waits for a forked child; its exit code, or 128 + the signal that killed it. */
int aos_test_reap(pid_t pid);

/* Children say they are ready, then wait for the parent's go (one byte each way per child). */
struct aos_test_gate {
    int ready[2];
    int go[2];
};
void aos_test_gate_open(struct aos_test_gate *g);
/* Parent, once every child is forked: waits until n children are ready; fails the test when
 * they all ended before that. */
void aos_test_gate_await_ready(struct aos_test_gate *g, int n);
/* Parent: lets n waiting children go. */
void aos_test_gate_go(struct aos_test_gate *g, int n);
/* Child: says it is ready. */
bool aos_test_gate_ready(struct aos_test_gate *g);
/* Child: says it is ready and waits for the go; false when the parent is gone. */
bool aos_test_gate_sync(struct aos_test_gate *g);

/* The scene of the scheduler tests with a long and a short client, on separate pipes (a child
 * that synced twice on one gate could take the go meant for another): both clients build, then
 * sync on `start`; client 0 starts its long launch and says so on `launched`; client 1 waits on
 * `go`, given settle_us after that. */
struct aos_test_long_short {
    struct aos_test_gate start, launched, go;
    const struct aos_test_spin_scene *spin; /* what aos_test_spin_scene_client plays */
};
/* Parent, before touching OpenCL: forks body as clients 0 and 1, plays the scene, reaps both, and
 * fails the test unless both exit 0 (1 is read as wrong results, 3 as setup). */
void aos_test_long_short_run(int (*body)(int index, void *arg), struct aos_test_long_short *g, unsigned settle_us);

/* The plain scene of spin launches, from src in groups of `local` items: client 0 launches
 * `long_name` once over long_groups groups (per compute unit when long_per_cu); client 1, on the go,
 * launches `short_name` over short_groups groups, short_launches times one after another. */
struct aos_test_spin_scene {
    const char *src, *long_name, *short_name;
    size_t local, long_groups, short_groups;
    bool long_per_cu;
    cl_uint long_rounds, short_rounds;
    int short_launches;
};
/* A body for aos_test_long_short_run that plays arg's `spin`. 0, or 1 wrong results, 3 setup. */
int aos_test_spin_scene_client(int index, void *arg);

/* Client side of those scenes: launches the spin kernel `name` of p over `groups` groups of `local`
 * items, says so on `sent` (when not NULL) once it is flushed, and checks a sample of its results.
 * 0, or 1 wrong results, 3 setup. */
int aos_test_spin_launch(cl_context ctx, cl_command_queue q, cl_program p, const char *name, size_t groups,
                         size_t local, cl_uint rounds, struct aos_test_gate *sent);

/* Runs the daemon binary with args (NULL-terminated), stderr discarded; its exit code, or 128 +
 * the signal. For configurations it must refuse. */
int aos_test_daemon_exit_code(const char *const *args);

#endif
