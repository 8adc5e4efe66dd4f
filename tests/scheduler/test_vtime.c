/* Virtual-time picker (fair queueing) and the slice budget helper. Times are
 * in ns; 1 ms = 1000000. */
#include "accelos/sched.h"
#include "check_run.h"

#include <check.h>
#include <errno.h>
#include <math.h>

#define MS 1000000ull

static struct aos_sched_vt *vt;

static void setup(void)
{
	vt = aos_sched_vt_new();
	ck_assert_ptr_nonnull(vt);
}

static void teardown(void)
{
	aos_sched_vt_destroy(vt);
}

static double vtime_of(uint64_t id)
{
	double v = -1;
	ck_assert_int_eq(aos_sched_vt_get(vt, id, &v, NULL), 0);
	return v;
}

static uint64_t pick(void)
{
	uint64_t id = 0;
	ck_assert_int_eq(aos_sched_vt_pick(vt, &id), 0);
	return id;
}

START_TEST(equal_clients_rotate)
{
	/* Three equal clients, each slice charges 1 ms of the whole device: the
	 * lowest virtual time runs next, ties go to the earliest arrival, so they
	 * take turns 10, 20, 30, 10, 20, 30, ... */
	ck_assert_int_eq(aos_sched_vt_join(vt, 10, 1), 0);
	ck_assert_int_eq(aos_sched_vt_join(vt, 20, 1), 0);
	ck_assert_int_eq(aos_sched_vt_join(vt, 30, 1), 0);
	static const uint64_t expect[3] = { 10, 20, 30 };
	for (int round = 0; round < 30; round++) {
		uint64_t id = pick();
		ck_assert_uint_eq(id, expect[round % 3]);
		ck_assert_int_eq(aos_sched_vt_charge(vt, id, 1 * MS, 1.0), 0);
	}
	for (int i = 0; i < 3; i++)
		ck_assert_double_eq_tol(vtime_of(expect[i]), 10.0 * MS, 1e-6);
	ck_assert_double_eq_tol(aos_sched_vt_now(vt), 10.0 * MS, 1e-6);
}
END_TEST

START_TEST(newcomer_starts_at_minimum)
{
	/* A at 5 ms, B at 8 ms; C joins at the current minimum (5 ms), not at 0,
	 * so it cannot monopolise the device to "catch up". Order: A (5 ms,
	 * earlier arrival), C (5 ms), B (8 ms). */
	ck_assert_int_eq(aos_sched_vt_join(vt, 1, 1), 0);
	ck_assert_int_eq(aos_sched_vt_join(vt, 2, 1), 0);
	ck_assert_int_eq(aos_sched_vt_charge(vt, 1, 5 * MS, 1.0), 0);
	ck_assert_int_eq(aos_sched_vt_charge(vt, 2, 8 * MS, 1.0), 0);
	ck_assert_double_eq_tol(aos_sched_vt_now(vt), 5.0 * MS, 1e-6);
	ck_assert_int_eq(aos_sched_vt_join(vt, 3, 1), 0);
	ck_assert_double_eq_tol(vtime_of(3), 5.0 * MS, 1e-6);
	uint64_t ids[3];
	ck_assert_uint_eq(aos_sched_vt_order(vt, ids, 3), 3);
	ck_assert_uint_eq(ids[0], 1);
	ck_assert_uint_eq(ids[1], 3);
	ck_assert_uint_eq(ids[2], 2);
}
END_TEST

