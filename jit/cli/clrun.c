/* OpenCL host runner (see clrun.h). */
#include "clrun.h"

#include "chunking.h"

#include "accelos/jit.h"
#include "accelos/nv_regs.h"
#include "accelos/sched_query.h"
#include "accelos/vndrange.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int aos_clenv_open(struct aos_clenv *env)
{
	cl_int e;
	memset(env, 0, sizeof(*env));
	if (clGetPlatformIDs(1, &env->platform, NULL) != CL_SUCCESS)
		return -ENODEV;
	if (clGetDeviceIDs(env->platform, CL_DEVICE_TYPE_ALL, 1, &env->device, NULL) != CL_SUCCESS)
		return -ENODEV;
	clGetDeviceInfo(env->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(cl_uint),
			&env->compute_units, NULL);
	env->context = clCreateContext(NULL, 1, &env->device, NULL, NULL, &e);
	if (e != CL_SUCCESS)
		return -ENODEV;
	cl_queue_properties props[] = { CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0 };
	env->queue = clCreateCommandQueueWithProperties(env->context, env->device, props, &e);
	return e == CL_SUCCESS ? 0 : -ENODEV;
}

static char *device_string(cl_device_id d, cl_device_info what)
{
	size_t n = 0;
	if (clGetDeviceInfo(d, what, 0, NULL, &n) != CL_SUCCESS || n == 0)
		return NULL;
	char *s = calloc(1, n + 1);
	if (s && clGetDeviceInfo(d, what, n, s, NULL) != CL_SUCCESS) {
		free(s);
		s = NULL;
	}
	return s;
}

#define AOS_CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV 0x4000
#define AOS_CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV 0x4001

int aos_clenv_jit_target(struct aos_clenv *env, unsigned *nv_sm)
{
	char *vendor = device_string(env->device, CL_DEVICE_VENDOR);
	char *ext = device_string(env->device, CL_DEVICE_EXTENSIONS);
	char *il = device_string(env->device, CL_DEVICE_IL_VERSION);
	cl_uint major = 0, minor = 0;
	clGetDeviceInfo(env->device, AOS_CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, sizeof(major),
			&major, NULL);
	clGetDeviceInfo(env->device, AOS_CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV, sizeof(minor),
			&minor, NULL);
	struct aos_jit_device_desc d = { vendor, ext, il, major * 10 + minor };
	int t = (int)aos_jit_target_for_device(&d);
	*nv_sm = d.nv_sm; /* aos_jit_compile() bounds it to what LLVM can write */
	free(vendor);
	free(ext);
	free(il);
	return t;
}

void aos_clenv_close(struct aos_clenv *env)
{
	if (env->queue)
		clReleaseCommandQueue(env->queue);
	if (env->context)
		clReleaseContext(env->context);
}

/* The program's build log, NUL-terminated; NULL when there is none. */
static char *build_log(struct aos_clenv *env, cl_program p)
{
	size_t n = 0;
	if (clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) != CL_SUCCESS || n == 0)
		return NULL;
	char *log = calloc(1, n + 1);
	if (log && clGetProgramBuildInfo(p, env->device, CL_PROGRAM_BUILD_LOG, n, log, NULL) != CL_SUCCESS) {
		free(log);
		log = NULL;
	}
	return log;
}

static cl_program finish_build(struct aos_clenv *env, cl_program p, const char *opts, char **log)
{
	*log = NULL;
	if (clBuildProgram(p, 1, &env->device, opts, NULL, NULL) == CL_SUCCESS)
		return p;
	*log = build_log(env, p);
	clReleaseProgram(p);
	return NULL;
}

cl_program aos_clrun_build_source(struct aos_clenv *env, const char *src, const char *opts,
				  char **log)
{
	cl_int e;
	cl_program p = clCreateProgramWithSource(env->context, 1, &src, NULL, &e);
	*log = NULL;
	return p ? finish_build(env, p, opts, log) : NULL;
}

cl_program aos_clrun_build_binary(struct aos_clenv *env, const uint8_t *bin, size_t len,
				  const char *opts, char **log)
{
	cl_int e, st;
	cl_program p = clCreateProgramWithBinary(env->context, 1, &env->device, &len, &bin, &st, &e);
	*log = NULL;
	return p ? finish_build(env, p, opts, log) : NULL;
}

