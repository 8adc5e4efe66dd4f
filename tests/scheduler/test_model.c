/* Resource model: device numbers (as clGetDeviceInfo reports them) to the
 * solver's per-CU residency and device-wide totals. */
#define CL_TARGET_OPENCL_VERSION 300
#include "accelos/sched.h"
#include "check_run.h"

#include <CL/cl.h>
#include <check.h>
#include <errno.h>
#include <string.h>

START_TEST(cl_type_bits_match_cl_h)
{
	ck_assert_uint_eq(AOS_SCHED_CL_TYPE_CPU, CL_DEVICE_TYPE_CPU);
	ck_assert_uint_eq(AOS_SCHED_CL_TYPE_GPU, CL_DEVICE_TYPE_GPU);
	ck_assert_uint_eq(AOS_SCHED_CL_TYPE_ACCELERATOR, CL_DEVICE_TYPE_ACCELERATOR);
}
END_TEST

START_TEST(pocl_cpu)
{
	/* What PoCL reports on this project's 2-core machine. */
	struct aos_sched_device_info info = {
		.type = CL_DEVICE_TYPE_CPU,
		.vendor = "GenuineIntel",
		.name = "pthread-skylake-avx512",
		.compute_units = 2,
		.local_mem_size = 2u << 20,
		.max_work_group_size = 4096,
	};
	struct aos_sched_device d;
	struct aos_sched_totals t;
	ck_assert_int_eq(aos_sched_device_from_info(&info, &d), 0);
	ck_assert_int_eq(d.kind, AOS_SCHED_DEV_CPU);
	ck_assert_str_eq(d.arch, "cpu");
	ck_assert_int_eq(d.arch_exact, 1);
	ck_assert_uint_eq(d.compute_units, 2);
	ck_assert_uint_eq(d.cu_groups, 1); /* one resident work-group per core */
	ck_assert_uint_eq(d.cu_threads, 4096);
	ck_assert_uint_eq(d.cu_local_mem, 2u << 20);
	ck_assert_uint_eq(d.cu_registers, 0);
	ck_assert_uint_eq(d.thread_granule, 1);
	aos_sched_device_totals(&d, &t);
	ck_assert_uint_eq(t.threads, 8192);
	ck_assert_uint_eq(t.local_mem, 4u << 20);
	ck_assert_uint_eq(t.registers, 0);
	ck_assert_uint_eq(t.groups, 2);
}
END_TEST

START_TEST(k20m_from_nv_attributes)
{
	struct aos_sched_device_info info = {
		.type = CL_DEVICE_TYPE_GPU,
		.vendor = "NVIDIA Corporation",
		.name = "Tesla K20m",
		.compute_units = 13,
		.local_mem_size = 49152,
		.max_work_group_size = 1024,
		.nv_cc_major = 3,
		.nv_cc_minor = 5,
		.nv_regs_per_block = 65536,
		.nv_warp_size = 32,
	};
	struct aos_sched_device d;
	struct aos_sched_totals t;
	ck_assert_int_eq(aos_sched_device_from_info(&info, &d), 0);
	ck_assert_int_eq(d.kind, AOS_SCHED_DEV_GPU);
	ck_assert_str_eq(d.arch, "sm_35");
	ck_assert_int_eq(d.arch_exact, 1);
	ck_assert_uint_eq(d.cu_threads, 2048);
	ck_assert_uint_eq(d.cu_groups, 16);
	ck_assert_uint_eq(d.cu_local_mem, 49152);
	ck_assert_uint_eq(d.cu_registers, 65536);
	ck_assert_uint_eq(d.wg_max_threads, 1024);
	ck_assert_uint_eq(d.wg_max_local_mem, 49152);
	ck_assert_uint_eq(d.wg_max_registers, 65536);
	ck_assert_uint_eq(d.thread_granule, 32);
	ck_assert_uint_eq(d.reg_granule, 256);
	aos_sched_device_totals(&d, &t);
	ck_assert_uint_eq(t.threads, 26624);
	ck_assert_uint_eq(t.local_mem, 638976);
	ck_assert_uint_eq(t.registers, 851968);
	ck_assert_uint_eq(t.groups, 208);
}
END_TEST

