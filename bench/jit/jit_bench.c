/*
 * accelos-jit-bench: speed of rewritten kernels and cost of the JIT.
 *
 * For every "// DIFF:" launch in the given kernel files (or .spec files,
 * whose "source: PATH" line names the kernel file, relative to the cwd):
 *   overhead: native launch vs rewritten launch on the device's full capacity
 *             (physical groups = min(total groups, the larger of 4 x compute
 *             units and the groups the scheduler's resource model holds at
 *             once, which is what the daemon gives it alone on a GPU)),
 *             interleaved in the same run; each sample is the wall time per
 *             launch of a batch of back-to-back launches (~20 ms) of each
 *             shape, one after the other, the order reversed every other
 *             sample; speed = median over the --reps samples of native /
 *             rewritten within the sample (>1: faster). Pairing neighbours
 *             cancels the machine's drift between samples; the times shown are
 *             the medians of each shape's own samples. All shapes of a sample
 *             run on the same buffers (--buffers shape: each on its own).
 *   direct:   also the direct shape (accelos/vndrange.h) in one
 *             wave over all virtual groups, interleaved the same way, and
 *             "paired": native and direct launches alternating one by one in
 *             the same batch, speed = median over the pairs of their kernel
 *             times (event profiling), median over the samples. It cancels
 *             drift at the scale of one launch instead of one batch.
 *   JIT cost: aos_jit_compile (no cache) + clBuildProgram of the binary vs
 *             clBuildProgram of the source, and aos_jit_compile on a cache hit;
 *             of the module the daemon builds for the device by default
 *             (without direct twins on a GPU, which runs the loop shape).
 * Innermost loops on the CPU device align as the daemon aligns them (--loop-align, default
 * AOS_JIT_HOST_LOOP_ALIGN_DEFAULT; 0 = LLVM's own).
 * PoCL's own kernel cache is switched off (POCL_KERNEL_CACHE=0) so both build
 * paths really compile. Writes a markdown report (--out) and prints it.
 */
#include "clrun.h"
#include "launch_spec.h"
#include "text_file.h"

#include "accelos/jit.h"
#include "accelos/sched_config.h"
#include "accelos/vndrange.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct row {
	char name[160];
	double native_ms, rewritten_ms, speed;       /* wall time per launch */
	double native_kms, rewritten_kms, kspeed;    /* kernel commands only */
	double direct_ms, dspeed;                    /* direct shape, one wave */
	double pspeed;                               /* direct, launches alternating with native */
	int has_direct;
	size_t groups, phys;
	unsigned chunk;
	int iters;
	double native_build_ms, jit_ms, jit_build_ms, hit_ms;
	int ok;
};

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Median over the samples of a[i] / b[i]: each sample's two shapes ran next to each other. */
static double median_ratio(const double *a, const double *b, int n)
{
	double *r = malloc((size_t)n * sizeof(*r));
	if (!r)
		return 0;
	for (int i = 0; i < n; i++)
		r[i] = b[i] > 0 ? a[i] / b[i] : 0;
	double m = aos_clrun_median(r, n);
	free(r);
	return m;
}

/* One launch: builds, times, fills `r`. */
static unsigned forced_chunk; /* --chunk: override the compiled chunk (0 = keep) */
/* --chunk spread[N] (the default, as the daemon's loop waves): aos_vndrange_loop_chunk with N
 * dequeues per physical group, static first chunks included; --chunk C sets the chunk, --chunk 0
 * the compiled one, all dequeued. */
static unsigned spread_dequeues = AOS_VNDRANGE_DEQUEUES_PER_GROUP;
/* --chunk dequeued[N]: the spread chunk, every chunk dequeued (the loop before static first chunks). */
static int all_dequeued;
static int per_shape_buffers; /* --buffers shape: each shape on buffers of its own (before session 18) */
/* --phys N: the loop shape on N physical groups (at most the launch's groups; "all": one per
 * virtual group) instead of what the device holds at once; 0: the default. */
static size_t forced_phys;