cl_program aos_clrun_build_jit(struct aos_clenv *env, int target, const uint8_t *bin, size_t len,
			       char **log)
{
	cl_int e;
	*log = NULL;
	/* On NVIDIA the build log then carries ptxas's register counts (aos_clrun_resident_groups).
	 * ACCELOS_CLRUN_NV_OPTIONS adds options there, for experiments (-cl-nv-maxrregcount=N). */
	if (target == AOS_JIT_TARGET_NVPTX64) {
		const char *extra = getenv("ACCELOS_CLRUN_NV_OPTIONS");
		char options[256];
		snprintf(options, sizeof(options), "-cl-nv-verbose %s", extra ? extra : "");
		return aos_clrun_build_binary(env, bin, len, options, log);
	}
	if (target != AOS_JIT_TARGET_SPIRV)
		return aos_clrun_build_binary(env, bin, len, "", log);
	cl_program p = clCreateProgramWithIL(env->context, bin, len, &e);
	return p ? finish_build(env, p, "", log) : NULL;
}

size_t aos_clrun_resident_groups(struct aos_clenv *env, cl_program prog, const char *kernel,
				 const struct aos_launch *l)
{
	struct aos_sched_device_info info;
	struct aos_sched_device dev;
	char vendor[AOS_SCHED_VENDOR_MAX];
	aos_sched_device_query(clGetDeviceInfo, env->device, &info, vendor);
	if (aos_sched_device_from_info(&info, &dev))
		return 0;
	cl_int e;
	cl_kernel k = clCreateKernel(prog, kernel, &e);
	if (!k)
		return 0;
	cl_ulong local = 0;
	clGetKernelWorkGroupInfo(k, env->device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof(local), &local, NULL);
	clReleaseKernel(k);
	size_t threads = 1;
	for (cl_uint d = 0; d < l->dims; d++)
		threads *= l->local[d];
	char *log = build_log(env, prog);
	struct aos_sched_kernel sk = { .wg_threads = (uint32_t)threads, .local_mem = local, .total_groups = 1,
				       .regs_per_thread = log ? aos_nv_regs_from_log(log, strlen(log), kernel) : 0 };
	free(log);
	return (size_t)aos_sched_kernel_occupancy(&dev, &sk, NULL);
}

size_t aos_launch_groups(const struct aos_launch *l)
{
	size_t g = 1;
	for (cl_uint d = 0; d < l->dims; d++)
		g *= l->global[d] / l->local[d];
	return g;
}

void aos_outputs_free(struct aos_outputs *o)
{
	for (int i = 0; i < o->n; i++)
		free(o->data[i]);
	free(o->data);
	free(o->bytes);
	memset(o, 0, sizeof(*o));
}

/* The launch was checked uniform when parsed; CL_INVALID_GLOBAL_WORK_SIZE
 * for one that has more than AOS_VNDRANGE_MAX_GROUPS virtual groups. */
static cl_int fill_record(struct aos_vndrange *r, const struct aos_launch *l, const struct aos_sched_cfg *sched)
{
	if (aos_vndrange_fill(r, l->dims, l->global, l->local, l->offset))
		return CL_INVALID_GLOBAL_WORK_SIZE;
	r->chunk = sched ? sched->chunk : 0;
	if (sched && sched->static_first && aos_vndrange_static_first(r, 0, sched->phys_groups, sched->chunk))
		return CL_INVALID_VALUE;
	return CL_SUCCESS;
}

struct launch_state {
	cl_mem *mems;
	cl_sampler *samplers;
	int n;
	cl_mem record;
};

static void release_state(struct launch_state *s)
{
	for (int i = 0; i < s->n; i++) {
		if (s->mems[i])
			clReleaseMemObject(s->mems[i]);
		if (s->samplers[i])
			clReleaseSampler(s->samplers[i]);
	}
	if (s->record)
		clReleaseMemObject(s->record);
	free(s->mems);
	free(s->samplers);
}

/* Creates argument i's memory object or sampler (seeded contents); other kinds need none. */
static cl_int create_arg(struct aos_clenv *env, cl_uint i, const struct aos_argspec *a,
			 uint64_t seed, struct launch_state *s)
{
	cl_int e = CL_SUCCESS;
	void *host = NULL;
	if (a->kind == AOS_ARG_BUFFER || a->kind == AOS_ARG_IMAGE_IN) {
		host = malloc(a->bytes);
		if (!host)
			return CL_OUT_OF_HOST_MEMORY;
		aos_argspec_fill(a, i, seed, host);
	}
	switch (a->kind) {
	case AOS_ARG_BUFFER:
		s->mems[i] = clCreateBuffer(env->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
					    a->bytes, host, &e);
		break;
	case AOS_ARG_IMAGE_IN:
	case AOS_ARG_IMAGE_OUT: {
		cl_image_format fmt = { CL_RGBA, CL_FLOAT };
		cl_image_desc desc = { .image_type = CL_MEM_OBJECT_IMAGE2D,
				       .image_width = a->width,
				       .image_height = a->height };
		cl_mem_flags fl = a->kind == AOS_ARG_IMAGE_IN ? CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR
							      : CL_MEM_WRITE_ONLY;
		s->mems[i] = clCreateImage(env->context, fl, &fmt, &desc, host, &e);
		break;
	}
	case AOS_ARG_SAMPLER: {
		cl_sampler_properties props[] = { CL_SAMPLER_NORMALIZED_COORDS, a->normalized,
						  CL_SAMPLER_ADDRESSING_MODE, a->addressing,
						  CL_SAMPLER_FILTER_MODE, a->filter, 0 };
		s->samplers[i] = clCreateSamplerWithProperties(env->context, props, &e);
		break;
	}
	default:
		break;
	}
	free(host);
	return e;
}

