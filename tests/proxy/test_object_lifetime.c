/*
 * ProxyCL's object lifetime, built from its source. An object goes when both the application's
 * references and the internal holds are gone; the application's last release (its thread) and the
 * last unhold (the notification thread's, when a host step ends) can reach zero at the same time,
 * and then exactly one of them must destroy it. test_api_fuzz found the double free under ASan.
 */
#include <check.h>
#include <pthread.h>
#include <stdatomic.h>

#include "object.h"

/* What object.c needs from the rest of ProxyCL: the dispatch table it points at, and the wire, which
 * a release mirrors to the daemon between its count reaching zero and its check for destruction.
 * There is no daemon here; the wire's time (a ring write) is spent spinning, so that the other
 * thread's unhold lands in that gap as it does in a real client. */
const cl_icd_dispatch aos_dispatch_table;
cl_int aos_send(uint32_t opcode, const void *req, uint32_t len);
cl_int aos_send(uint32_t opcode, const void *req, uint32_t len)
{
    (void)opcode, (void)req, (void)len;
    static _Atomic unsigned spin;
    for (int i = 0; i < 2000; i++)
        atomic_fetch_add_explicit(&spin, 1, memory_order_relaxed);
    return CL_SUCCESS;
}

enum { ROUNDS = 20000 };

static _Atomic int cleanups;
static void *objects[ROUNDS];
static pthread_barrier_t start;

static void count_cleanup(struct aos_object *o)
{
    (void)o;
    atomic_fetch_add(&cleanups, 1);
}

static void *last_unholds(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        pthread_barrier_wait(&start);
        aos_object_unhold(objects[i]);
    }
    return NULL;
}

START_TEST(test_last_release_and_last_unhold_destroy_once)
{
    for (int i = 0; i < ROUNDS; i++) {
        objects[i] = aos_object_new(AOS_OBJ_QUEUE, sizeof(struct aos_object), count_cleanup);
        ck_assert_ptr_nonnull(objects[i]);
        aos_object_hold(objects[i]);
    }
    pthread_barrier_init(&start, NULL, 2);
    pthread_t other;
    ck_assert_int_eq(pthread_create(&other, NULL, last_unholds, NULL), 0);
    for (int i = 0; i < ROUNDS; i++) {
        pthread_barrier_wait(&start);
        ck_assert_int_eq(aos_object_release(objects[i], AOS_OBJ_QUEUE, CL_INVALID_COMMAND_QUEUE), CL_SUCCESS);
    }
    pthread_join(other, NULL);
    pthread_barrier_destroy(&start);
    ck_assert_int_eq(atomic_load(&cleanups), ROUNDS);
    for (int i = 0; i < ROUNDS; i++)
        ck_assert(!aos_object_alive(objects[i], AOS_OBJ_QUEUE));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("object_lifetime");
    TCase *tc = tcase_create("object_lifetime");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_last_release_and_last_unhold_destroy_once);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}