static int bench_one(struct aos_clenv *env, struct aos_launch_spec *o, const char *cache_dir,
		     int reps, struct row *r)
{
	size_t len;
	char *src = aos_read_text(o->file, &len), *log = NULL, err[512];
	const char *opts = o->build_options ? o->build_options : "";
	struct aos_jit_result *res = NULL, *hit = NULL;
	cl_program nat = NULL, rw = NULL;
	double *tn = calloc((size_t)reps, sizeof(double)), *tr = calloc((size_t)reps, sizeof(double));
	double *kn = calloc((size_t)reps, sizeof(double)), *kr = calloc((size_t)reps, sizeof(double));
	double *td = calloc((size_t)reps, sizeof(double)), kd;
	double *tp = calloc((size_t)reps, sizeof(double));
	int rc = -1;
	if (!src || !tn || !tr || !kn || !kr || !td || !tp)
		goto out;

	double t0 = now_ms();
	(void)err;
	nat = aos_clrun_build_source(env, src, opts, &log);
	r->native_build_ms = now_ms() - t0;
	if (!nat)
		goto out;
	/* JIT cost without the cache as the daemon compiles for the device by default (direct
	 * twins only where wave_shape auto runs them), then fill the cache and time a hit. */
	unsigned nv_sm = 0;
	cl_device_type type = 0;
	clGetDeviceInfo(env->device, CL_DEVICE_TYPE, sizeof(type), &type, NULL);
	struct aos_jit_options jo = { .target = aos_clenv_jit_target(env, &nv_sm), .build_options = opts,
				      .nv_sm = nv_sm, .no_cache = 1,
				      .no_direct = !aos_wave_shape_runs_direct(AOS_WAVE_SHAPE_AUTO, (type & CL_DEVICE_TYPE_CPU) != 0) };
	t0 = now_ms();
	if (aos_jit_compile(src, len, &jo, &res))
		goto out;
	r->jit_ms = now_ms() - t0;
	t0 = now_ms();
	rw = aos_clrun_build_jit(env, (int)jo.target, res->binary, res->binary_size, &log);
	r->jit_build_ms = now_ms() - t0;
	if (!rw)
		goto out;
	if (jo.no_direct) { /* the runs below take both shapes: the module with the twins */
		clReleaseProgram(rw);
		aos_jit_result_destroy(res);
		res = NULL;
		free(log);
		log = NULL;
		jo.no_direct = 0;
		if (aos_jit_compile(src, len, &jo, &res) ||
		    !(rw = aos_clrun_build_jit(env, (int)jo.target, res->binary, res->binary_size, &log)))
			goto out;
	}
	jo.no_cache = 0;
	jo.cache_dir = cache_dir;
	if (aos_jit_compile(src, len, &jo, &hit))
		goto out;
	aos_jit_result_destroy(hit);
	hit = NULL;
	t0 = now_ms();
	if (aos_jit_compile(src, len, &jo, &hit) || !hit->from_cache)
		goto out;
	r->hit_ms = now_ms() - t0;

	const struct aos_jit_kernel *k = aos_jit_result_kernel(res, o->kernel);
	if (!k || !k->rewritten)
		goto out;
	r->chunk = k->chunk;
	r->groups = aos_launch_groups(&o->launch);
	size_t full = aos_clrun_resident_groups(env, rw, o->kernel, &o->launch);
	if (full < 4u * env->compute_units)
		full = 4u * env->compute_units; /* the CPU model holds one group per unit: keep 4 */
	if (forced_phys)
		full = forced_phys;
	r->phys = r->groups < full ? r->groups : full;
	int static_first = 0;
	unsigned chunk = !spread_dequeues ? forced_chunk
			 : all_dequeued	  ? aos_vndrange_spread_chunk((aos_u32)r->groups, r->phys, k->chunk, spread_dequeues)
					  : aos_vndrange_loop_chunk((aos_u32)r->groups, r->phys, k->chunk, spread_dequeues,
								    &static_first);
	struct aos_sched_cfg cfg = { .phys_groups = r->phys, .chunk = chunk, .static_first = static_first };
	struct aos_sched_cfg direct = { .direct_wave = r->groups };
	r->has_direct = aos_jit_target_has_direct(jo.target);
	if (chunk)
		r->chunk = chunk;
	/* Batch size: enough launches for ~20 ms of native work per sample. Every shape runs
	 * once first: PoCL compiles a kernel at its first launch, which no sample may time. */
	double probe, kprobe, unused;
	struct aos_clrun_args *set = NULL;
	if (aos_clrun_args_create(env, o->args, o->nargs, o->seed, &set))
		goto out;
	int warm = aos_clrun_time(env, rw, o->kernel, &o->launch, set, &cfg, 3, &probe, &kprobe) ||
		   (r->has_direct &&
		    aos_clrun_time(env, rw, o->kernel, &o->launch, set, &direct, 3, &unused, &kprobe)) ||
		   aos_clrun_time(env, nat, o->kernel, &o->launch, set, NULL, 3, &probe, &kprobe);
	aos_clrun_args_destroy(set);
	set = NULL;
	if (warm)
		goto out;
	int iters = probe > 0 ? (int)(20.0 / probe) : 1000;
	iters = iters < 3 ? 3 : iters > 2000 ? 2000 : iters;
	r->iters = iters;
	for (int i = 0; i < reps; i++) {
		/* Shapes in turn: native, loop, direct; backwards every other sample, so none
		 * always runs first (on fresh caches) or last. All shapes of a sample run on the
		 * same buffers (fresh each sample): where a buffer lands (its alignment against
		 * the others, huge pages or not) moves a memory-bound kernel by 10-20 %, which
		 * per-shape buffers turned into noise between the shapes. */
		int rc = aos_clrun_args_create(env, o->args, o->nargs, o->seed, &set);
		for (int step = 0; step < 3 && rc == 0; step++) {
			int shape = i % 2 ? 2 - step : step;
			if (per_shape_buffers && step > 0) {
				aos_clrun_args_destroy(set);
				set = NULL;
				if ((rc = aos_clrun_args_create(env, o->args, o->nargs, o->seed, &set)))
					break;
			}
			if (shape == 0)
				rc = aos_clrun_time(env, nat, o->kernel, &o->launch, set, NULL, iters,
						    &tn[i], &kn[i]);
			else if (shape == 1)
				rc = aos_clrun_time(env, rw, o->kernel, &o->launch, set, &cfg, iters,
						    &tr[i], &kr[i]);
			else if (r->has_direct)
				rc = aos_clrun_time(env, rw, o->kernel, &o->launch, set, &direct, iters,
						    &td[i], &kd);
		}
		if (rc == 0 && r->has_direct)
			rc = aos_clrun_time_paired(env, nat, NULL, rw, &direct, o->kernel, &o->launch, set, iters,
						   &tp[i]);
		aos_clrun_args_destroy(set);
		set = NULL;
		if (rc)
			goto out;
	}
	r->speed = median_ratio(tn, tr, reps);
	r->kspeed = median_ratio(kn, kr, reps);
	if (r->has_direct) {
		r->dspeed = median_ratio(tn, td, reps);
		r->pspeed = aos_clrun_median(tp, reps);
	}
	r->native_ms = aos_clrun_median(tn, reps);
	r->rewritten_ms = aos_clrun_median(tr, reps);
	r->native_kms = aos_clrun_median(kn, reps);
	r->rewritten_kms = aos_clrun_median(kr, reps);
	if (r->has_direct)
		r->direct_ms = aos_clrun_median(td, reps);
	r->ok = 1;
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "skip %s: %s\n", r->name, log ? log : err);
	if (nat)
		clReleaseProgram(nat);
	if (rw)
		clReleaseProgram(rw);
	aos_jit_result_destroy(res);
	aos_jit_result_destroy(hit);
	free(tn);
	free(tr);
	free(kn);
	free(kr);
	free(td);
	free(tp);
	free(src);
	free(log);
	return rc;
}