/* Sets kernel argument i from the spec and the objects create_arg made. */
static cl_int bind_arg(cl_kernel k, cl_uint i, const struct aos_argspec *a,
		       const struct launch_state *s)
{
	switch (a->kind) {
	case AOS_ARG_BUFFER:
	case AOS_ARG_IMAGE_IN:
	case AOS_ARG_IMAGE_OUT:
		return clSetKernelArg(k, i, sizeof(cl_mem), &s->mems[i]);
	case AOS_ARG_SAMPLER:
		return clSetKernelArg(k, i, sizeof(cl_sampler), &s->samplers[i]);
	case AOS_ARG_LOCAL:
		return clSetKernelArg(k, i, a->bytes, NULL);
	case AOS_ARG_VALUE:
		return clSetKernelArg(k, i, a->bytes, a->value);
	}
	return CL_INVALID_VALUE;
}

static cl_int set_arg(struct aos_clenv *env, cl_kernel k, cl_uint i, const struct aos_argspec *a,
		      uint64_t seed, struct launch_state *s)
{
	cl_int e = create_arg(env, i, a, seed, s);
	return e == CL_SUCCESS ? bind_arg(k, i, a, s) : e;
}

static double event_ms(cl_event ev)
{
	cl_ulong t0 = 0, t1 = 0;
	clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof(t0), &t0, NULL);
	clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof(t1), &t1, NULL);
	return (double)(t1 - t0) / 1e6;
}

/* The global size a launch is enqueued with: the original one, or for the loop shape
 * phys_groups groups along x and one along y and z (each group then dequeues). */
static void launch_global(const struct aos_launch *l, const struct aos_sched_cfg *sched,
			  size_t global[3])
{
	memcpy(global, l->global, 3 * sizeof(size_t));
	if (sched) {
		global[0] = sched->phys_groups * l->local[0];
		global[1] = l->local[1];
		global[2] = l->local[2];
	}
}

static cl_int enqueue(struct aos_clenv *env, cl_kernel k, const struct aos_launch *l,
		      const struct aos_sched_cfg *sched, double *ms)
{
	size_t global[3];
	cl_event ev;
	launch_global(l, sched, global);
	cl_int e = clEnqueueNDRangeKernel(env->queue, k, l->dims, sched ? NULL : l->offset, global,
					  l->local, 0, NULL, &ev);
	if (e != CL_SUCCESS)
		return e;
	e = clWaitForEvents(1, &ev);
	*ms += event_ms(ev);
	clReleaseEvent(ev);
	return e;
}

/* The kernel a run creates: `kernel`, or its direct shape when sched asks for direct waves. */
static const char *kernel_to_run(const char *kernel, const struct aos_sched_cfg *sched, char *buf,
				 size_t len)
{
	if (!sched || !sched->direct_wave)
		return kernel;
	snprintf(buf, len, "%s%s", sched->cut ? AOS_CUT_KERNEL_PREFIX : AOS_DIRECT_KERNEL_PREFIX, kernel);
	return buf;
}

/* Sets the direct kernel's last argument: the launch's grid, by value, for a wave whose box
 * starts at group `origin` (accelos/vndrange.h). */
static cl_int set_direct_grid(cl_kernel k, cl_uint grid_arg, const struct aos_vndrange *rec,
			      const aos_u64 origin[3])
{
	struct aos_direct_grid grid;
	aos_direct_grid_of(rec, origin, &grid);
	return clSetKernelArg(k, grid_arg, sizeof(grid), &grid);
}

/* Enqueues one wave of the direct kernel k over a box of rec (aos_vndrange_box), its origin in the
 * grid argument `grid_arg`. */
static cl_int enqueue_box(struct aos_clenv *env, cl_kernel k, cl_uint grid_arg, const struct aos_launch *l,
			  const struct aos_vndrange *rec, const aos_u64 origin[3], const aos_u64 extent[3], cl_event *ev)
{
	size_t global[3], offset[3];
	aos_vndrange_box_ndrange(rec, origin, extent, global, offset);
	cl_int e = set_direct_grid(k, grid_arg, rec, origin);
	if (e == CL_SUCCESS)
		e = clEnqueueNDRangeKernel(env->queue, k, l->dims, offset, global, l->local, 0, NULL, ev);
	return e;
}

