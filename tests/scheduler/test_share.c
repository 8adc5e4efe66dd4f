/*
 * Share solver (§3 of the accelOS paper) against hand-computed tables.
 *
 * Devices used:
 *   cpu2  = PoCL-like CPU, 2 CUs: T = 8192 threads, L = 4 MiB, R unknown,
 *           G = 2 resident groups (one per core).
 *   k20m  = sm_35 x 13 SMX: T = 13 x 2048 = 26624, L = 13 x 48 KiB = 638976,
 *           R = 13 x 65536 = 851968, G = 13 x 16 = 208; warps of 32 threads,
 *           registers allocated per warp in units of 256.
 *   sm1   = sm_35 with a single SMX: T = 2048, L = 49152, R = 65536, G = 16.
 */
#include "accelos/sched.h"
#include "check_run.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>

static struct aos_sched_device cpu2, k20m, sm1;

static void setup(void)
{
	ck_assert_int_eq(aos_sched_device_from_arch("cpu", 2, &cpu2), 0);
	ck_assert_int_eq(aos_sched_device_from_arch("sm_35", 13, &k20m), 0);
	ck_assert_int_eq(aos_sched_device_from_arch("sm_35", 1, &sm1), 0);
}

static struct aos_sched_kernel kern(uint32_t w, uint64_t m, uint32_t r, uint64_t total)
{
	return (struct aos_sched_kernel){ .wg_threads = w, .local_mem = m, .regs_per_thread = r,
					  .total_groups = total, .weight = 1 };
}

/* Threads the solution occupies (w rounded to 32 on sm_35: the tests use
 * multiples of 32, so w itself). */
static uint64_t threads_used(const struct aos_sched_kernel *k, const struct aos_sched_share *o, size_t n)
{
	uint64_t t = 0;
	for (size_t i = 0; i < n; i++)
		t += o[i].groups * k[i].wg_threads;
	return t;
}

START_TEST(equal_kernels_on_two_core_cpu)
{
	/* K equal kernels (64 work-items, no local memory). Per kernel:
	 * x = 8192 / (K 64), g = 2 / K; g binds. K=1 gets both cores; K=2 one
	 * each; K=4 and K=8: the first two (in order) run, the rest wait because
	 * the device is full at one group each. */
	static const struct {
		size_t k;
		uint64_t eq, groups;
		size_t running;
		double share;
	} rows[] = {
		{ 1, 2, 2, 1, 1.0 },
		{ 2, 1, 1, 2, 0.5 },
		{ 4, 1, 1, 2, 0.5 },
		{ 8, 1, 1, 2, 0.5 },
	};
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		struct aos_sched_kernel k[8];
		struct aos_sched_share o[8];
		for (size_t i = 0; i < rows[r].k; i++)
			k[i] = kern(64, 0, 0, 1000);
		ck_assert_int_eq(aos_sched_share_solve(&cpu2, k, rows[r].k, NULL, o), 0);
		for (size_t i = 0; i < rows[r].k; i++) {
			if (i < rows[r].running) {
				ck_assert_int_eq(o[i].status, AOS_SCHED_RUN);
				ck_assert_uint_eq(o[i].eq_groups, rows[r].eq);
				ck_assert_int_eq(o[i].eq_limit, AOS_SCHED_LIMIT_GROUPS);
				ck_assert_uint_eq(o[i].groups, rows[r].groups);
				ck_assert_int_eq(o[i].limit, AOS_SCHED_LIMIT_GROUPS);
				ck_assert_double_eq_tol(o[i].share, rows[r].share, 1e-12);
			} else {
				ck_assert_int_eq(o[i].status, AOS_SCHED_WAIT);
				ck_assert_uint_eq(o[i].groups, 0);
				ck_assert_int_eq(o[i].limit, AOS_SCHED_LIMIT_GROUPS);
				ck_assert_double_eq(o[i].share, 0.0);
			}
		}
	}
}
END_TEST

