#include "aos_bench.h"
#include "aos_clenv.h"
#include "aos_clock.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const size_names[AOS_SIZE_COUNT] = { "small", "medium" };

const char *aos_size_name(enum aos_size s)
{
	return (unsigned)s < AOS_SIZE_COUNT ? size_names[s] : "?";
}

int aos_size_parse(const char *s, enum aos_size *out)
{
	for (int i = 0; i < AOS_SIZE_COUNT; i++)
		if (strcasecmp(s, size_names[i]) == 0) {
			*out = (enum aos_size)i;
			return 0;
		}
	return -EINVAL;
}

int aos_bench_kernel_index(const struct aos_bench_desc *d, const char *kernel)
{
	for (int i = 0; i < d->nkernels; i++)
		if (strcmp(d->kernels[i], kernel) == 0)
			return i;
	return -1;
}

static void note_clerr(struct aos_bench_run *r, cl_int rc, const char *what)
{
	if (rc == CL_SUCCESS || r->clerr != CL_SUCCESS)
		return;
	r->clerr = rc;
	snprintf(r->msg, sizeof(r->msg), "%s: %s", what, aos_cl_strerror(rc));
}

int aos_bench_run_fits(const struct aos_bench_desc *d, enum aos_size size,
		       cl_ulong global_mem, cl_ulong max_alloc, char *msg, size_t msglen)
{
	uint64_t total = 0, largest = 0;
	d->footprint(size, &total, &largest);
	if (total > global_mem || largest > max_alloc) {
		snprintf(msg, msglen,
			 "%s %s needs %.1f MiB (largest buffer %.1f MiB) but the device has %.1f MiB "
			 "(max allocation %.1f MiB); not starting",
			 d->name, aos_size_name(size), total / 1048576.0, largest / 1048576.0,
			 global_mem / 1048576.0, max_alloc / 1048576.0);
		return -E2BIG;
	}
	return 0;
}

int aos_bench_run_init(struct aos_bench_run *r, const struct aos_bench_desc *d,
		       enum aos_size size, cl_context ctx, cl_device_id dev, cl_command_queue q)
{
	cl_int rc;
	memset(r, 0, sizeof(*r));
	r->desc = d;
	r->size = size;
	r->seed = 1;
	r->only = AOS_BENCH_ALL_KERNELS;
	r->ctx = ctx;
	r->dev = dev;
	r->queue = q;
	const char *src = d->source;
	r->program = clCreateProgramWithSource(ctx, 1, &src, NULL, &rc);
	if (!r->program) {
		note_clerr(r, rc, "clCreateProgramWithSource");
		return -EIO;
	}
	rc = clBuildProgram(r->program, 1, &dev, "-cl-std=CL1.2", NULL, NULL);
	if (rc != CL_SUCCESS) {
		char log[400] = "";
		clGetProgramBuildInfo(r->program, dev, CL_PROGRAM_BUILD_LOG, sizeof(log) - 1, log, NULL);
		snprintf(r->msg, sizeof(r->msg), "%s: build failed: %s", d->name, log);
		r->clerr = rc;
		return -EIO;
	}
	for (int i = 0; i < d->nkernels; i++) {
		r->kernels[i] = clCreateKernel(r->program, d->kernels[i], &rc);
		if (!r->kernels[i]) {
			note_clerr(r, rc, d->kernels[i]);
			return -EIO;
		}
	}
	return 0;
}

int aos_bench_run_setup(struct aos_bench_run *r)
{
	int rc = r->desc->setup(r);
	if (rc == 0)
		rc = aos_bench_status(r);
	if (rc == 0 && clFinish(r->queue) != CL_SUCCESS)
		rc = -EIO;
	return rc;
}

static void release_events(struct aos_bench_run *r)
{
	for (size_t i = 0; i < r->nevents; i++)
		clReleaseEvent(r->events[i]);
	r->nevents = 0;
}

static cl_ulong event_time(cl_event e, cl_profiling_info what)
{
	cl_ulong t = 0;
	clGetEventProfilingInfo(e, what, sizeof(t), &t, NULL);
	return t;
}

int aos_bench_run_execute(struct aos_bench_run *r)
{
	int rc;
	release_events(r);
	memset(r->ktime, 0, sizeof(r->ktime));
	r->prof_queued_ns = r->prof_start_ns = r->prof_end_ns = 0;
	r->host_start_ns = aos_clock_now_ns();
	rc = r->desc->execute(r);
	note_clerr(r, clFinish(r->queue), "clFinish");
	r->host_end_ns = aos_clock_now_ns();
	if (rc == 0)
		rc = aos_bench_status(r);
	for (size_t i = 0; i < r->nevents; i++) {
		cl_ulong q = event_time(r->events[i], CL_PROFILING_COMMAND_QUEUED);
		cl_ulong s = event_time(r->events[i], CL_PROFILING_COMMAND_START);
		cl_ulong e = event_time(r->events[i], CL_PROFILING_COMMAND_END);
		struct aos_kernel_time *kt = &r->ktime[r->event_kernel[i]];
		kt->total_ns += e > s ? e - s : 0;
		kt->launches++;
		if (i == 0) {
			r->prof_queued_ns = q;
			r->prof_start_ns = s;
		}
		if (e > r->prof_end_ns)
			r->prof_end_ns = e;
	}
	release_events(r);
	return rc;
}

int aos_bench_run_verify(struct aos_bench_run *r)
{
	int rc = r->desc->verify(r);
	if (rc == 0)
		rc = aos_bench_status(r);
	return rc;
}