/* Enqueues the direct kernel over all virtual groups of rec in waves of up to `wave` groups,
 * each a box of the original range (aos_vndrange_box: one physical group per virtual group,
 * original local size, the global offset moved to the box, the box's origin in the grid
 * argument `grid_arg`). With `ms`, waits for each wave and adds its kernel time; else *last is
 * the last wave's event. With `first`, *first is the first wave's event (one reference more when
 * it is also *last). */
static cl_int enqueue_direct_waves(struct aos_clenv *env, cl_kernel k, cl_uint grid_arg, const struct aos_launch *l,
				   const struct aos_vndrange *rec, size_t wave, double *ms, cl_event *last,
				   cl_event *first)
{
	cl_int e = CL_SUCCESS;
	aos_u32 want = wave < UINT32_MAX ? (aos_u32)wave : UINT32_MAX;
	for (aos_u32 start = 0; e == CL_SUCCESS && start < rec->total_groups;) {
		aos_u64 origin[3], extent[3];
		aos_u32 n = aos_vndrange_box(rec, start, want, origin, extent);
		cl_event ev = NULL;
		e = enqueue_box(env, k, grid_arg, l, rec, origin, extent, &ev);
		if (e == CL_SUCCESS && ms) {
			e = clWaitForEvents(1, &ev);
			*ms += event_ms(ev);
		}
		if (ev && first && !*first) {
			clRetainEvent(ev);
			*first = ev;
		}
		if (ev && !ms) {
			if (*last)
				clReleaseEvent(*last);
			*last = ev;
		} else if (ev) {
			clReleaseEvent(ev);
		}
		start += n;
	}
	return e;
}

/* The cuttable direct kernel over all virtual groups of rec in waves of up to `wave` groups, its
 * cut record in `cut` (argument grid_arg + 1). Odd waves are cut before they start at a point
 * that moves from wave to wave, so only their box's first groups run and the next wave resumes
 * there; even waves claim 3 groups at a time and run out. After each wave the record must say
 * what ran: the cut point unchanged, or at least the whole box claimed. */
static cl_int run_cut_waves(struct aos_clenv *env, cl_kernel k, cl_uint grid_arg, const struct aos_launch *l,
			    const struct aos_vndrange *rec, size_t wave, cl_mem cut, double *ms, char *err,
			    size_t errlen)
{
	cl_int e = clSetKernelArg(k, grid_arg + 1, sizeof(cut), &cut);
	aos_u32 want = wave < UINT32_MAX ? (aos_u32)wave : UINT32_MAX;
	unsigned n_wave = 0;
	for (aos_u32 start = 0; e == CL_SUCCESS && start < rec->total_groups; n_wave++) {
		aos_u64 origin[3], extent[3];
		aos_u32 n = aos_vndrange_box(rec, start, want, origin, extent);
		bool cut_now = n_wave % 2 == 1;
		aos_u32 ran = cut_now ? 1 + (n_wave * 7u) % n : n; /* 1..n */
		struct aos_cut c = { .claimed = cut_now ? ran | AOS_CUT_STOP : 0, .ahead = 3 };
		cl_event ev = NULL;
		if ((e = clEnqueueWriteBuffer(env->queue, cut, CL_TRUE, 0, sizeof(c), &c, 0, NULL, NULL)) != CL_SUCCESS ||
		    (e = enqueue_box(env, k, grid_arg, l, rec, origin, extent, &ev)) != CL_SUCCESS)
			break;
		e = clWaitForEvents(1, &ev);
		*ms += event_ms(ev);
		clReleaseEvent(ev);
		if (e == CL_SUCCESS)
			e = clEnqueueReadBuffer(env->queue, cut, CL_TRUE, 0, sizeof(c), &c, 0, NULL, NULL);
		if (e == CL_SUCCESS && (cut_now ? c.claimed != (ran | AOS_CUT_STOP) : c.claimed < n)) {
			snprintf(err, errlen, "cut wave %u of %u groups: record says %#x after the wave, expected %s %u",
				 n_wave, n, c.claimed, cut_now ? "the cut at" : "a claim of at least", ran);
			return CL_INVALID_VALUE;
		}
		start += ran;
	}
	return e;
}

/* Runs the direct kernel over the whole virtual NDRange in waves of up to
 * sched->direct_wave groups; the grid is its last argument. */
static cl_int run_direct(struct aos_clenv *env, cl_kernel k, const struct aos_launch *l,
			 const struct aos_sched_cfg *sched, cl_uint grid_arg, double *ms, char *err, size_t errlen)
{
	struct aos_vndrange rec;
	cl_int e = fill_record(&rec, l, NULL);
	if (e != CL_SUCCESS)
		return e;
	if (!sched->cut)
		return enqueue_direct_waves(env, k, grid_arg, l, &rec, sched->direct_wave, ms, NULL, NULL);
	cl_mem cut = clCreateBuffer(env->context, CL_MEM_READ_WRITE, sizeof(struct aos_cut), NULL, &e);
	if (e == CL_SUCCESS) {
		e = run_cut_waves(env, k, grid_arg, l, &rec, sched->direct_wave, cut, ms, err, errlen);
		clReleaseMemObject(cut);
	}
	return e;
}