/* Splits a DIFF line into argv (words separated by blanks; no quoting). */
static int split_words(char *line, char **argv, int max)
{
	int n = 0;
	for (char *save = NULL, *w = strtok_r(line, " \t\n", &save); w && n < max;
	     w = strtok_r(NULL, " \t\n", &save))
		argv[n++] = w;
	return n;
}

static unsigned loop_align_set; /* bytes, as set; 0: LLVM's own */

static void report(FILE *f, struct row *rows, int n, const char *device, int reps)
{
	double lg = 0, klg = 0, worst = 1e30, kworst = 1e30, jit_lg = 0, worst_jit = 0, max_hit = 0;
	double transform_lg = 0, build_lg = 0, native_build_lg = 0; /* where the JIT cost goes */
	double dlg = 0, dworst = 1e30, plg = 0, pworst = 1e30;
	int m = 0, md = 0;
	const char *worst_name = "", *kworst_name = "", *worst_jit_name = "", *dworst_name = "";
	const char *pworst_name = "";
	fprintf(f, "Device: %s. %d interleaved samples per kernel, each a batch of back-to-back "
		   "launches (~20 ms) of every shape; speeds are the median over the samples of the "
		   "ratio within a sample, times the median of each shape's samples. Innermost loops "
		   "aligned to %u bytes (0: LLVM's own).%s\n\n", device, reps, loop_align_set,
		forced_phys ? " Physical groups of the loop shape set by --phys." : "");
	fprintf(f, "| kernel | groups | phys | chunk | native wall ms | rewritten wall ms | speed (wall) "
		   "| native kernel ms | rewritten kernel ms | speed (kernel) | native build ms "
		   "| JIT+build ms | JIT cost | cache hit ms | direct wall ms | speed (direct) "
		   "| speed (direct, paired) |\n"
		   "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (int i = 0; i < n; i++) {
		struct row *r = &rows[i];
		if (!r->ok)
			continue;
		double jit_total = r->jit_ms + r->jit_build_ms;
		double jit_ratio = jit_total / r->native_build_ms;
		fprintf(f, "| %s | %zu | %zu | %u | %.4f | %.4f | %.3f | %.4f | %.4f | %.3f | %.1f | %.1f "
			   "| %.2fx | %.2f |",
			r->name, r->groups, r->phys, r->chunk, r->native_ms, r->rewritten_ms, r->speed,
			r->native_kms, r->rewritten_kms, r->kspeed, r->native_build_ms, jit_total,
			jit_ratio, r->hit_ms);
		if (r->has_direct) {
			fprintf(f, " %.4f | %.3f | %.3f |\n", r->direct_ms, r->dspeed, r->pspeed);
			dlg += log(r->dspeed);
			plg += log(r->pspeed);
			if (r->pspeed < pworst) {
				pworst = r->pspeed;
				pworst_name = r->name;
			}
			md++;
			if (r->dspeed < dworst) {
				dworst = r->dspeed;
				dworst_name = r->name;
			}
		} else {
			fprintf(f, " - | - | - |\n");
		}
		lg += log(r->speed);
		klg += log(r->kspeed);
		jit_lg += log(jit_ratio);
		transform_lg += log(fmax(r->jit_ms, 1e-3));
		build_lg += log(fmax(r->jit_build_ms, 1e-3));
		native_build_lg += log(fmax(r->native_build_ms, 1e-3));
		if (r->speed < worst) {
			worst = r->speed;
			worst_name = r->name;
		}
		if (r->kspeed < kworst) {
			kworst = r->kspeed;
			kworst_name = r->name;
		}
		if (jit_ratio > worst_jit) {
			worst_jit = jit_ratio;
			worst_jit_name = r->name;
		}
		if (r->hit_ms > max_hit)
			max_hit = r->hit_ms;
		m++;
	}
	if (!m)
		return;
	fprintf(f, "\n**Summary (%d kernels).** Speed, wall time incl. record reset: geomean "
		   "**%.3fx**, worst **%.3fx** (%s). Speed, kernel commands only: geomean **%.3fx**, "
		   "worst **%.3fx** (%s). JIT cost (transform+build vs native build): geomean "
		   "**%.2fx**, worst **%.2fx** (%s); geomean transform %.1f ms + device build of its "
		   "output %.1f ms, against %.1f ms native. Cache hit: at most **%.2f ms**.\n",
		m, exp(lg / m), worst, worst_name, exp(klg / m), kworst, kworst_name,
		exp(jit_lg / m), worst_jit, worst_jit_name, exp(transform_lg / m), exp(build_lg / m),
		exp(native_build_lg / m), max_hit);
	if (md)
		fprintf(f, "\n**Direct shape (%d kernels, one wave).** Speed, wall time: geomean **%.3fx**, "
			   "worst **%.3fx** (%s). Speed, launches alternating with native (kernel time): "
			   "geomean **%.3fx**, worst **%.3fx** (%s).\n",
			md, exp(dlg / md), dworst, dworst_name, exp(plg / md), pworst, pworst_name);
}