START_TEST(idle_time_earns_no_credit_and_debt_stays)
{
	/* A leaves at 1 ms; B runs alone to 10 ms; A comes back at 10 ms. */
	ck_assert_int_eq(aos_sched_vt_join(vt, 1, 1), 0);
	ck_assert_int_eq(aos_sched_vt_join(vt, 2, 1), 0);
	ck_assert_int_eq(aos_sched_vt_charge(vt, 1, 1 * MS, 1.0), 0);
	ck_assert_int_eq(aos_sched_vt_leave(vt, 1), 0);
	ck_assert_int_eq(aos_sched_vt_charge(vt, 2, 10 * MS, 1.0), 0);
	ck_assert_double_eq_tol(aos_sched_vt_now(vt), 10.0 * MS, 1e-6);
	ck_assert_int_eq(aos_sched_vt_join(vt, 1, 1), 0);
	ck_assert_double_eq_tol(vtime_of(1), 10.0 * MS, 1e-6);

	/* A runs ahead to 50 ms and leaves; when it returns it still owes. */
	ck_assert_int_eq(aos_sched_vt_charge(vt, 1, 40 * MS, 1.0), 0);
	ck_assert_int_eq(aos_sched_vt_leave(vt, 1), 0);
	ck_assert_int_eq(aos_sched_vt_join(vt, 1, 1), 0);
	ck_assert_double_eq_tol(vtime_of(1), 50.0 * MS, 1e-6);
	ck_assert_uint_eq(pick(), 2);

	/* Forgotten (client gone): a new client with the same id starts fresh
	 * at the system virtual time. */
	ck_assert_uint_eq(aos_sched_vt_count(vt), 2);
	ck_assert_int_eq(aos_sched_vt_forget(vt, 1), 0);
	ck_assert_int_eq(aos_sched_vt_get(vt, 1, NULL, NULL), -ENOENT);
	ck_assert_uint_eq(aos_sched_vt_count(vt), 1);
	ck_assert_int_eq(aos_sched_vt_join(vt, 1, 1), 0);
	ck_assert_double_eq_tol(vtime_of(1), 10.0 * MS, 1e-6);
}
END_TEST

START_TEST(rejoin_keeps_lag_up_to_credit)
{
	/* Credit 3 ms. A leaves 2 ms behind B (host work between two launches) and B runs 10 ms
	 * alone: A comes back 2 ms behind B, not level with it, and runs first; the time it was
	 * away earned it nothing. */
	ck_assert_int_eq(aos_sched_vt_set_rejoin_credit(vt, 3 * MS), 0);
	ck_assert_int_eq(aos_sched_vt_join(vt, 1, 1), 0);
	ck_assert_int_eq(aos_sched_vt_join(vt, 2, 1), 0);
	ck_assert_int_eq(aos_sched_vt_charge(vt, 1, 1 * MS, 1.0), 0);
	ck_assert_int_eq(aos_sched_vt_charge(vt, 2, 3 * MS, 1.0), 0);
	ck_assert_int_eq(aos_sched_vt_leave(vt, 1), 0);
	ck_assert_int_eq(aos_sched_vt_charge(vt, 2, 10 * MS, 1.0), 0);
	ck_assert_double_eq_tol(aos_sched_vt_now(vt), 13.0 * MS, 1e-6);
	ck_assert_double_eq_tol(aos_sched_vt_joining(vt, 1), 11.0 * MS, 1e-6); /* what join will give */
	ck_assert_double_eq_tol(aos_sched_vt_joining(vt, 2), 13.0 * MS, 1e-6); /* active: its own */
	ck_assert_double_eq_tol(aos_sched_vt_joining(vt, 99), 13.0 * MS, 1e-6); /* unknown: a newcomer */
	ck_assert_int_eq(aos_sched_vt_join(vt, 1, 1), 0);
	ck_assert_double_eq_tol(vtime_of(1), 11.0 * MS, 1e-6);
	ck_assert_uint_eq(pick(), 1);
	ck_assert_double_eq_tol(aos_sched_vt_now(vt), 13.0 * MS, 1e-6); /* never back */

	/* Left 7 ms behind (B ran 5 ms while A waited): A keeps only the 3 ms credit. */
	ck_assert_int_eq(aos_sched_vt_charge(vt, 2, 5 * MS, 1.0), 0);
	ck_assert_int_eq(aos_sched_vt_leave(vt, 1), 0);
	ck_assert_int_eq(aos_sched_vt_charge(vt, 2, 2 * MS, 1.0), 0);
	ck_assert_double_eq_tol(aos_sched_vt_joining(vt, 1), 17.0 * MS, 1e-6);
	ck_assert_int_eq(aos_sched_vt_join(vt, 1, 1), 0);
	ck_assert_double_eq_tol(vtime_of(1), 17.0 * MS, 1e-6);

	/* No debt is forgiven: ahead when it left, as far ahead when it comes back. */
	ck_assert_int_eq(aos_sched_vt_charge(vt, 1, 20 * MS, 1.0), 0);
	ck_assert_int_eq(aos_sched_vt_leave(vt, 1), 0);
	ck_assert_double_eq_tol(aos_sched_vt_joining(vt, 1), 37.0 * MS, 1e-6);
	ck_assert_int_eq(aos_sched_vt_join(vt, 1, 1), 0);
	ck_assert_double_eq_tol(vtime_of(1), 37.0 * MS, 1e-6);

	/* A newcomer starts at the system virtual time (B's 20 ms), with no credit. */
	ck_assert_int_eq(aos_sched_vt_join(vt, 3, 1), 0);
	ck_assert_double_eq_tol(vtime_of(3), 20.0 * MS, 1e-6);

	/* Credit 0 (the library's default): C left 5 ms behind, comes back level. */
	ck_assert_int_eq(aos_sched_vt_set_rejoin_credit(vt, 0), 0);
	ck_assert_int_eq(aos_sched_vt_charge(vt, 2, 5 * MS, 1.0), 0);
	ck_assert_int_eq(aos_sched_vt_leave(vt, 3), 0);
	ck_assert_int_eq(aos_sched_vt_charge(vt, 2, 1 * MS, 1.0), 0);
	ck_assert_int_eq(aos_sched_vt_join(vt, 3, 1), 0);
	ck_assert_double_eq_tol(vtime_of(3), 26.0 * MS, 1e-6);
	ck_assert_int_eq(aos_sched_vt_set_rejoin_credit(NULL, 1), -EINVAL);
}
END_TEST

