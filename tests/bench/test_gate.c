/* Unit tests of the mix gate's loop-mode count: who is still counting. */
#include "aos_barrier.h"
#include "check_run.h"
#include <check.h>
#include <unistd.h>

START_TEST(only_tenants_ready_at_the_opening_count)
{
	int fd;
	struct aos_gate *g = aos_gate_new(&fd);
	ck_assert_ptr_nonnull(g);
	aos_gate_slot(g, 0)->state = AOS_SLOT_READY;
	aos_gate_slot(g, 1)->state = AOS_SLOT_READY;
	aos_gate_slot(g, 2)->state = AOS_SLOT_ERROR; /* failed its setup */
	ck_assert_int_eq(aos_gate_running(g), 0);    /* nothing counts before the opening */
	ck_assert_uint_gt(aos_gate_open(g), 0);
	ck_assert_int_eq(aos_gate_running(g), 2);
	/* The runner finishes a tenant whose process exited, counted or not: one that never
	 * counted must not end another's co-running early. */
	aos_gate_finish(g, 2);
	ck_assert_int_eq(aos_gate_running(g), 2);
	aos_gate_finish(g, 0);
	ck_assert_int_eq(aos_gate_running(g), 1);
	aos_gate_finish(g, 0); /* the tenant, then the runner when it exits */
	ck_assert_int_eq(aos_gate_running(g), 1);
	aos_gate_finish(g, AOS_MIX_MAX_TENANTS); /* no such slot */
	ck_assert_int_eq(aos_gate_running(g), 1);
	aos_gate_finish(g, 1);
	ck_assert_int_eq(aos_gate_running(g), 0);
	aos_gate_destroy(g);
	close(fd);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("bench-gate");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, only_tenants_ready_at_the_opening_count);
	suite_add_tcase(s, tc);
	return aos_check_run(s);
}