#define USAGE                                                                                           \
	"usage: accelos-jit-bench [--reps N] [--chunk C|spread[N]|dequeued[N]] [--phys N|all] [--buffers sample|shape]\n" \
	"                         [--loop-align BYTES] [--out FILE.md] KERNEL.cl|SPEC...\n"

int main(int argc, char **argv)
{
	int reps = 9;
	unsigned loop_align = AOS_JIT_HOST_LOOP_ALIGN_DEFAULT; /* what the daemon sets (cpu_loop_align) */
	const char *out_path = NULL;
	int first = 1;
	for (; first < argc && argv[first][0] == '-'; first++) {
		if (strcmp(argv[first], "--reps") == 0 && first + 1 < argc)
			reps = atoi(argv[++first]);
		else if (strcmp(argv[first], "--chunk") == 0 && first + 1 < argc)
			if (strncmp(argv[++first], "spread", 6) == 0 || strncmp(argv[first], "dequeued", 8) == 0) {
				all_dequeued = argv[first][0] == 'd';
				const char *n = argv[first] + (all_dequeued ? 8 : 6);
				spread_dequeues = *n ? (unsigned)atoi(n) : AOS_VNDRANGE_DEQUEUES_PER_GROUP;
			} else {
				forced_chunk = (unsigned)atoi(argv[first]);
				spread_dequeues = 0;
			}
		else if (strcmp(argv[first], "--buffers") == 0 && first + 1 < argc &&
			 (strcmp(argv[first + 1], "shape") == 0 || strcmp(argv[first + 1], "sample") == 0))
			per_shape_buffers = strcmp(argv[++first], "shape") == 0;
		else if (strcmp(argv[first], "--out") == 0 && first + 1 < argc)
			out_path = argv[++first];
		else if (strcmp(argv[first], "--phys") == 0 && first + 1 < argc) {
			const char *v = argv[++first];
			forced_phys = strcmp(v, "all") == 0 ? (size_t)-1 : strtoull(v, NULL, 10);
			if (!forced_phys) {
				fprintf(stderr, USAGE);
				return 2;
			}
		} else if (strcmp(argv[first], "--loop-align") == 0 && first + 1 < argc)
			loop_align = (unsigned)atoi(argv[++first]);
		else {
			fprintf(stderr, USAGE);
			return 2;
		}
	}
	if (reps < 1 || first == argc) {
		fprintf(stderr, USAGE);
		return 2;
	}
	int arc = aos_jit_set_host_loop_align(loop_align);
	if (arc < 0 && arc != -ENOENT) {
		fprintf(stderr, "--loop-align: 0 or a power of two from %u to %u\n", AOS_JIT_HOST_LOOP_ALIGN_MIN,
			AOS_JIT_HOST_LOOP_ALIGN_MAX);
		return 2;
	}
	loop_align_set = arc == 0 ? loop_align : 0;
	setenv("POCL_KERNEL_CACHE", "0", 0); /* overridable: inspecting PoCL output needs it on */
	char cache_dir[] = "/tmp/accelos-jit-bench-XXXXXX";
	if (!mkdtemp(cache_dir))
		return 2;
	struct aos_clenv env;
	if (aos_clenv_open(&env)) {
		fprintf(stderr, "no OpenCL device\n");
		return 2;
	}
	char device[256] = "";
	clGetDeviceInfo(env.device, CL_DEVICE_NAME, sizeof(device), device, NULL);

	int cap = 256, n = 0, unusable = 0;
	struct row *rows = calloc((size_t)cap, sizeof(*rows));
	for (int fi = first; fi < argc && rows; fi++) {
		size_t len;
		char *text = aos_read_text(argv[fi], &len);
		const char *source = argv[fi]; /* a .spec names its source instead */
		int launches = 0;
		for (char *save = NULL, *line = text ? strtok_r(text, "\n", &save) : NULL; line;
		     line = strtok_r(NULL, "\n", &save)) {
			if (strncmp(line, "source: ", 8) == 0)
				source = line + 8;
			if (strncmp(line, "// DIFF: ", 9) != 0 || n == cap)
				continue;
			char buf[2048], *words[128];
			snprintf(buf, sizeof(buf), "%s", line + 9);
			words[0] = "bench";
			words[1] = (char *)source;
			int nw = 2 + split_words(buf, words + 2, 126);
			struct aos_launch_spec spec;
			if (aos_launch_spec_parse(nw, words, &spec) == 0) {
				launches++;
				struct row *r = &rows[n++];
				const char *base = strrchr(source, '/');
				snprintf(r->name, sizeof(r->name), "%s:%s", base ? base + 1 : source,
					 spec.kernel);
				bench_one(&env, &spec, cache_dir, reps, r);
				fprintf(stderr, "%-48s %s speed %.3f direct %.3f paired %.3f\n",
					r->name, r->ok ? "ok" : "skipped", r->speed, r->dspeed,
					r->pspeed);
			}
			aos_launch_spec_free(&spec);
		}
		if (!launches) { /* a mistyped path must not pass for a benchmark with nothing in it */
			fprintf(stderr, "accelos-jit-bench: %s: %s\n", argv[fi],
				text ? "no \"// DIFF:\" launch line it can parse" : "cannot read the file");
			unusable++;
		}
		free(text);
	}
	report(stdout, rows, n, device, reps);
	if (out_path) {
		FILE *f = fopen(out_path, "w");
		if (f) {
			fprintf(f, "# accelOS JIT benchmarks\n\n");
			report(f, rows, n, device, reps);
			fclose(f);
		}
	}
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", cache_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", cache_dir);
	aos_clenv_close(&env);
	free(rows);
	return unusable ? 1 : 0;
}