START_TEST(system_time_never_goes_back)
{
	ck_assert_int_eq(aos_sched_vt_join(vt, 1, 1), 0);
	ck_assert_int_eq(aos_sched_vt_join(vt, 2, 1), 0);
	ck_assert_int_eq(aos_sched_vt_charge(vt, 2, 7 * MS, 1.0), 0);
	ck_assert_double_eq(aos_sched_vt_now(vt), 0.0);
	/* The slowest leaves: system time jumps to B's 7 ms ... */
	ck_assert_int_eq(aos_sched_vt_leave(vt, 1), 0);
	ck_assert_double_eq_tol(aos_sched_vt_now(vt), 7.0 * MS, 1e-6);
	/* ... and stays there with nobody active. */
	ck_assert_int_eq(aos_sched_vt_leave(vt, 2), 0);
	ck_assert_double_eq_tol(aos_sched_vt_now(vt), 7.0 * MS, 1e-6);
	ck_assert_int_eq(aos_sched_vt_pick(vt, NULL), -ENOENT);
	ck_assert_int_eq(aos_sched_vt_join(vt, 1, 1), 0);
	ck_assert_double_eq_tol(vtime_of(1), 7.0 * MS, 1e-6);
}
END_TEST

START_TEST(weights_two_to_one)
{
	/* Weight 2 is charged half: over 300 equal slices it runs twice as often. */
	ck_assert_int_eq(aos_sched_vt_join(vt, 1, 2), 0);
	ck_assert_int_eq(aos_sched_vt_join(vt, 2, 1), 0);
	int runs[3] = { 0, 0, 0 };
	for (int i = 0; i < 300; i++) {
		uint64_t id = pick();
		runs[id]++;
		ck_assert_int_eq(aos_sched_vt_charge(vt, id, 1 * MS, 1.0), 0);
	}
	ck_assert_int_eq(runs[1], 200);
	ck_assert_int_eq(runs[2], 100);
	ck_assert_double_eq_tol(vtime_of(1), 100.0 * MS, 1e-6);
	ck_assert_double_eq_tol(vtime_of(2), 100.0 * MS, 1e-6);

	/* Changing the weight changes future charges only. */
	ck_assert_int_eq(aos_sched_vt_set_weight(vt, 2, 4), 0);
	ck_assert_int_eq(aos_sched_vt_charge(vt, 2, 4 * MS, 1.0), 0);
	ck_assert_double_eq_tol(vtime_of(2), 101.0 * MS, 1e-6);
	/* Weight <= 0 means 1. */
	ck_assert_int_eq(aos_sched_vt_set_weight(vt, 2, 0), 0);
	ck_assert_int_eq(aos_sched_vt_charge(vt, 2, 1 * MS, 1.0), 0);
	ck_assert_double_eq_tol(vtime_of(2), 102.0 * MS, 1e-6);
}
END_TEST

