/*
 * OpenCL host runner shared by `accelos-jit diff` and the JIT benchmarks:
 * one device, native or rewritten launches of one kernel with seeded
 * arguments, results read back for byte comparison.
 */
#ifndef AOS_CLRUN_H
#define AOS_CLRUN_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>

#include "argspec.h"

struct aos_clenv {
	cl_platform_id platform;
	cl_device_id device;
	cl_context context;
	cl_command_queue queue; /* in-order, profiling enabled */
	cl_uint compute_units;
};

struct aos_launch {
	cl_uint dims;
	size_t global[3], local[3], offset[3];
};

/* One launch's outputs: a copy of every buffer / written image, in arg order
 * (NULL for arguments that are not compared). */
struct aos_outputs {
	int n;
	uint8_t **data;
	size_t *bytes;
};

/* Physical configuration of a rewritten launch. */
struct aos_sched_cfg {
	size_t phys_groups;  /* physical work-groups: along dimension 0, one along the others */
	unsigned chunk;      /* 0 = compiled default */
	int split;           /* 1: stop at half the budget, resume with a second launch */
	int static_first;    /* 1: each group's first chunk is static (aos_vndrange_static_first);
			      * needs a chunk */
	size_t direct_wave;  /* > 0: run the direct kernel (accelos/vndrange.h) in waves of
			      * this many virtual groups; phys_groups, chunk, split unused */
	int cut;             /* with direct_wave: run the cuttable direct kernel; every other wave
			      * is cut before it starts (struct aos_cut: its box's first groups run,
			      * the next wave resumes there), the others claim 3 groups at a time */
};

int aos_clenv_open(struct aos_clenv *env);

/* JIT target for the device, from the target table (jit/target.c) and what
 * the device reports; *nv_sm is the NVIDIA compute capability * 10 or 0. */
int aos_clenv_jit_target(struct aos_clenv *env, unsigned *nv_sm);
void aos_clenv_close(struct aos_clenv *env);

/* Builds a program from source (native) or from a binary (rewritten). *log is
 * malloc'd on failure (NULL when the device gives no build log). */
cl_program aos_clrun_build_source(struct aos_clenv *env, const char *src, const char *opts,
				  char **log);
cl_program aos_clrun_build_binary(struct aos_clenv *env, const uint8_t *bin, size_t len,
				  const char *opts, char **log);
/* The JIT's output for `target` (1 = spir64, 2 = PTX: binary; 3 = SPIR-V: IL). */
cl_program aos_clrun_build_jit(struct aos_clenv *env, int target, const uint8_t *bin, size_t len,
			       char **log);

/* Runs once; `sched` NULL = native launch. Fills args from `seed`. On
 * success, outputs are set and *ms is the kernel time (all launches). Returns
 * 0, or a negative errno / OpenCL error with a message in err. */
int aos_clrun_launch(struct aos_clenv *env, cl_program prog, const char *kernel,
		     const struct aos_launch *l, const struct aos_argspec *args, int nargs,
		     uint64_t seed, const struct aos_sched_cfg *sched, struct aos_outputs *out,
		     double *ms, char *err, size_t errlen);
void aos_outputs_free(struct aos_outputs *o);

/* A launch's arguments created once (buffers and images filled from a seed, samplers), so
 * several programs or shapes can be timed on the very same memory. `args` must outlive it. */
struct aos_clrun_args;
int aos_clrun_args_create(struct aos_clenv *env, const struct aos_argspec *args, int nargs,
			  uint64_t seed, struct aos_clrun_args **out);
void aos_clrun_args_destroy(struct aos_clrun_args *set);
/* Argument `index`'s buffer or image; NULL for other kinds and out-of-range indexes. */
cl_mem aos_clrun_args_mem(const struct aos_clrun_args *set, int index);

/* Benchmark timing: prepares the launch on `set` (aos_clrun_prepare), then runs `iters`
 * launches back to back (aos_clrun_enqueue) and waits. *wall_ms is the wall time per launch;
 * *kernel_ms the mean device time of a launch's kernel commands, from its first to its last
 * (event profiling). Loop-shape launches (sched != NULL, no direct_wave) reset the record
 * before each launch, as a scheduler must; that write counts in wall time only. */
int aos_clrun_time(struct aos_clenv *env, cl_program prog, const char *kernel,
		   const struct aos_launch *l, const struct aos_clrun_args *set,
		   const struct aos_sched_cfg *sched, int iters, double *wall_ms, double *kernel_ms);

/* One launch shape of one kernel bound to an argument set, ready to enqueue again and again,
 * so two shapes can alternate launch by launch on one queue. */
struct aos_clrun_prepared;
int aos_clrun_prepare(struct aos_clenv *env, cl_program prog, const char *kernel,
		      const struct aos_launch *l, const struct aos_clrun_args *set,
		      const struct aos_sched_cfg *sched, struct aos_clrun_prepared **out);
/* Enqueues one launch (a direct launch: all its waves; a loop launch: the record reset, then
 * the kernel). *first and *last are its first and last kernel commands (one command may be
 * both, then it holds two references): pass them to aos_clrun_span_ms once they completed,
 * then release both. */
int aos_clrun_enqueue(struct aos_clenv *env, struct aos_clrun_prepared *p, cl_event *first,
		      cl_event *last);
/* Device time from the start of `first` to the end of `last`, from event profiling. */
double aos_clrun_span_ms(cl_event first, cl_event last);
/*
 * One paired sample: `pairs` pairs of a launch of prog_a (shape sched_a) and one of prog_b
 * (sched_b), alternating one by one on the same queue and buffers (A B, B A, A B, ...), so both
 * see the same machine from launch to launch. *ratio is the median over the pairs of A's kernel
 * time over B's (event profiling): a launch the host preempted spoils its pair, not the sample.
 * Returns 0, or non-zero (and *ratio 0) when a step failed.
 */
int aos_clrun_time_paired(struct aos_clenv *env, cl_program prog_a, const struct aos_sched_cfg *sched_a,
			  cl_program prog_b, const struct aos_sched_cfg *sched_b, const char *kernel,
			  const struct aos_launch *l, const struct aos_clrun_args *set, int pairs,
			  double *ratio);
/* Median of v[0..n) (sorts v); n >= 1. */
double aos_clrun_median(double *v, int n);
/* The record buffer of a prepared launch (accelos/vndrange.h); NULL when it has none. */
cl_mem aos_clrun_prepared_record(const struct aos_clrun_prepared *p);
void aos_clrun_prepared_destroy(struct aos_clrun_prepared *p);

/* Number of work-groups of the original launch. */
/* Work-groups of `kernel` in `prog` (launched as `l`) the device holds at once when it runs
 * alone, by the scheduler's resource model: the physical groups the daemon gives a loop
 * launch on an idle device. Registers count where NVIDIA's build log reports them
 * (aos_clrun_build_jit asks for it). 0 when the device has no model or the kernel does not fit. */
size_t aos_clrun_resident_groups(struct aos_clenv *env, cl_program prog, const char *kernel,
				 const struct aos_launch *l);
size_t aos_launch_groups(const struct aos_launch *l);

#endif