/* Reads the record back into *rec and checks that the virtual groups that ran are the first
 * ones, between least and most of them. */
static cl_int check_record_range(struct aos_clenv *env, struct launch_state *s, struct aos_vndrange *rec,
				 aos_u32 least, aos_u32 most, const char *what, char *err, size_t errlen)
{
	cl_int e = clEnqueueReadBuffer(env->queue, s->record, CL_TRUE, 0, sizeof(*rec), rec, 0, NULL,
				       NULL);
	if (e == CL_SUCCESS && (rec->done != aos_vndrange_frontier(rec) || rec->done < least ||
				rec->done > most)) {
		snprintf(err, errlen, "%s: done %u, next %u (frontier %u) of %u groups, want %u..%u", what,
			 rec->done, rec->next, aos_vndrange_frontier(rec), rec->total_groups, least, most);
		return CL_INVALID_OPERATION;
	}
	return e;
}

/* Reads the record back into *rec and checks that exactly the first want_done groups ran. */
static cl_int check_record(struct aos_clenv *env, struct launch_state *s, struct aos_vndrange *rec,
			   aos_u32 want_done, const char *what, char *err, size_t errlen)
{
	return check_record_range(env, s, rec, want_done, want_done, what, err, errlen);
}

/* Runs the rewritten kernel, optionally split: a launch with `stop` set runs at
 * most one chunk per physical group, one under half the budget runs on to the
 * first half, and one resumed at its frontier (accelos/vndrange.h) the rest.
 * Checks that the record says every virtual group ran exactly once. */
static cl_int run_sched(struct aos_clenv *env, cl_kernel k, const struct aos_launch *l,
			const struct aos_sched_cfg *sched, struct launch_state *s, cl_uint rec_arg,
			double *ms, char *err, size_t errlen)
{
	struct aos_vndrange rec;
	cl_int e = fill_record(&rec, l, sched);
	if (e != CL_SUCCESS)
		return e;
	aos_u32 total = rec.total_groups;
	rec.flags |= AOS_VNDRANGE_COUNT_DONE; /* the proof check_record reads */
	if (sched->split) {
		rec.budget = total / 2;
		rec.stop = 1;
	}
	s->record = clCreateBuffer(env->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
				   sizeof(rec), &rec, &e);
	if (e != CL_SUCCESS)
		return e;
	if ((e = clSetKernelArg(k, rec_arg, sizeof(cl_mem), &s->record)) != CL_SUCCESS)
		return e;
	if (sched->split) {
		aos_u32 half = rec.budget, go = 0;
		/* A stopped master still runs the chunk it took; the largest compiled chunk is the
		 * smallest kernel's. */
		unsigned chunk = sched->chunk ? sched->chunk : aos_chunk_for_inst_count(0);
		aos_u32 most = (aos_u32)(sched->phys_groups * chunk);
		if ((e = enqueue(env, k, l, sched, ms)) != CL_SUCCESS ||
		    (e = check_record_range(env, s, &rec, 0, most < half ? most : half, "stopped launch", err,
					    errlen)) != CL_SUCCESS)
			return e;
		/* budget, static_end and next are adjacent: the resumed launches dequeue every chunk. */
		aos_u32 resume_stopped[3] = { half, 0, aos_vndrange_frontier(&rec) };
		clEnqueueWriteBuffer(env->queue, s->record, CL_TRUE, AOS_OFFSETOF(struct aos_vndrange, budget),
				     sizeof(resume_stopped), resume_stopped, 0, NULL, NULL);
		clEnqueueWriteBuffer(env->queue, s->record, CL_TRUE, AOS_OFFSETOF(struct aos_vndrange, stop),
				     sizeof(go), &go, 0, NULL, NULL);
		if ((e = enqueue(env, k, l, sched, ms)) != CL_SUCCESS ||
		    (e = check_record(env, s, &rec, half, "launch under half the budget", err, errlen)) !=
			    CL_SUCCESS)
			return e;
		aos_u32 resume[3] = { total, 0, aos_vndrange_frontier(&rec) };
		clEnqueueWriteBuffer(env->queue, s->record, CL_TRUE, AOS_OFFSETOF(struct aos_vndrange, budget),
				     sizeof(resume), resume, 0, NULL, NULL);
	}
	if ((e = enqueue(env, k, l, sched, ms)) != CL_SUCCESS ||
	    (e = check_record(env, s, &rec, total, "record after launch", err, errlen)) != CL_SUCCESS)
		return e;
	/* Every group's master ends on one empty grab of `chunk`, except the one whose grab reached
	 * the end, so with a forced chunk the record tells how many physical groups ran the loop:
	 * exactly the ones launched. Static first chunks that cover the range leave nothing to
	 * dequeue: then no group may have added to `next`. */
	if (sched->split || !sched->chunk)
		return CL_SUCCESS;
	aos_u32 from = sched->static_first ? rec.static_end : 0;
	if (from >= total && rec.next != from) {
		snprintf(err, errlen, "next %u after static chunks that end at %u cover the range", rec.next, from);
		return CL_INVALID_OPERATION;
	}
	if (from < total) {
		aos_u64 c = sched->chunk, grabs = ((aos_u64)total - from + c - 1) / c;
		aos_u64 ran = (rec.next - from) / c - grabs + 1;
		if ((rec.next - from) % c || ran != sched->phys_groups) {
			snprintf(err, errlen, "%llu physical groups dequeued (next %u, chunk %u), %zu launched",
				 (unsigned long long)ran, rec.next, sched->chunk, sched->phys_groups);
			return CL_INVALID_OPERATION;
		}
	}
	return CL_SUCCESS;
}