START_TEST(nvidia_table_rows)
{
	static const struct {
		unsigned major, minor, cus;
		const char *arch;
		int exact;
		uint32_t cu_threads, cu_groups;
		uint64_t cu_local;
	} rows[] = {
		{ 7, 0, 80, "sm_70", 1, 2048, 32, 96 * 1024 },   /* V100 */
		{ 8, 0, 108, "sm_80", 1, 2048, 32, 164 * 1024 }, /* A100 */
		{ 9, 0, 132, "sm_90", 1, 2048, 32, 228 * 1024 }, /* H100 SXM */
		{ 8, 6, 84, "sm_86", 1, 1536, 16, 100 * 1024 },
		{ 8, 7, 16, "sm_86", 0, 1536, 16, 100 * 1024 },  /* nearest lower minor */
		{ 7, 5, 40, "sm_75", 1, 1024, 16, 64 * 1024 },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct aos_sched_device_info info = {
			.type = CL_DEVICE_TYPE_GPU, .vendor = "NVIDIA Corporation",
			.compute_units = rows[i].cus, .local_mem_size = 49152,
			.max_work_group_size = 1024, .nv_cc_major = rows[i].major,
			.nv_cc_minor = rows[i].minor,
		};
		struct aos_sched_device d;
		ck_assert_int_eq(aos_sched_device_from_info(&info, &d), 0);
		ck_assert_str_eq(d.arch, rows[i].arch);
		ck_assert_int_eq(d.arch_exact, rows[i].exact);
		ck_assert_uint_eq(d.cu_threads, rows[i].cu_threads);
		ck_assert_uint_eq(d.cu_groups, rows[i].cu_groups);
		ck_assert_uint_eq(d.cu_local_mem, rows[i].cu_local);
		ck_assert_uint_eq(d.cu_registers, 65536);
		ck_assert_uint_eq(d.thread_granule, 32);
	}
	/* H100: 132 x 2048 threads, 132 x 32 groups. */
	struct aos_sched_device h;
	struct aos_sched_totals t;
	ck_assert_int_eq(aos_sched_device_from_arch("sm_90", 132, &h), 0);
	aos_sched_device_totals(&h, &t);
	ck_assert_uint_eq(t.threads, 270336);
	ck_assert_uint_eq(t.groups, 4224);
	ck_assert_uint_eq(t.local_mem, 132ull * 228 * 1024);
	ck_assert_uint_eq(t.registers, 132ull * 65536);
}
END_TEST

START_TEST(unknown_gpus_are_guessed_low)
{
	/* No table row for the major (sm_100; sm_30 is below sm_35), no
	 * attribute extension, or not NVIDIA: a conservative generic GPU. */
	static const struct {
		const char *vendor;
		unsigned major, minor, warp;
		uint32_t granule;
	} rows[] = {
		{ "NVIDIA Corporation", 10, 0, 32, 32 },
		{ "NVIDIA Corporation", 3, 0, 32, 32 },
		{ "NVIDIA Corporation", 0, 0, 0, 1 },
		{ "Advanced Micro Devices, Inc.", 0, 0, 0, 1 },
		{ NULL, 0, 0, 0, 1 },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct aos_sched_device_info info = {
			.type = CL_DEVICE_TYPE_GPU, .vendor = rows[i].vendor, .compute_units = 60,
			.local_mem_size = 65536, .max_work_group_size = 256,
			.nv_cc_major = rows[i].major, .nv_cc_minor = rows[i].minor, .nv_warp_size = rows[i].warp,
		};
		struct aos_sched_device d;
		ck_assert_int_eq(aos_sched_device_from_info(&info, &d), 0);
		ck_assert_str_eq(d.arch, "gpu-generic");
		ck_assert_int_eq(d.arch_exact, 0);
		ck_assert_uint_eq(d.cu_threads, 256); /* one largest group per CU */
		ck_assert_uint_eq(d.cu_groups, 16);
		ck_assert_uint_eq(d.cu_local_mem, 65536);
		ck_assert_uint_eq(d.cu_registers, 0);
		ck_assert_uint_eq(d.thread_granule, rows[i].granule);
	}
}
END_TEST

