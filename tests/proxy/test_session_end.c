/*
 * What the daemon does with the work a client leaves behind. At a session's end it fails the user
 * events nobody can set any more, released ones too, and waits until every command the client
 * enqueued has ended, on queues the client released too, before it releases the events it kept:
 * PoCL 3.1 frees a failed event on its last release while a command it waited on can still reach
 * it, which aborted the daemon (test_api_fuzz). A released queue with work in it is kept until
 * that work has ended.
 */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clients.h"
#include "daemon_status.h"
#include "good_client.h"
#include "harness.h"

static bool client_listed(pid_t pid)
{
    char text[16384], key[48];
    aos_test_status_text(text, sizeof(text));
    snprintf(key, sizeof(key), " pid %d ", (int)pid);
    return strstr(text, key) != NULL;
}

/* Leaves a marker behind a user event it released unset, and exits. */
static int released_user_event_client(int index, void *arg)
{
    (void)index, (void)arg;
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    cl_int err;
    cl_event user = clCreateUserEvent(ctx, &err);
    cl_event marker;
    if (err != CL_SUCCESS || clEnqueueMarkerWithWaitList(q, 1, &user, &marker) != CL_SUCCESS)
        return 2;
    clFlush(q);
    clReleaseEvent(user);
    cl_int status = aos_test_event_status(marker);
    clReleaseEvent(marker);
    return status == CL_SUBMITTED || status == CL_QUEUED ? 0 : 3;
}

START_TEST(test_user_event_released_unset_does_not_hold_the_session)
{
    pid_t pid = aos_test_fork_client(released_user_event_client, 0, NULL);
    ck_assert_int_eq(aos_test_reap(pid), 0);
    /* The session ends once its queue has finished: the marker fails with the user event. */
    bool listed = true;
    for (int i = 0; i < 500 && (listed = client_listed(pid)); i++)
        usleep(10000);
    ck_assert_msg(!listed, "the session of client %d never ended", (int)pid);
    ck_assert(aos_test_daemon_alive());
    good_client_setup();
    good_client_works();
    good_client_teardown();
}
END_TEST

static long long released_queues(void)
{
    return aos_test_status_count(getpid(), "released-queues");
}

/* The count once the daemon has taken the releases sent so far (they travel asynchronously): it
 * is polled until it is want, for at most 2 s. */
static long long released_queues_settle(long long want)
{
    long long kept = released_queues();
    for (int i = 0; i < 200 && kept != want; i++) {
        usleep(10000);
        kept = released_queues();
    }
    return kept;
}

/* Releases new, empty queues of ctx until the daemon keeps want released queues (at most 100):
 * each release first lets go of the kept queues whose work has ended, and an empty queue's own
 * barrier runs a moment after its release. */
static long long release_empty_queues_until(cl_context ctx, long long want)
{
    long long kept = -1;
    for (int i = 0; i < 100 && kept != want; i++) {
        cl_command_queue q = clCreateCommandQueueWithProperties(ctx, aos_test_device(), NULL, NULL);
        ck_assert_ptr_nonnull(q);
        ck_assert_int_eq(clReleaseCommandQueue(q), CL_SUCCESS);
        kept = i < 99 ? released_queues_settle(want) : released_queues();
    }
    return kept;
}

START_TEST(test_released_queue_is_kept_until_its_work_ends)
{
    cl_context ctx;
    cl_command_queue q;
    aos_test_context(&ctx, &q);
    cl_int err;
    cl_event user = clCreateUserEvent(ctx, &err);
    ck_assert_int_eq(err, CL_SUCCESS);
    cl_event marker;
    ck_assert_int_eq(clEnqueueMarkerWithWaitList(q, 1, &user, &marker), CL_SUCCESS);
    ck_assert_int_eq(clReleaseCommandQueue(q), CL_SUCCESS);
    ck_assert_int_eq(released_queues_settle(1), 1);
    /* Empty queues released later go; the busy one stays: never fewer than two. */
    ck_assert_int_eq(release_empty_queues_until(ctx, 2), 2);
    ck_assert_int_gt(aos_test_event_status(marker), CL_COMPLETE); /* still waits for the user event */
    /* Its work ends: a later release lets it go. */
    ck_assert_int_eq(clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS);
    ck_assert_int_eq(clWaitForEvents(1, &marker), CL_SUCCESS);
    ck_assert_int_eq(release_empty_queues_until(ctx, 1), 1);
    clReleaseEvent(marker);
    clReleaseEvent(user);
    clReleaseContext(ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("session_end");
    TCase *tc = tcase_create("session_end");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_user_event_released_unset_does_not_hold_the_session);
    tcase_add_test(tc, test_released_queue_is_kept_until_its_work_ends);
    suite_add_tcase(s, tc);
    return aos_test_run_suite(s);
}