void aos_bench_run_fini(struct aos_bench_run *r)
{
	if (r->queue)
		clFinish(r->queue);
	release_events(r);
	free(r->events);
	free(r->event_kernel);
	if (r->desc && r->desc->teardown)
		r->desc->teardown(r);
	for (int i = 0; i < r->nmems; i++)
		clReleaseMemObject(r->mems[i]);
	for (int i = 0; i < AOS_BENCH_MAX_KERNELS; i++)
		if (r->kernels[i])
			clReleaseKernel(r->kernels[i]);
	if (r->program)
		clReleaseProgram(r->program);
	r->nmems = 0;
	r->program = NULL;
	memset(r->kernels, 0, sizeof(r->kernels));
	r->events = NULL;
	r->event_kernel = NULL;
	r->state = NULL;
}

cl_mem aos_bench_buffer(struct aos_bench_run *r, size_t bytes, const void *init)
{
	cl_int rc;
	cl_mem m;
	if (r->nmems >= AOS_BENCH_MAX_MEMS) {
		note_clerr(r, CL_OUT_OF_RESOURCES, "too many buffers");
		return NULL;
	}
	m = clCreateBuffer(r->ctx, CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0),
			   bytes ? bytes : 4, (void *)init, &rc);
	note_clerr(r, rc, "clCreateBuffer");
	if (m)
		r->mems[r->nmems++] = m;
	return m;
}

void aos_bench_arg(struct aos_bench_run *r, int kidx, cl_uint argi, size_t size, const void *val)
{
	note_clerr(r, clSetKernelArg(r->kernels[kidx], argi, size, val), r->desc->kernels[kidx]);
}

void aos_bench_arg_mem(struct aos_bench_run *r, int kidx, cl_uint argi, cl_mem m)
{
	aos_bench_arg(r, kidx, argi, sizeof(m), &m);
}

void aos_bench_arg_local(struct aos_bench_run *r, int kidx, cl_uint argi, size_t bytes)
{
	aos_bench_arg(r, kidx, argi, bytes, NULL);
}

static int grow_events(struct aos_bench_run *r)
{
	size_t ncap = r->event_cap ? r->event_cap * 2 : 64;
	cl_event *ne = realloc(r->events, ncap * sizeof(*ne));
	if (!ne)
		return -ENOMEM;
	r->events = ne;
	int *nk = realloc(r->event_kernel, ncap * sizeof(*nk));
	if (!nk)
		return -ENOMEM;
	r->event_kernel = nk;
	r->event_cap = ncap;
	return 0;
}

void aos_bench_launch(struct aos_bench_run *r, int kidx, cl_uint dims,
		      const size_t *global, const size_t *local)
{
	cl_event ev = NULL;
	if (r->clerr != CL_SUCCESS)
		return;
	if (r->only != AOS_BENCH_ALL_KERNELS && r->only != kidx)
		return;
	if (r->nevents == r->event_cap && grow_events(r)) {
		note_clerr(r, CL_OUT_OF_HOST_MEMORY, "event list");
		return;
	}
	note_clerr(r, clEnqueueNDRangeKernel(r->queue, r->kernels[kidx], dims, NULL, global, local,
					     0, NULL, &ev), r->desc->kernels[kidx]);
	if (ev) {
		r->events[r->nevents] = ev;
		r->event_kernel[r->nevents] = kidx;
		r->nevents++;
	}
}

void aos_bench_write(struct aos_bench_run *r, cl_mem m, size_t bytes, const void *src)
{
	if (r->clerr == CL_SUCCESS)
		note_clerr(r, clEnqueueWriteBuffer(r->queue, m, CL_TRUE, 0, bytes, src, 0, NULL, NULL),
			   "clEnqueueWriteBuffer");
}

void aos_bench_read(struct aos_bench_run *r, cl_mem m, size_t bytes, void *dst)
{
	if (r->clerr == CL_SUCCESS)
		note_clerr(r, clEnqueueReadBuffer(r->queue, m, CL_TRUE, 0, bytes, dst, 0, NULL, NULL),
			   "clEnqueueReadBuffer");
}

void aos_bench_zero(struct aos_bench_run *r, cl_mem m, size_t bytes)
{
	cl_uint zero = 0;
	if (r->clerr == CL_SUCCESS)
		note_clerr(r, clEnqueueFillBuffer(r->queue, m, &zero, sizeof(zero), 0, bytes, 0, NULL, NULL),
			   "clEnqueueFillBuffer");
}

void aos_bench_copy(struct aos_bench_run *r, cl_mem src, cl_mem dst, size_t bytes)
{
	if (r->clerr == CL_SUCCESS)
		note_clerr(r, clEnqueueCopyBuffer(r->queue, src, dst, 0, 0, bytes, 0, NULL, NULL),
			   "clEnqueueCopyBuffer");
}

int aos_bench_status(struct aos_bench_run *r)
{
	return r->clerr == CL_SUCCESS ? 0 : -EIO;
}

size_t aos_round_up(size_t n, size_t m)
{
	return (n + m - 1) / m * m;
}

long aos_bench_compare_f32(const float *got, const float *want, size_t n, float rel_tol, float abs_tol)
{
	for (size_t i = 0; i < n; i++) {
		float d = fabsf(got[i] - want[i]);
		if (!(d <= abs_tol || d <= rel_tol * fabsf(want[i])))
			return (long)i;
	}
	return -1;
}