START_TEST(accelerator_is_one_group_per_cu)
{
	struct aos_sched_device_info info = {
		.type = CL_DEVICE_TYPE_ACCELERATOR, .vendor = "X", .compute_units = 4,
		.local_mem_size = 16384, .max_work_group_size = 128,
	};
	struct aos_sched_device d;
	ck_assert_int_eq(aos_sched_device_from_info(&info, &d), 0);
	ck_assert_int_eq(d.kind, AOS_SCHED_DEV_ACCELERATOR);
	ck_assert_str_eq(d.arch, "cpu");
	ck_assert_int_eq(d.arch_exact, 0);
	ck_assert_uint_eq(d.cu_groups, 1);
	ck_assert_uint_eq(d.cu_threads, 128);
}
END_TEST

START_TEST(device_limit_above_table_is_believed)
{
	/* A driver offering 64 KiB per group on an sm_35 row of 48 KiB per SMX:
	 * the SMX must hold at least that much. */
	struct aos_sched_device_info info = {
		.type = CL_DEVICE_TYPE_GPU, .vendor = "NVIDIA", .compute_units = 1,
		.local_mem_size = 65536, .max_work_group_size = 1024, .nv_cc_major = 3, .nv_cc_minor = 5,
	};
	struct aos_sched_device d;
	ck_assert_int_eq(aos_sched_device_from_info(&info, &d), 0);
	ck_assert_uint_eq(d.cu_local_mem, 65536);
	ck_assert_uint_eq(d.wg_max_registers, 65536); /* table value without the attribute */
}
END_TEST

START_TEST(nv_registers_per_block_is_believed)
{
	/* CL_DEVICE_REGISTERS_PER_BLOCK_NV bounds one work-group; the SM's register file
	 * (residency) still comes from the table. */
	struct aos_sched_device_info info = {
		.type = CL_DEVICE_TYPE_GPU, .vendor = "NVIDIA Corporation", .compute_units = 108,
		.local_mem_size = 49152, .max_work_group_size = 1024, .nv_cc_major = 8, .nv_cc_minor = 0,
		.nv_regs_per_block = 32768, .nv_warp_size = 32,
	};
	struct aos_sched_device d;
	ck_assert_int_eq(aos_sched_device_from_info(&info, &d), 0);
	ck_assert_uint_eq(d.wg_max_registers, 32768);
	ck_assert_uint_eq(d.cu_registers, 65536);
	ck_assert_uint_eq(d.reg_granule, 256);
	/* 64 registers x 1024 work-items = 65536 > 32768: one group cannot fit. */
	struct aos_sched_kernel k = { .wg_threads = 1024, .regs_per_thread = 64, .total_groups = 1 };
	enum aos_sched_limit why;
	ck_assert_uint_eq(aos_sched_kernel_occupancy(&d, &k, &why), 0);
	ck_assert_int_eq(why, AOS_SCHED_LIMIT_REGISTERS);
	k.regs_per_thread = 32;
	ck_assert_uint_eq(aos_sched_kernel_occupancy(&d, &k, &why), 2 * 108);
	/* Without the attribute the table's per-block limit applies. */
	info.nv_regs_per_block = 0;
	ck_assert_int_eq(aos_sched_device_from_info(&info, &d), 0);
	ck_assert_uint_eq(d.wg_max_registers, 65536);
}
END_TEST