START_TEST(equal_kernels_on_k20m)
{
	/* 256 work-items: x = 26624 / (K 256) = 104 / K; g = 208 / K never
	 * binds first. Each kernel alone holds 8 groups per SMX = 104. */
	static const struct {
		size_t k;
		uint64_t groups;
	} rows[] = { { 1, 104 }, { 2, 52 }, { 4, 26 }, { 8, 13 } };
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		struct aos_sched_kernel k[8];
		struct aos_sched_share o[8];
		for (size_t i = 0; i < rows[r].k; i++)
			k[i] = kern(256, 0, 0, 100000);
		ck_assert_int_eq(aos_sched_share_solve(&k20m, k, rows[r].k, NULL, o), 0);
		for (size_t i = 0; i < rows[r].k; i++) {
			ck_assert_int_eq(o[i].status, AOS_SCHED_RUN);
			ck_assert_uint_eq(o[i].eq_groups, rows[r].groups);
			ck_assert_int_eq(o[i].eq_limit, AOS_SCHED_LIMIT_THREADS);
			ck_assert_uint_eq(o[i].groups, rows[r].groups);
			ck_assert_int_eq(o[i].limit, AOS_SCHED_LIMIT_THREADS);
		}
		ck_assert_uint_eq(threads_used(k, o, rows[r].k), 26624);
	}
}
END_TEST

START_TEST(k20m_mixed_needs_paper_style)
{
	/* Four kernels, each bound by a different resource, K = 4 (f = 1/4):
	 *   k0: 256 threads                x = 6656/256 = 26, g = 52     -> 26 (threads)
	 *   k1: 128 threads, 16 KiB local  x = 52, y = 159744/16384 = 9  -> 9  (local memory)
	 *   k2: 256 threads, 63 regs       a warp needs 63x32 = 2016 -> 2048 registers,
	 *                                  a group 8 warps = 16384;
	 *                                  x = 26, z = 212992/16384 = 13 -> 13 (registers)
	 *   k3: 64 threads                 x = 104, g = 208/4 = 52       -> 52 (resident groups)
	 * The equations leave the device part empty (threads 14464 of 26624), so
	 * the greedy fill raises everyone's dominant share evenly until threads
	 * saturate: 47 x 256 + 18 x 128 + 24 x 256 + 96 x 64 = 26624. Dominant
	 * shares end within one group of each other: 47/104, 18/39, 24/52, 96/208.
	 * (Cross-checked with an exact-fraction reference implementation.) */
	struct aos_sched_kernel k[4] = {
		kern(256, 0, 0, 10000),
		kern(128, 16384, 0, 10000),
		kern(256, 0, 63, 10000),
		kern(64, 0, 0, 10000),
	};
	struct aos_sched_share o[4];
	static const uint64_t eq[4] = { 26, 9, 13, 52 };
	static const enum aos_sched_limit eq_lim[4] = { AOS_SCHED_LIMIT_THREADS, AOS_SCHED_LIMIT_LOCAL_MEM,
						       AOS_SCHED_LIMIT_REGISTERS, AOS_SCHED_LIMIT_GROUPS };
	static const uint64_t groups[4] = { 47, 18, 24, 96 };
	static const double share[4] = { 47.0 / 104, 18.0 / 39, 24.0 / 52, 96.0 / 208 };

	ck_assert_int_eq(aos_sched_share_solve(&k20m, k, 4, NULL, o), 0);
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(o[i].status, AOS_SCHED_RUN);
		ck_assert_uint_eq(o[i].eq_groups, eq[i]);
		ck_assert_int_eq(o[i].eq_limit, eq_lim[i]);
		ck_assert_uint_eq(o[i].groups, groups[i]);
		ck_assert_int_eq(o[i].limit, AOS_SCHED_LIMIT_THREADS);
		ck_assert_double_eq_tol(o[i].share, share[i], 1e-12);
	}
	ck_assert_uint_eq(threads_used(k, o, 4), 26624);
	/* Other resources within their totals. */
	ck_assert_uint_le(18u * 16384u, 638976u);
	ck_assert_uint_le(24u * 16384u, 851968u);
	ck_assert_uint_le(47u + 18u + 24u + 96u, 208u);
}
END_TEST