static cl_int read_outputs(struct aos_clenv *env, const struct aos_argspec *args, int nargs,
			   struct launch_state *s, struct aos_outputs *out)
{
	out->n = nargs;
	out->data = calloc((size_t)nargs, sizeof(*out->data));
	out->bytes = calloc((size_t)nargs, sizeof(*out->bytes));
	if (!out->data || !out->bytes)
		return CL_OUT_OF_HOST_MEMORY;
	for (int i = 0; i < nargs; i++) {
		const struct aos_argspec *a = &args[i];
		cl_int e = CL_SUCCESS;
		if (a->kind != AOS_ARG_BUFFER && a->kind != AOS_ARG_IMAGE_OUT)
			continue;
		out->data[i] = malloc(a->bytes);
		out->bytes[i] = a->bytes;
		if (!out->data[i])
			return CL_OUT_OF_HOST_MEMORY;
		if (a->kind == AOS_ARG_BUFFER) {
			e = clEnqueueReadBuffer(env->queue, s->mems[i], CL_TRUE, 0, a->bytes,
						out->data[i], 0, NULL, NULL);
		} else {
			size_t origin[3] = { 0 }, region[3] = { a->width, a->height, 1 };
			e = clEnqueueReadImage(env->queue, s->mems[i], CL_TRUE, origin, region, 0, 0,
					       out->data[i], 0, NULL, NULL);
		}
		if (e != CL_SUCCESS)
			return e;
	}
	return CL_SUCCESS;
}

int aos_clrun_launch(struct aos_clenv *env, cl_program prog, const char *kernel,
		     const struct aos_launch *l, const struct aos_argspec *args, int nargs,
		     uint64_t seed, const struct aos_sched_cfg *sched, struct aos_outputs *out,
		     double *ms, char *err, size_t errlen)
{
	struct launch_state s = { 0 };
	cl_int e;
	memset(out, 0, sizeof(*out));
	*ms = 0;
	err[0] = '\0';
	char direct_name[256];
	kernel = kernel_to_run(kernel, sched, direct_name, sizeof(direct_name));
	cl_kernel k = clCreateKernel(prog, kernel, &e);
	if (!k) {
		snprintf(err, errlen, "clCreateKernel(%s) failed: %d", kernel, e);
		return e;
	}
	s.n = nargs;
	s.mems = calloc((size_t)nargs + 1, sizeof(*s.mems));
	s.samplers = calloc((size_t)nargs + 1, sizeof(*s.samplers));
	e = s.mems && s.samplers ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
	for (int i = 0; e == CL_SUCCESS && i < nargs; i++) {
		e = set_arg(env, k, (cl_uint)i, &args[i], seed, &s);
		if (e != CL_SUCCESS)
			snprintf(err, errlen, "setting argument %d failed: %d", i, e);
	}
	if (e == CL_SUCCESS) {
		if (sched && sched->direct_wave)
			e = run_direct(env, k, l, sched, (cl_uint)nargs, ms, err, errlen);
		else if (sched)
			e = run_sched(env, k, l, sched, &s, (cl_uint)nargs, ms, err, errlen);
		else
			e = enqueue(env, k, l, NULL, ms);
		if (e != CL_SUCCESS && !err[0])
			snprintf(err, errlen, "launch failed: %d", e);
	}
	if (e == CL_SUCCESS)
		e = read_outputs(env, args, nargs, &s, out);
	release_state(&s);
	clReleaseKernel(k);
	if (e != CL_SUCCESS)
		aos_outputs_free(out);
	return e;
}

