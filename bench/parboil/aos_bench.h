#ifndef AOS_BENCH_H
#define AOS_BENCH_H
/* The Parboil-style benchmark interface. Each benchmark lives in
 * parboil/<name>/ as one .cl (its kernels) and one .c (generator, host
 * driver, CPU reference). The harness owns the OpenCL objects a run
 * creates, so benchmarks only describe work and check answers.
 *
 * A run can be restricted to one kernel (aos_bench_run.only): every launch
 * of the other kernels is skipped, so buffers keep what the previous full
 * execution left. That is how a mix tenant replays one Parboil kernel on
 * realistic inputs without re-running its whole pipeline. */
#include "aos_cl.h"
#include <stddef.h>
#include <stdint.h>

enum aos_size { AOS_SIZE_SMALL, AOS_SIZE_MEDIUM, AOS_SIZE_COUNT };

#define AOS_BENCH_MAX_KERNELS 9
#define AOS_BENCH_MAX_MEMS 48
#define AOS_BENCH_ALL_KERNELS (-1)

struct aos_bench_run;

struct aos_bench_desc {
	const char *name;
	const char *summary;
	const char *const *kernels;
	int nkernels;
	const char *source;
	/* Device bytes a dataset needs in total and in its largest buffer;
	 * checked against the device before anything is generated. */
	void (*footprint)(enum aos_size size, uint64_t *total, uint64_t *largest);
	int (*setup)(struct aos_bench_run *r);   /* generate inputs, upload */
	int (*execute)(struct aos_bench_run *r); /* enqueue all launches */
	int (*verify)(struct aos_bench_run *r);  /* 0, or -EDOM with r->msg */
	void (*teardown)(struct aos_bench_run *r); /* free r->state */
};

struct aos_kernel_time {
	uint64_t total_ns; /* sum of START..END over launches */
	unsigned launches;
};

struct aos_bench_run {
	const struct aos_bench_desc *desc;
	enum aos_size size;
	uint64_t seed;
	int only; /* kernel index, or AOS_BENCH_ALL_KERNELS */
	cl_context ctx;
	cl_device_id dev;
	cl_command_queue queue;
	cl_program program;
	cl_kernel kernels[AOS_BENCH_MAX_KERNELS];
	cl_mem mems[AOS_BENCH_MAX_MEMS];
	int nmems;
	cl_event *events;
	int *event_kernel;
	size_t nevents, event_cap;
	struct aos_kernel_time ktime[AOS_BENCH_MAX_KERNELS];
	/* Span of the last execute: host clock around enqueue..completion and
	 * the device's profiling clock for the first START and last END. */
	uint64_t host_start_ns, host_end_ns;
	uint64_t prof_queued_ns, prof_start_ns, prof_end_ns;
	cl_int clerr;   /* first OpenCL error seen; sticky */
	char msg[512];  /* why setup/verify failed */
	void *state;    /* benchmark-private */
};

/* Registry. */
int aos_bench_count(void);
const struct aos_bench_desc *aos_bench_at(int i);
const struct aos_bench_desc *aos_bench_find(const char *name);
int aos_bench_kernel_index(const struct aos_bench_desc *d, const char *kernel);
const char *aos_size_name(enum aos_size s);
int aos_size_parse(const char *s, enum aos_size *out);

/* Lifecycle, driven by the CLI, the mix tenants and the tests. All return
 * 0 or negative errno with r->msg set. */
int aos_bench_run_init(struct aos_bench_run *r, const struct aos_bench_desc *d,
		       enum aos_size size, cl_context ctx, cl_device_id dev, cl_command_queue q);
int aos_bench_run_fits(const struct aos_bench_desc *d, enum aos_size size,
		       cl_ulong global_mem, cl_ulong max_alloc, char *msg, size_t msglen);
int aos_bench_run_setup(struct aos_bench_run *r);
int aos_bench_run_execute(struct aos_bench_run *r);
int aos_bench_run_verify(struct aos_bench_run *r);
void aos_bench_run_fini(struct aos_bench_run *r);

/* Helpers for benchmark implementations. Failures are recorded in
 * r->clerr so a driver can issue a sequence of calls and check once. */
cl_mem aos_bench_buffer(struct aos_bench_run *r, size_t bytes, const void *init);
void aos_bench_arg(struct aos_bench_run *r, int kidx, cl_uint argi, size_t size, const void *val);
void aos_bench_arg_mem(struct aos_bench_run *r, int kidx, cl_uint argi, cl_mem m);
void aos_bench_arg_local(struct aos_bench_run *r, int kidx, cl_uint argi, size_t bytes);
void aos_bench_launch(struct aos_bench_run *r, int kidx, cl_uint dims,
		      const size_t *global, const size_t *local);
void aos_bench_write(struct aos_bench_run *r, cl_mem m, size_t bytes, const void *src);
void aos_bench_read(struct aos_bench_run *r, cl_mem m, size_t bytes, void *dst);
void aos_bench_zero(struct aos_bench_run *r, cl_mem m, size_t bytes);
void aos_bench_copy(struct aos_bench_run *r, cl_mem src, cl_mem dst, size_t bytes);
int aos_bench_status(struct aos_bench_run *r); /* 0 or -EIO */
size_t aos_round_up(size_t n, size_t m);
/* Relative-error check helper: returns index of first bad element or -1. */
long aos_bench_compare_f32(const float *got, const float *want, size_t n,
			   float rel_tol, float abs_tol);
#endif
