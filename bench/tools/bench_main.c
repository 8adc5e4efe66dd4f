/* accelos-bench: list the Parboil-style suite, or run one benchmark once
 * (or one of its kernels) on a platform chosen by name substring, verify it
 * against the CPU reference and print host and per-kernel device times. */
#include "aos_bench.h"
#include "aos_clenv.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EXIT_MISMATCH = 1, EXIT_USAGE = 2, EXIT_PLATFORM = 3, EXIT_TOO_BIG = 4 };

static void usage(FILE *f)
{
	fprintf(f, "usage: accelos-bench list\n"
		   "       accelos-bench run BENCH[:KERNEL] [--size small|medium] [--platform SUBSTR]\n"
		   "                         [--seed N] [--reps N]\n");
}

static void list_benches(FILE *f)
{
	for (int i = 0; i < aos_bench_count(); i++) {
		const struct aos_bench_desc *d = aos_bench_at(i);
		fprintf(f, "%-13s %s\n", d->name, d->summary);
		for (int k = 0; k < d->nkernels; k++)
			fprintf(f, "    %s:%s\n", d->name, d->kernels[k]);
	}
}

/* Resolves "bench" or "bench:kernel"; on failure prints the valid names. */
static int resolve(const char *spec, const struct aos_bench_desc **d, int *kidx)
{
	char name[64];
	const char *colon = strchr(spec, ':');
	size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
	if (n >= sizeof(name))
		n = sizeof(name) - 1;
	memcpy(name, spec, n);
	name[n] = 0;
	*d = aos_bench_find(name);
	*kidx = AOS_BENCH_ALL_KERNELS;
	if (!*d) {
		fprintf(stderr, "accelos-bench: unknown benchmark \"%s\"; valid benchmarks:\n", name);
		for (int i = 0; i < aos_bench_count(); i++)
			fprintf(stderr, "  %s\n", aos_bench_at(i)->name);
		return -ENOENT;
	}
	if (colon) {
		*kidx = aos_bench_kernel_index(*d, colon + 1);
		if (*kidx < 0) {
			fprintf(stderr, "accelos-bench: benchmark %s has no kernel \"%s\"; valid kernels:\n",
				name, colon + 1);
			for (int k = 0; k < (*d)->nkernels; k++)
				fprintf(stderr, "  %s:%s\n", name, (*d)->kernels[k]);
			return -ENOENT;
		}
	}
	return 0;
}

static int run_bench(const char *spec, enum aos_size size, const char *platform, unsigned long seed, int reps)
{
	const struct aos_bench_desc *d;
	struct aos_clenv env;
	struct aos_bench_run r;
	char err[1024];
	int kidx, rc, status = 0;
	cl_command_queue q;

	if (resolve(spec, &d, &kidx))
		return EXIT_USAGE;
	rc = aos_clenv_open(&env, platform, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "accelos-bench: %s\n", err);
		return EXIT_PLATFORM;
	}
	if (aos_bench_run_fits(d, size, env.global_mem, env.max_alloc, err, sizeof(err))) {
		fprintf(stderr, "accelos-bench: %s\n", err);
		aos_clenv_close(&env);
		return EXIT_TOO_BIG;
	}
	q = aos_clenv_queue_new(&env);
	if (!q) {
		fprintf(stderr, "accelos-bench: cannot create a command queue\n");
		aos_clenv_close(&env);
		return EXIT_PLATFORM;
	}
	printf("bench %s size %s platform \"%s\" device \"%s\"\n", spec, aos_size_name(size),
	       env.platform_name, env.device_name);
	rc = aos_bench_run_init(&r, d, size, env.context, env.device, q);
	if (rc == 0) {
		r.seed = seed;
		rc = aos_bench_run_setup(&r);
	}
	/* The full pipeline runs first so a single-kernel replay sees real data. */
	if (rc == 0)
		rc = aos_bench_run_execute(&r);
	if (rc == 0)
		rc = aos_bench_run_verify(&r);
	if (rc == -EDOM) {
		printf("result: MISMATCH: %s\n", r.msg);
		status = EXIT_MISMATCH;
	} else if (rc) {
		printf("result: ERROR: %s\n", r.msg[0] ? r.msg : strerror(-rc));
		status = EXIT_PLATFORM;
	} else {
		printf("result: PASS (matches CPU reference)\n");
	}
	for (int rep = 0; status == 0 && rep < reps; rep++) {
		/* The verified run above also warmed up lazy kernel compilation;
		 * the timed runs come after it. */
		r.only = kidx;
		if (aos_bench_run_execute(&r)) {
			printf("result: ERROR: %s\n", r.msg);
			status = EXIT_PLATFORM;
			break;
		}
		uint64_t dev = 0;
		for (int k = 0; k < d->nkernels; k++)
			dev += r.ktime[k].total_ns;
		printf("time: %.3f ms host (enqueue to completion), %.3f ms in kernels\n",
		       (r.host_end_ns - r.host_start_ns) / 1e6, dev / 1e6);
		for (int k = 0; k < d->nkernels; k++)
			if (r.ktime[k].launches)
				printf("  kernel %-30s %5u launches %10.3f ms\n", d->kernels[k],
				       r.ktime[k].launches, r.ktime[k].total_ns / 1e6);
	}
	aos_bench_run_fini(&r);
	clReleaseCommandQueue(q);
	aos_clenv_close(&env);
	return status;
}

int main(int argc, char **argv)
{
	enum aos_size size = AOS_SIZE_SMALL;
	const char *platform = "";
	unsigned long seed = 1;
	int reps = 1;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "list") == 0) {
		list_benches(stdout);
		return 0;
	}
	if (strcmp(argv[1], "run") != 0 || argc < 3) {
		usage(stderr);
		return EXIT_USAGE;
	}
	for (int i = 3; i < argc; i++) {
		const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		if (!val) {
			fprintf(stderr, "accelos-bench: %s needs a value\n", opt);
			return EXIT_USAGE;
		}
		i++;
		if (strcmp(opt, "--size") == 0) {
			if (aos_size_parse(val, &size)) {
				fprintf(stderr, "accelos-bench: unknown size \"%s\"; valid: small, medium\n", val);
				return EXIT_USAGE;
			}
		} else if (strcmp(opt, "--platform") == 0) {
			platform = val;
		} else if (strcmp(opt, "--seed") == 0) {
			seed = strtoul(val, NULL, 0);
		} else if (strcmp(opt, "--reps") == 0) {
			reps = atoi(val);
			if (reps < 1)
				reps = 1;
		} else {
			fprintf(stderr, "accelos-bench: unknown option %s\n", opt);
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	return run_bench(argv[2], size, platform, seed, reps);
}