START_TEST(invalid_info)
{
	struct aos_sched_device d;
	struct aos_sched_device_info info = { .type = CL_DEVICE_TYPE_CPU, .compute_units = 2, .max_work_group_size = 64 };
	ck_assert_int_eq(aos_sched_device_from_info(NULL, &d), -EINVAL);
	ck_assert_int_eq(aos_sched_device_from_info(&info, NULL), -EINVAL);
	info.compute_units = 0;
	ck_assert_int_eq(aos_sched_device_from_info(&info, &d), -EINVAL);
	info.compute_units = 2;
	info.max_work_group_size = 0;
	ck_assert_int_eq(aos_sched_device_from_info(&info, &d), -EINVAL);
	info.max_work_group_size = 64;
	info.compute_units = 1u << 21; /* beyond any device: products could overflow */
	ck_assert_int_eq(aos_sched_device_from_info(&info, &d), -EINVAL);
}
END_TEST

START_TEST(device_check)
{
	struct aos_sched_device good, d;
	ck_assert_int_eq(aos_sched_device_from_arch("sm_80", 108, &good), 0);
	ck_assert_int_eq(aos_sched_device_check(&good), 0);
	ck_assert_int_eq(aos_sched_device_check(NULL), -EINVAL);
	d = good, d.cu_threads = 0;
	ck_assert_int_eq(aos_sched_device_check(&d), -EINVAL);
	d = good, d.cu_groups = 0;
	ck_assert_int_eq(aos_sched_device_check(&d), -EINVAL);
	d = good, d.thread_granule = 0;
	ck_assert_int_eq(aos_sched_device_check(&d), -EINVAL);
	d = good, d.reg_granule = 0;
	ck_assert_int_eq(aos_sched_device_check(&d), -EINVAL);
	d = good, d.wg_max_threads = 0;
	ck_assert_int_eq(aos_sched_device_check(&d), -EINVAL);
	d = good, d.cu_local_mem = UINT64_MAX;
	ck_assert_int_eq(aos_sched_device_check(&d), -EINVAL);
}
END_TEST

START_TEST(arch_rows_by_name)
{
	size_t n = 0;
	struct aos_sched_device d;
	for (const char *name; (name = aos_sched_arch_name(n)) != NULL; n++) {
		ck_assert_int_eq(aos_sched_device_from_arch(name, 2, &d), 0);
		ck_assert_str_eq(d.arch, name);
		ck_assert_int_eq(aos_sched_device_check(&d), 0);
	}
	ck_assert_uint_eq(n, 13);
	ck_assert_int_eq(aos_sched_device_from_arch("sm_99", 2, &d), -ENOENT);
	ck_assert_int_eq(aos_sched_device_from_arch(NULL, 2, &d), -ENOENT);
	ck_assert_int_eq(aos_sched_device_from_arch("sm_35", 0, &d), -EINVAL);
	ck_assert_int_eq(aos_sched_device_from_arch("cpu", 2, &d), 0);
	ck_assert_int_eq(d.kind, AOS_SCHED_DEV_CPU);
	ck_assert_uint_eq(d.cu_groups, 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sched-model");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, cl_type_bits_match_cl_h);
	tcase_add_test(tc, pocl_cpu);
	tcase_add_test(tc, k20m_from_nv_attributes);
	tcase_add_test(tc, nvidia_table_rows);
	tcase_add_test(tc, unknown_gpus_are_guessed_low);
	tcase_add_test(tc, accelerator_is_one_group_per_cu);
	tcase_add_test(tc, device_limit_above_table_is_believed);
	tcase_add_test(tc, nv_registers_per_block_is_believed);
	tcase_add_test(tc, invalid_info);
	tcase_add_test(tc, device_check);
	tcase_add_test(tc, arch_rows_by_name);
	suite_add_tcase(s, tc);
	return aos_check_run(s);
}