static double now_wall_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

struct aos_clrun_args {
	struct launch_state s;
	const struct aos_argspec *specs;
};

int aos_clrun_args_create(struct aos_clenv *env, const struct aos_argspec *args, int nargs,
			  uint64_t seed, struct aos_clrun_args **out)
{
	struct aos_clrun_args *set = calloc(1, sizeof(*set));
	*out = NULL;
	if (!set)
		return CL_OUT_OF_HOST_MEMORY;
	set->specs = args;
	set->s.mems = calloc((size_t)nargs + 1, sizeof(*set->s.mems));
	set->s.samplers = calloc((size_t)nargs + 1, sizeof(*set->s.samplers));
	cl_int e = set->s.mems && set->s.samplers ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
	if (e == CL_SUCCESS)
		set->s.n = nargs; /* release_state walks n entries of both arrays */
	for (int i = 0; e == CL_SUCCESS && i < nargs; i++)
		e = create_arg(env, (cl_uint)i, &args[i], seed, &set->s);
	if (e != CL_SUCCESS) {
		aos_clrun_args_destroy(set);
		return e;
	}
	*out = set;
	return CL_SUCCESS;
}

cl_mem aos_clrun_args_mem(const struct aos_clrun_args *set, int index)
{
	return index >= 0 && index < set->s.n ? set->s.mems[index] : NULL;
}

void aos_clrun_args_destroy(struct aos_clrun_args *set)
{
	if (!set)
		return;
	release_state(&set->s);
	free(set);
}

int aos_clrun_time(struct aos_clenv *env, cl_program prog, const char *kernel,
		   const struct aos_launch *l, const struct aos_clrun_args *set,
		   const struct aos_sched_cfg *sched, int iters, double *wall_ms, double *kernel_ms)
{
	int n = iters > 0 ? iters : 1;
	cl_event *ev = calloc((size_t)n * 2, sizeof(*ev));
	struct aos_clrun_prepared *p = NULL;
	cl_int e = ev ? aos_clrun_prepare(env, prog, kernel, l, set, sched, &p) : CL_OUT_OF_HOST_MEMORY;
	if (e == CL_SUCCESS)
		e = clFinish(env->queue);
	double t0 = now_wall_ms();
	for (int i = 0; e == CL_SUCCESS && i < iters; i++)
		e = aos_clrun_enqueue(env, p, &ev[2 * i], &ev[2 * i + 1]);
	if (e == CL_SUCCESS)
		e = clFinish(env->queue);
	*wall_ms = (now_wall_ms() - t0) / n;
	*kernel_ms = 0;
	for (int i = 0; ev && i < n; i++) {
		if (e == CL_SUCCESS && ev[2 * i] && ev[2 * i + 1])
			*kernel_ms += aos_clrun_span_ms(ev[2 * i], ev[2 * i + 1]) / n;
		for (int h = 0; h < 2; h++)
			if (ev[2 * i + h])
				clReleaseEvent(ev[2 * i + h]);
	}
	if (e != CL_SUCCESS)
		clFinish(env->queue); /* nothing enqueued may outlive its kernel or record */
	aos_clrun_prepared_destroy(p);
	free(ev);
	return e;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double aos_clrun_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), by_value);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct aos_clrun_prepared {
	cl_kernel kernel;
	cl_mem record;
	struct aos_vndrange rec;
	cl_uint grid_arg; /* the direct shape's grid argument, set for every wave */
	struct aos_launch launch;
	struct aos_sched_cfg sched;
	int has_sched;
};

int aos_clrun_prepare(struct aos_clenv *env, cl_program prog, const char *kernel,
		      const struct aos_launch *l, const struct aos_clrun_args *set,
		      const struct aos_sched_cfg *sched, struct aos_clrun_prepared **out)
{
	struct aos_clrun_prepared *p = calloc(1, sizeof(*p));
	char direct_name[256];
	cl_int e = p ? CL_SUCCESS : CL_OUT_OF_HOST_MEMORY;
	*out = NULL;
	if (e != CL_SUCCESS)
		return e;
	p->launch = *l;
	if (sched) {
		p->sched = *sched;
		p->has_sched = 1;
	}
	p->kernel = clCreateKernel(prog, kernel_to_run(kernel, sched, direct_name,
						       sizeof(direct_name)), &e);
	for (int i = 0; e == CL_SUCCESS && i < set->s.n; i++)
		e = bind_arg(p->kernel, (cl_uint)i, &set->specs[i], &set->s);
	if (e == CL_SUCCESS && sched && sched->direct_wave) {
		e = fill_record(&p->rec, l, NULL);
		if (e == CL_SUCCESS)
			p->grid_arg = (cl_uint)set->s.n;
	} else if (e == CL_SUCCESS && sched) {
		e = fill_record(&p->rec, l, sched);
		if (e == CL_SUCCESS)
			p->record = clCreateBuffer(env->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
						   sizeof(p->rec), &p->rec, &e);
		if (e == CL_SUCCESS)
			e = clSetKernelArg(p->kernel, (cl_uint)set->s.n, sizeof(cl_mem), &p->record);
	}
	if (e != CL_SUCCESS) {
		aos_clrun_prepared_destroy(p);
		return e;
	}
	*out = p;
	return CL_SUCCESS;
}