START_TEST(weights_two_to_one)
{
	/* f = 2/3 and 1/3 of T = 26624 for 256-thread groups: x = 69.33 -> 69 and
	 * 34.67 -> 34. 103 groups leave 256 threads: the fill gives the last
	 * group to the kernel lower in dominant share per weight
	 * (34/104/1 < 69/104/2), so 69 : 35. */
	struct aos_sched_kernel k[2] = { kern(256, 0, 0, 100000), kern(256, 0, 0, 100000) };
	struct aos_sched_share o[2];
	k[0].weight = 2;
	ck_assert_int_eq(aos_sched_share_solve(&k20m, k, 2, NULL, o), 0);
	ck_assert_uint_eq(o[0].eq_groups, 69);
	ck_assert_uint_eq(o[1].eq_groups, 34);
	ck_assert_uint_eq(o[0].groups, 69);
	ck_assert_uint_eq(o[1].groups, 35);
	ck_assert_uint_eq(threads_used(k, o, 2), 26624);

	/* Weight <= 0 means 1: equal shares again. */
	k[0].weight = 0;
	k[1].weight = -3;
	ck_assert_int_eq(aos_sched_share_solve(&k20m, k, 2, NULL, o), 0);
	ck_assert_uint_eq(o[0].groups, 52);
	ck_assert_uint_eq(o[1].groups, 52);

	/* On the CPU, 3:1 over 4 cores: g = 3 and 1. */
	struct aos_sched_device cpu4;
	ck_assert_int_eq(aos_sched_device_from_arch("cpu", 4, &cpu4), 0);
	k[0].weight = 3;
	k[1].weight = 1;
	ck_assert_int_eq(aos_sched_share_solve(&cpu4, k, 2, NULL, o), 0);
	ck_assert_uint_eq(o[0].groups, 3);
	ck_assert_uint_eq(o[1].groups, 1);
}
END_TEST

START_TEST(single_group_cannot_fit)
{
	/* Each of these fails on the K20m for a different resource; they are
	 * reported UNFIT and do not count in K, so the good kernel gets the whole
	 * device (x = 26624/256 = 104). */
	struct aos_sched_kernel k[5] = {
		kern(256, 65536, 0, 100),  /* 64 KiB local > 48 KiB */
		kern(2048, 0, 0, 100),     /* > CL_DEVICE_MAX_WORK_GROUP_SIZE 1024 */
		kern(1024, 0, 255, 100),   /* 32 warps x 8192 registers = 262144 > 65536 */
		kern(256, 0, 0, 100000),
		kern(64, 49153, 0, 100),   /* one byte over 48 KiB */
	};
	struct aos_sched_share o[5];
	ck_assert_int_eq(aos_sched_share_solve(&k20m, k, 5, NULL, o), 0);
	ck_assert_int_eq(o[0].status, AOS_SCHED_UNFIT);
	ck_assert_int_eq(o[0].limit, AOS_SCHED_LIMIT_LOCAL_MEM);
	ck_assert_int_eq(o[1].status, AOS_SCHED_UNFIT);
	ck_assert_int_eq(o[1].limit, AOS_SCHED_LIMIT_WG_SIZE);
	ck_assert_int_eq(o[2].status, AOS_SCHED_UNFIT);
	ck_assert_int_eq(o[2].limit, AOS_SCHED_LIMIT_REGISTERS);
	ck_assert_int_eq(o[4].status, AOS_SCHED_UNFIT);
	ck_assert_int_eq(o[4].limit, AOS_SCHED_LIMIT_LOCAL_MEM);
	for (int i = 0; i < 5; i++)
		if (i != 3)
			ck_assert_uint_eq(o[i].groups, 0);
	ck_assert_int_eq(o[3].status, AOS_SCHED_RUN);
	ck_assert_uint_eq(o[3].groups, 104);

	/* On the CPU: larger than a core's 4096 work-items, or its 2 MiB. */
	struct aos_sched_kernel c[2] = { kern(4097, 0, 0, 10), kern(64, 3u << 20, 0, 10) };
	ck_assert_int_eq(aos_sched_share_solve(&cpu2, c, 2, NULL, o), 0);
	ck_assert_int_eq(o[0].status, AOS_SCHED_UNFIT);
	ck_assert_int_eq(o[0].limit, AOS_SCHED_LIMIT_WG_SIZE);
	ck_assert_int_eq(o[1].status, AOS_SCHED_UNFIT);
	ck_assert_int_eq(o[1].limit, AOS_SCHED_LIMIT_LOCAL_MEM);
	ck_assert_str_eq(aos_sched_status_name(o[1].status), "unfit");
	ck_assert_str_eq(aos_sched_limit_name(o[1].limit), "local-memory");
}
END_TEST