START_TEST(charge_scales_with_share_held)
{
	/* Holding a quarter of the device for 8 ms costs 2 ms of virtual time. */
	ck_assert_int_eq(aos_sched_vt_join(vt, 1, 1), 0);
	ck_assert_int_eq(aos_sched_vt_charge(vt, 1, 8 * MS, 0.25), 0);
	ck_assert_double_eq_tol(vtime_of(1), 2.0 * MS, 1e-6);
	ck_assert_int_eq(aos_sched_vt_charge(vt, 1, 8 * MS, 0.0), 0);
	ck_assert_double_eq_tol(vtime_of(1), 2.0 * MS, 1e-6);
	/* Charging after leave (slice finished late) still counts. */
	ck_assert_int_eq(aos_sched_vt_leave(vt, 1), 0);
	ck_assert_int_eq(aos_sched_vt_charge(vt, 1, 1 * MS, 1.0), 0);
	ck_assert_double_eq_tol(vtime_of(1), 3.0 * MS, 1e-6);
}
END_TEST

START_TEST(errors)
{
	uint64_t arrival = 99;
	ck_assert_int_eq(aos_sched_vt_join(vt, 1, 1), 0);
	ck_assert_int_eq(aos_sched_vt_join(vt, 1, 1), -EEXIST);
	ck_assert_int_eq(aos_sched_vt_leave(vt, 2), -ENOENT);
	ck_assert_int_eq(aos_sched_vt_forget(vt, 2), -ENOENT);
	ck_assert_int_eq(aos_sched_vt_set_weight(vt, 2, 1), -ENOENT);
	ck_assert_int_eq(aos_sched_vt_charge(vt, 2, MS, 1.0), -ENOENT);
	ck_assert_int_eq(aos_sched_vt_charge(vt, 1, MS, 1.5), -EINVAL);
	ck_assert_int_eq(aos_sched_vt_charge(vt, 1, MS, -0.1), -EINVAL);
	ck_assert_int_eq(aos_sched_vt_charge(vt, 1, MS, NAN), -EINVAL);
	ck_assert_int_eq(aos_sched_vt_get(vt, 1, NULL, &arrival), 0);
	ck_assert_uint_eq(arrival, 0);
	ck_assert_int_eq(aos_sched_vt_leave(vt, 1), 0);
	ck_assert_int_eq(aos_sched_vt_leave(vt, 1), -ENOENT);
	ck_assert_int_eq(aos_sched_vt_join(NULL, 1, 1), -EINVAL);
	ck_assert_uint_eq(aos_sched_vt_order(NULL, NULL, 0), 0);
	aos_sched_vt_destroy(NULL);
}
END_TEST

START_TEST(order_with_small_buffer)
{
	/* Many entities (more than the initial table), order capped at 2. */
	for (uint64_t id = 0; id < 40; id++)
		ck_assert_int_eq(aos_sched_vt_join(vt, id, 1), 0);
	for (uint64_t id = 0; id < 40; id++)
		ck_assert_int_eq(aos_sched_vt_charge(vt, id, (40 - id) * MS, 1.0), 0);
	uint64_t ids[2] = { 0, 0 };
	ck_assert_uint_eq(aos_sched_vt_order(vt, ids, 2), 40);
	ck_assert_uint_eq(ids[0], 39);
	ck_assert_uint_eq(ids[1], 38);
	ck_assert_uint_eq(aos_sched_vt_order(vt, NULL, 0), 40);
	ck_assert_double_eq_tol(aos_sched_vt_now(vt), 1.0 * MS, 1e-6);
}
END_TEST