int aos_clrun_enqueue(struct aos_clenv *env, struct aos_clrun_prepared *p, cl_event *first,
		      cl_event *last)
{
	cl_int e;
	*first = *last = NULL;
	if (p->has_sched && p->sched.direct_wave) {
		/* The first wave's start and the last wave's end bound the launch. */
		return enqueue_direct_waves(env, p->kernel, p->grid_arg, &p->launch, &p->rec,
					    p->sched.direct_wave, NULL, last, first);
	}
	size_t global[3];
	launch_global(&p->launch, p->has_sched ? &p->sched : NULL, global);
	if (p->has_sched) {
		e = clEnqueueWriteBuffer(env->queue, p->record, CL_FALSE, 0, sizeof(p->rec), &p->rec,
					 0, NULL, NULL);
		if (e != CL_SUCCESS)
			return e;
	}
	e = clEnqueueNDRangeKernel(env->queue, p->kernel, p->launch.dims,
				   p->has_sched ? NULL : p->launch.offset, global, p->launch.local, 0,
				   NULL, last);
	if (e == CL_SUCCESS) {
		clRetainEvent(*last);
		*first = *last;
	}
	return e;
}

double aos_clrun_span_ms(cl_event first, cl_event last)
{
	cl_ulong t0 = 0, t1 = 0;
	clGetEventProfilingInfo(first, CL_PROFILING_COMMAND_START, sizeof(t0), &t0, NULL);
	clGetEventProfilingInfo(last, CL_PROFILING_COMMAND_END, sizeof(t1), &t1, NULL);
	return t1 > t0 ? (double)(t1 - t0) / 1e6 : 0;
}

cl_mem aos_clrun_prepared_record(const struct aos_clrun_prepared *p)
{
	return p ? p->record : NULL;
}

void aos_clrun_prepared_destroy(struct aos_clrun_prepared *p)
{
	if (!p)
		return;
	if (p->kernel)
		clReleaseKernel(p->kernel);
	if (p->record)
		clReleaseMemObject(p->record);
	free(p);
}

int aos_clrun_time_paired(struct aos_clenv *env, cl_program prog_a, const struct aos_sched_cfg *sched_a,
			  cl_program prog_b, const struct aos_sched_cfg *sched_b, const char *kernel,
			  const struct aos_launch *l, const struct aos_clrun_args *set, int pairs,
			  double *ratio)
{
	struct aos_clrun_prepared *p[2] = { NULL, NULL };
	cl_event *ev = calloc((size_t)pairs * 4, sizeof(*ev));
	double *pair_ratio = calloc((size_t)pairs, sizeof(*pair_ratio));
	int rc = pairs < 1 || !ev || !pair_ratio ||
		 aos_clrun_prepare(env, prog_a, kernel, l, set, sched_a, &p[0]) ||
		 aos_clrun_prepare(env, prog_b, kernel, l, set, sched_b, &p[1]);
	/* Launch j is a when j % 4 is 0 or 3: pair j / 2 holds one launch of each. */
	for (int j = 0; !rc && j < 2 * pairs; j++) {
		int shape = (j % 4 == 0 || j % 4 == 3) ? 0 : 1;
		rc = aos_clrun_enqueue(env, p[shape], &ev[2 * j], &ev[2 * j + 1]) != CL_SUCCESS;
	}
	if (!rc)
		rc = clFinish(env->queue) != CL_SUCCESS;
	for (int k = 0; !rc && k < pairs; k++) {
		int a = 2 * k + (k % 2), b = 2 * k + 1 - (k % 2);
		double ta = aos_clrun_span_ms(ev[2 * a], ev[2 * a + 1]);
		double tb = aos_clrun_span_ms(ev[2 * b], ev[2 * b + 1]);
		pair_ratio[k] = tb > 0 ? ta / tb : 0;
	}
	for (int j = 0; ev && j < 4 * pairs; j++)
		if (ev[j])
			clReleaseEvent(ev[j]);
	*ratio = rc ? 0 : aos_clrun_median(pair_ratio, pairs);
	aos_clrun_prepared_destroy(p[0]);
	aos_clrun_prepared_destroy(p[1]);
	free(pair_ratio);
	free(ev);
	return rc || *ratio <= 0;
}