START_TEST(greedy_fill_saturates)
{
	/* Three equal 256-thread kernels: x = 104/3 = 34.67 -> 34 each, 102
	 * groups; the fill hands the 2 groups left to the first two in order. */
	struct aos_sched_kernel k[3] = { kern(256, 0, 0, 100000), kern(256, 0, 0, 100000), kern(256, 0, 0, 100000) };
	struct aos_sched_share o[3];
	ck_assert_int_eq(aos_sched_share_solve(&k20m, k, 3, NULL, o), 0);
	for (int i = 0; i < 3; i++)
		ck_assert_uint_eq(o[i].eq_groups, 34);
	ck_assert_uint_eq(o[0].groups, 35);
	ck_assert_uint_eq(o[1].groups, 35);
	ck_assert_uint_eq(o[2].groups, 34);
	ck_assert_uint_eq(threads_used(k, o, 3), 26624);

	/* In another order, the extra groups follow the order. */
	size_t order[3] = { 2, 1, 0 };
	ck_assert_int_eq(aos_sched_share_solve(&k20m, k, 3, order, o), 0);
	ck_assert_uint_eq(o[2].groups, 35);
	ck_assert_uint_eq(o[1].groups, 35);
	ck_assert_uint_eq(o[0].groups, 34);

	/* Local memory only binds: 4 KiB groups of 64 threads, K = 2:
	 * y = 319488 / 4096 = 78 each, 156 x 4 KiB = 638976 = L exactly, and
	 * per-SMX occupancy 12 x 13 = 156 also caps the pair. */
	struct aos_sched_kernel m[2] = { kern(64, 4096, 0, 100000), kern(64, 4096, 0, 100000) };
	ck_assert_int_eq(aos_sched_share_solve(&k20m, m, 2, NULL, o), 0);
	ck_assert_uint_eq(o[0].eq_groups, 78);
	ck_assert_int_eq(o[0].eq_limit, AOS_SCHED_LIMIT_LOCAL_MEM);
	ck_assert_uint_eq(o[0].groups + o[1].groups, 156);
	ck_assert_int_eq(o[0].limit, AOS_SCHED_LIMIT_LOCAL_MEM);
}
END_TEST

START_TEST(capped_by_virtual_groups)
{
	/* A kernel with 5 virtual groups never gets more than 5 physical ones;
	 * the other takes the rest: 104 - 5 = 99. */
	struct aos_sched_kernel k[2] = { kern(256, 0, 0, 5), kern(256, 0, 0, 100000) };
	struct aos_sched_share o[2];
	ck_assert_int_eq(aos_sched_share_solve(&k20m, k, 2, NULL, o), 0);
	ck_assert_uint_eq(o[0].eq_groups, 52);
	ck_assert_uint_eq(o[0].groups, 5);
	ck_assert_int_eq(o[0].limit, AOS_SCHED_LIMIT_VGROUPS);
	ck_assert_uint_eq(o[1].groups, 99);
	ck_assert_int_eq(o[1].limit, AOS_SCHED_LIMIT_THREADS);

	/* Alone, with 3 virtual groups: 3. */
	k[0].total_groups = 3;
	ck_assert_int_eq(aos_sched_share_solve(&k20m, &k[0], 1, NULL, o), 0);
	ck_assert_uint_eq(o[0].groups, 3);
	ck_assert_int_eq(o[0].limit, AOS_SCHED_LIMIT_VGROUPS);

	/* Capped by its own occupancy: 40 KiB local fits once per SMX, so 13 on
	 * the device although L / m = 638976 / 40960 = 15. */
	struct aos_sched_kernel big = kern(128, 40960, 0, 1000);
	ck_assert_int_eq(aos_sched_share_solve(&k20m, &big, 1, NULL, o), 0);
	ck_assert_uint_eq(o[0].eq_groups, 15);
	ck_assert_uint_eq(o[0].groups, 13);
	ck_assert_int_eq(o[0].limit, AOS_SCHED_LIMIT_LOCAL_MEM);
}
END_TEST

START_TEST(forced_single_group_is_trimmed)
{
	/* One SMX, T = 2048, K = 3, f = 1/3:
	 *   A: 1024 threads: x = 682.67/1024 = 0 -> forced to 1 (1024 threads)
	 *   B, C: 192 threads: x = 682.67/192 = 3 each (576 threads each)
	 * 1024 + 1152 = 2176 > 2048: the trim takes one group back from the
	 * largest holder per weight, later in order on a tie (C): 3, 2. */
	struct aos_sched_kernel k[3] = { kern(1024, 0, 0, 100), kern(192, 0, 0, 100), kern(192, 0, 0, 100) };
	struct aos_sched_share o[3];
	ck_assert_int_eq(aos_sched_share_solve(&sm1, k, 3, NULL, o), 0);
	ck_assert_uint_eq(o[0].eq_groups, 0);
	ck_assert_int_eq(o[0].eq_limit, AOS_SCHED_LIMIT_THREADS);
	ck_assert_uint_eq(o[0].groups, 1);
	ck_assert_uint_eq(o[1].groups, 3);
	ck_assert_uint_eq(o[2].groups, 2);
	ck_assert_uint_le(threads_used(k, o, 3), 2048);
}
END_TEST