START_TEST(slice_budget)
{
	static const struct {
		double ns_per_vgroup;
		uint64_t slice_ns, remaining, probe, expect;
	} rows[] = {
		{ 100000.0, 4 * MS, 1000, 8, 40 },    /* 0.1 ms each: 40 per 4 ms */
		{ 100000.0, 4 * MS, 25, 8, 25 },      /* never more than remain */
		{ 100000.0, 4 * MS, 0, 8, 0 },        /* nothing left */
		{ 10.0 * MS, 4 * MS, 1000, 8, 1 },    /* slower than a slice: still 1 */
		{ 3.0 * MS, 4 * MS, 1000, 8, 1 },     /* 1.33 -> 1 */
		{ 0.0, 4 * MS, 1000, 8, 8 },          /* unmeasured: probe */
		{ -1.0, 4 * MS, 1000, 0, 1 },         /* unmeasured, no probe: 1 */
		{ NAN, 4 * MS, 1000, 16, 16 },
		{ INFINITY, 4 * MS, 1000, 16, 16 },
		{ 0.0, 4 * MS, 5, 16, 5 },            /* probe capped by remaining */
		{ 1e-15, 4 * MS, UINT64_MAX, 8, UINT64_MAX }, /* no overflow */
		{ 250000.0, 2 * MS, 1000, 8, 8 },     /* configurable slice: 2 ms / 0.25 ms */
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		ck_assert_uint_eq(aos_sched_slice_vgroups(rows[i].ns_per_vgroup, rows[i].slice_ns, rows[i].remaining,
							  rows[i].probe),
				  rows[i].expect);
	ck_assert_uint_eq(AOS_SCHED_SLICE_MS_DEFAULT, 4);
}
END_TEST

START_TEST(whole_rounds)
{
	static const struct {
		uint64_t vgroups, groups, remaining, expect;
	} rows[] = {
		{ 3, 2, 32, 4 },     /* ComputeQ_GPU alone: 3 of 8 ms on 2 CUs take 2 rounds, as 4 do */
		{ 4, 2, 32, 4 },     /* whole already */
		{ 1, 2, 32, 2 },     /* under one round: one each */
		{ 3, 2, 3, 3 },      /* the tail */
		{ 5, 4, 6, 6 },      /* never more than remain */
		{ 41, 8, 1000, 48 },
		{ 7, 1, 100, 7 },    /* one group: nothing to round */
		{ 7, 0, 100, 7 },
		{ 0, 4, 100, 0 },    /* nothing asked */
		{ 9, 4, 0, 0 },      /* nothing left */
		{ UINT64_MAX - 1, 4, UINT64_MAX, UINT64_MAX }, /* no overflow */
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		ck_assert_uint_eq(aos_sched_whole_rounds(rows[i].vgroups, rows[i].groups, rows[i].remaining), rows[i].expect);
}
END_TEST

START_TEST(tail_taken_along)
{
	static const struct {
		uint64_t vgroups, remaining, expect;
	} rows[] = {
		{ 400, 480, 480 },   /* 80 left, a fifth of the wave: taken now */
		{ 400, 600, 600 },   /* exactly half of the wave left: taken */
		{ 400, 601, 400 },   /* more than half: its own wave later */
		{ 100, 1000, 100 },  /* a long launch: slices as before */
		{ 480, 480, 480 },   /* the whole launch already */
		{ 500, 480, 480 },   /* never more than remains */
		{ 1, 2, 1 },         /* one group's half is none: the second group waits */
		{ 2, 3, 3 },
		{ 0, 5, 0 },         /* nothing asked */
		{ 7, 0, 0 },         /* nothing left */
		{ UINT64_MAX - 1, UINT64_MAX, UINT64_MAX }, /* no overflow */
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		ck_assert_uint_eq(aos_sched_with_tail(rows[i].vgroups, rows[i].remaining), rows[i].expect);
}
END_TEST

START_TEST(progress_charge)
{
	static const struct {
		uint64_t device_ns;
		double alone_one;
		uint64_t ran, together, expect;
	} rows[] = {
		{ 1000000, 0, 100, 2, 1000000 },       /* never measured alone: its device time */
		{ 1000000, 20000, 100, 2, 1000000 },   /* as fast as alone: all of it */
		{ 1000000, 25000, 100, 2, 1000000 },   /* slower alone (noise): never more than it took */
		{ 1000000, 16000, 100, 2, 800000 },    /* 1.25x slower in the mix: what alone takes */
		{ 1000000, 8000, 100, 2, 500000 },     /* 2.5x slower: no less than half */
		{ 1000000, 16000, 100, 1, 1000000 },   /* a narrow wave: one group at a time takes 1.6 ms alone */
		{ 1000000, 16000, 0, 2, 1000000 },     /* nothing ran */
		{ 1000000, 16000, 100, 0, 1000000 },
		{ 0, 16000, 100, 2, 0 },
		{ 1001, 0.1, 1, 1, 500 },              /* half, rounded down */
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		ck_assert_uint_eq(aos_sched_progress_charge(rows[i].device_ns, rows[i].alone_one, rows[i].ran,
							   rows[i].together), rows[i].expect);
}
END_TEST

START_TEST(direct_wave_width)
{
	static const struct {
		uint32_t cus;
		double ns_per_vgroup_one;
		uint64_t slice_ns;
		bool others;
		uint64_t remaining;
		uint32_t expect;
	} rows[] = {
		{ 2, 9.0 * MS, 4 * MS, true, 30, 1 },     /* ComputeQ beside short kernels: one CU left free */
		{ 2, 9.0 * MS, 4 * MS, false, 30, 2 },    /* alone: the whole device */
		{ 2, 0.1 * MS, 4 * MS, true, 30, 2 },     /* short groups: turns cost less than a slice */
		{ 2, 4.0 * MS, 4 * MS, true, 30, 2 },     /* exactly a slice: turns */
		{ 8, 5.0 * MS, 4 * MS, true, 30, 7 },
		{ 1, 9.0 * MS, 4 * MS, true, 30, 1 },     /* one CU: nothing to leave */
		{ 2, 0.0, 4 * MS, true, 30, 2 },          /* unmeasured: the probe spans the device */
		{ 2, NAN, 4 * MS, true, 30, 2 },
		{ 2, INFINITY, 4 * MS, true, 30, 2 },
		{ 4, 0.1 * MS, 4 * MS, false, 3, 3 },     /* the tail */
		{ 4, 9.0 * MS, 4 * MS, true, 0, 0 },      /* nothing left */
		{ 0, 0.1 * MS, 4 * MS, false, 30, 1 },    /* no model: one */
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		ck_assert_msg(aos_sched_direct_width(rows[i].cus, rows[i].ns_per_vgroup_one, rows[i].slice_ns,
						     rows[i].others, rows[i].remaining) == rows[i].expect,
			      "row %zu", i);
}
END_TEST

/* Waves while others are present: about their shortest launch, not below the floor times the
 * number of other clients present, not above the slice; the slice itself when alone,
 * unmeasured or switched off. */
START_TEST(response_slice_table)
{
	static const struct {
		uint64_t slice_ns, shortest_ns;
		uint32_t others;
		uint64_t floor_ns, expect;
	} rows[] = {
		{ 4 * MS, MS / 10, 1, MS / 4, MS / 4 },      /* one other of 0.1 ms launches: the floor */
		{ 4 * MS, MS / 2, 1, MS / 4, MS / 2 },       /* histo (0.5 ms) beside lbm: its launch */
		{ 4 * MS, 2 * MS, 1, MS / 4, 2 * MS },       /* the other's launch */
		{ 4 * MS, 9 * MS, 1, MS / 4, 4 * MS },       /* longer than a slice: the slice */
		{ 4 * MS, MS / 10, 2, MS / 4, MS / 2 },      /* two present: two floors */
		{ 4 * MS, MS / 10, 3, MS / 4, 3 * MS / 4 },  /* three present: three floors */
		{ 4 * MS, 3 * MS, 3, MS / 4, 3 * MS },       /* ... or their shortest launch */
		{ 4 * MS, MS / 10, 7, MS / 4, 7 * MS / 4 },  /* seven: seven floors */
		{ 4 * MS, MS / 10, 17, MS / 4, 4 * MS },     /* seventeen: floors above the slice */
		{ 4 * MS, MS / 10, 0, MS / 4, 4 * MS },      /* alone */
		{ 4 * MS, 0, 2, MS / 4, 4 * MS },            /* unmeasured */
		{ 4 * MS, MS / 10, 1, 0, 4 * MS },           /* off */
		{ 4 * MS, MS / 10, 2, UINT64_MAX / 2, 4 * MS }, /* no overflow */
		{ 4 * MS, MS / 10, UINT32_MAX, 1, 4 * MS },  /* nor with a huge count */
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		ck_assert_msg(aos_sched_response_slice(rows[i].slice_ns, rows[i].shortest_ns, rows[i].others,
						       rows[i].floor_ns) == rows[i].expect,
			      "row %zu: %llu", i,
			      (unsigned long long)aos_sched_response_slice(rows[i].slice_ns, rows[i].shortest_ns,
									    rows[i].others, rows[i].floor_ns));
}
END_TEST

/* Anticipation waits for a client not ahead of the next ready one; for one whose next launch is
 * already queued, also while at most the lead ahead. */
START_TEST(hold_allowed_table)
{
	static const struct {
		double client, next;
		bool queued;
		uint64_t lead_ns;
		bool expect;
	} rows[] = {
		{ 1e6, 2e6, false, 0, true },              /* behind */
		{ 2e6, 2e6, false, 0, true },              /* level */
		{ 2e6 + 1, 2e6, false, 500000, false },    /* ahead, nothing queued: no lead */
		{ 2.4e6, 2e6, true, 500000, true },        /* queued, within the lead */
		{ 2.5e6, 2e6, true, 500000, true },        /* ... at its edge */
		{ 2.6e6, 2e6, true, 500000, false },       /* ... beyond it */
		{ 2e6 + 1, 2e6, true, 0, false },          /* lead 0: as without a queued launch */
		{ 1e15, 0, true, UINT64_MAX, true },       /* no overflow */
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		ck_assert_msg(aos_sched_hold_allowed(rows[i].client, rows[i].next, rows[i].queued, rows[i].lead_ns) ==
				      rows[i].expect,
			      "row %zu", i);
}
END_TEST

/* A launch alone: waves of the lone slice, never shorter than the slice; the slice when off. */
START_TEST(lone_slice_table)
{
	static const struct {
		uint64_t slice_ns, lone_ns, expect;
	} rows[] = {
		{ 4 * MS, 16 * MS, 16 * MS }, /* the default: four slices */
		{ 4 * MS, 0, 4 * MS },        /* off */
		{ 4 * MS, 2 * MS, 4 * MS },   /* below the slice: the slice */
		{ 20 * MS, 16 * MS, 20 * MS },
		{ 1, UINT64_MAX, UINT64_MAX },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		ck_assert_msg(aos_sched_lone_slice(rows[i].slice_ns, rows[i].lone_ns) == rows[i].expect, "row %zu: %llu",
			      i, (unsigned long long)aos_sched_lone_slice(rows[i].slice_ns, rows[i].lone_ns));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sched-vtime");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, equal_clients_rotate);
	tcase_add_test(tc, response_slice_table);
	tcase_add_test(tc, lone_slice_table);
	tcase_add_test(tc, hold_allowed_table);
	tcase_add_test(tc, newcomer_starts_at_minimum);
	tcase_add_test(tc, idle_time_earns_no_credit_and_debt_stays);
	tcase_add_test(tc, rejoin_keeps_lag_up_to_credit);
	tcase_add_test(tc, system_time_never_goes_back);
	tcase_add_test(tc, weights_two_to_one);
	tcase_add_test(tc, charge_scales_with_share_held);
	tcase_add_test(tc, errors);
	tcase_add_test(tc, order_with_small_buffer);
	tcase_add_test(tc, slice_budget);
	tcase_add_test(tc, whole_rounds);
	tcase_add_test(tc, tail_taken_along);
	tcase_add_test(tc, progress_charge);
	tcase_add_test(tc, direct_wave_width);
	suite_add_tcase(s, tc);
	return aos_check_run(s);
}