START_TEST(waiters_do_not_overtake)
{
	/* One SMX: A (1024) and B (768) fit; C (1024) does not (1792 + 1024 >
	 * 2048) and waits on threads; D (64) would fit but waits behind C
	 * (limit NONE), so a stream of small kernels cannot starve C. */
	struct aos_sched_kernel k[4] = { kern(1024, 0, 0, 100), kern(768, 0, 0, 100), kern(1024, 0, 0, 100),
					 kern(64, 0, 0, 100) };
	struct aos_sched_share o[4];
	ck_assert_int_eq(aos_sched_share_solve(&sm1, k, 4, NULL, o), 0);
	ck_assert_int_eq(o[0].status, AOS_SCHED_RUN);
	ck_assert_uint_eq(o[0].groups, 1);
	ck_assert_int_eq(o[1].status, AOS_SCHED_RUN);
	ck_assert_uint_eq(o[1].groups, 1);
	ck_assert_int_eq(o[2].status, AOS_SCHED_WAIT);
	ck_assert_int_eq(o[2].limit, AOS_SCHED_LIMIT_THREADS);
	ck_assert_int_eq(o[3].status, AOS_SCHED_WAIT);
	ck_assert_int_eq(o[3].limit, AOS_SCHED_LIMIT_NONE);

	/* Service order decides who runs: on cpu2 with order {2, 0, 1}, kernels
	 * 2 and 0 run and 1 waits. */
	struct aos_sched_kernel c[3] = { kern(64, 0, 0, 9), kern(64, 0, 0, 9), kern(64, 0, 0, 9) };
	size_t order[3] = { 2, 0, 1 };
	ck_assert_int_eq(aos_sched_share_solve(&cpu2, c, 3, order, o), 0);
	ck_assert_int_eq(o[2].status, AOS_SCHED_RUN);
	ck_assert_int_eq(o[0].status, AOS_SCHED_RUN);
	ck_assert_int_eq(o[1].status, AOS_SCHED_WAIT);
}
END_TEST

START_TEST(thread_granule_rounds_up)
{
	/* 200 work-items occupy 7 warps = 224 thread slots: 2048/224 = 9 per
	 * SMX (not 10), 117 on the K20m. */
	struct aos_sched_kernel k = kern(200, 0, 0, 100000);
	enum aos_sched_limit why;
	ck_assert_uint_eq(aos_sched_kernel_occupancy(&k20m, &k, &why), 117);
	ck_assert_int_eq(why, AOS_SCHED_LIMIT_THREADS);
	struct aos_sched_share o;
	ck_assert_int_eq(aos_sched_share_solve(&k20m, &k, 1, NULL, &o), 0);
	ck_assert_uint_eq(o.eq_groups, 118); /* device-wide 26624 / 224 = 118.86 */
	ck_assert_uint_eq(o.groups, 117);    /* but per-SMX packing holds 117 */
}
END_TEST

START_TEST(occupancy_table)
{
	static const struct {
		uint32_t w;
		uint64_t m;
		uint32_t r;
		uint64_t occ;
		enum aos_sched_limit why;
	} rows[] = {
		{ 256, 0, 0, 104, AOS_SCHED_LIMIT_THREADS },     /* 2048/256 = 8 per SMX */
		{ 64, 0, 0, 208, AOS_SCHED_LIMIT_GROUPS },       /* 32 by threads, 16 resident */
		{ 128, 16384, 0, 39, AOS_SCHED_LIMIT_LOCAL_MEM },/* 48 KiB / 16 KiB = 3 */
		{ 256, 0, 63, 52, AOS_SCHED_LIMIT_REGISTERS },   /* 65536 / 16384 = 4 */
		{ 256, 0, 32, 104, AOS_SCHED_LIMIT_THREADS },    /* 8 x 1024 = 8192 regs: 8, tie -> threads */
		{ 2048, 0, 0, 0, AOS_SCHED_LIMIT_WG_SIZE },
		{ 64, 49153, 0, 0, AOS_SCHED_LIMIT_LOCAL_MEM },
		{ 1024, 0, 255, 0, AOS_SCHED_LIMIT_REGISTERS },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct aos_sched_kernel k = kern(rows[i].w, rows[i].m, rows[i].r, 1);
		enum aos_sched_limit why;
		ck_assert_uint_eq(aos_sched_kernel_occupancy(&k20m, &k, &why), rows[i].occ);
		ck_assert_int_eq(why, rows[i].why);
	}
	struct aos_sched_kernel k = kern(64, 0, 0, 1);
	ck_assert_uint_eq(aos_sched_kernel_occupancy(&cpu2, &k, NULL), 2);
	ck_assert_uint_eq(aos_sched_kernel_occupancy(NULL, &k, NULL), 0);
}
END_TEST

START_TEST(invalid_arguments)
{
	struct aos_sched_kernel k[2] = { kern(64, 0, 0, 10), kern(64, 0, 0, 10) };
	struct aos_sched_share o[2];
	ck_assert_int_eq(aos_sched_share_solve(NULL, k, 2, NULL, o), -EINVAL);
	ck_assert_int_eq(aos_sched_share_solve(&cpu2, NULL, 2, NULL, o), -EINVAL);
	ck_assert_int_eq(aos_sched_share_solve(&cpu2, k, 2, NULL, NULL), -EINVAL);
	ck_assert_int_eq(aos_sched_share_solve(&cpu2, NULL, 0, NULL, NULL), 0);

	size_t dup[2] = { 0, 0 }, range[2] = { 0, 2 };
	ck_assert_int_eq(aos_sched_share_solve(&cpu2, k, 2, dup, o), -EINVAL);
	ck_assert_int_eq(aos_sched_share_solve(&cpu2, k, 2, range, o), -EINVAL);

	k[1].wg_threads = 0;
	ck_assert_int_eq(aos_sched_share_solve(&cpu2, k, 2, NULL, o), -EINVAL);
	k[1].wg_threads = 64;
	k[1].total_groups = 0;
	ck_assert_int_eq(aos_sched_share_solve(&cpu2, k, 2, NULL, o), -EINVAL);
	k[1].total_groups = 10;

	struct aos_sched_device bad = cpu2;
	bad.cu_groups = 0;
	ck_assert_int_eq(aos_sched_share_solve(&bad, k, 2, NULL, o), -EINVAL);
}
END_TEST

START_TEST(hostile_sizes_do_not_overflow)
{
	/* Sizes at the type limits are UNFIT, never wrapped into small numbers. */
	struct aos_sched_kernel k[3] = { kern(UINT32_MAX, 0, 0, UINT64_MAX), kern(32, UINT64_MAX, 0, 1),
					 kern(32, 0, UINT32_MAX, 1) };
	struct aos_sched_share o[3];
	ck_assert_int_eq(aos_sched_share_solve(&k20m, k, 3, NULL, o), 0);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(o[i].status, AOS_SCHED_UNFIT);
	ck_assert_int_eq(o[0].limit, AOS_SCHED_LIMIT_WG_SIZE);
	ck_assert_int_eq(o[1].limit, AOS_SCHED_LIMIT_LOCAL_MEM);
	ck_assert_int_eq(o[2].limit, AOS_SCHED_LIMIT_REGISTERS);
	/* A huge virtual range is capped by occupancy. */
	struct aos_sched_kernel h = kern(256, 0, 0, UINT64_MAX);
	ck_assert_int_eq(aos_sched_share_solve(&k20m, &h, 1, NULL, o), 0);
	ck_assert_uint_eq(o[0].groups, 104);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sched-share");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, equal_kernels_on_two_core_cpu);
	tcase_add_test(tc, equal_kernels_on_k20m);
	tcase_add_test(tc, k20m_mixed_needs_paper_style);
	tcase_add_test(tc, weights_two_to_one);
	tcase_add_test(tc, single_group_cannot_fit);
	tcase_add_test(tc, greedy_fill_saturates);
	tcase_add_test(tc, capped_by_virtual_groups);
	tcase_add_test(tc, forced_single_group_is_trimmed);
	tcase_add_test(tc, waiters_do_not_overtake);
	tcase_add_test(tc, thread_granule_rounds_up);
	tcase_add_test(tc, occupancy_table);
	tcase_add_test(tc, invalid_arguments);
	tcase_add_test(tc, hostile_sizes_do_not_overflow);
	suite_add_tcase(s, tc);
	return aos_check_run(s);
}
