/* accelos-mix: run multi-tenant mixes of the Parboil-style kernels and
 * write one JSON-lines record per tenant per run for accelos-report. */
#include "aos_mixrun.h"
#include "aos_tenant.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(f,
		"usage: accelos-mix (--tenants SPEC,SPEC,... | --pairs | --random K --count C [--seed S])\n"
		"                   [--mode single|loop] [--seconds S] [--size small|medium]\n"
		"                   [--platform SUBSTR] [--shared-context] [--label NAME] [--repeat R]\n"
		"                   [--iso-reps N] [--iso-cache FILE] [--mix-base ID] [--out FILE] [--quiet]\n"
		"SPEC is BENCH (whole benchmark) or BENCH:KERNEL; see accelos-bench list.\n"
		"--quiet hides the progress bars; failed runs are reported either way.\n"
		"ACCELOS_MIX_CRASH_TENANT=i makes tenant i abort after the start gate (tests).\n");
}

int main(int argc, char **argv)
{
	struct aos_mixopts o = { .platform = "", .size = AOS_SIZE_SMALL, .repeat = 1, .iso_reps = 3,
				 .iso_cache = "accelos-iso-cache.jsonl", .out = stdout, .crash_tenant = -1,
				 .self_exe = "/proc/self/exe" };
	const char *tenants = NULL, *out = NULL, *mode = "single";
	int pairs = 0, random_k = 0, count = 1;
	unsigned long long seed = 1;
	char label[160], msg[1024], self[4096];
	struct aos_mix *mixes = NULL;
	int nmixes;

	if (argc > 1 && strcmp(argv[1], "--as-tenant") == 0)
		return aos_tenant_main(argc, argv);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int takes = 1;
		if (strcmp(a, "--pairs") == 0) { pairs = 1; takes = 0; }
		else if (strcmp(a, "--shared-context") == 0) { o.shared_ctx = 1; takes = 0; }
		else if (strcmp(a, "--quiet") == 0) { o.quiet = 1; takes = 0; }
		else if (strcmp(a, "--help") == 0) { usage(stdout); return 0; }
		else if (!v) { fprintf(stderr, "accelos-mix: %s needs a value\n", a); usage(stderr); return 2; }
		else if (strcmp(a, "--tenants") == 0) tenants = v;
		else if (strcmp(a, "--random") == 0) random_k = atoi(v);
		else if (strcmp(a, "--count") == 0) count = atoi(v);
		else if (strcmp(a, "--seed") == 0) seed = strtoull(v, NULL, 0);
		else if (strcmp(a, "--mode") == 0) mode = v;
		else if (strcmp(a, "--seconds") == 0) o.seconds = atof(v);
		else if (strcmp(a, "--platform") == 0) o.platform = v;
		else if (strcmp(a, "--label") == 0) o.label = v;
		else if (strcmp(a, "--repeat") == 0) o.repeat = atoi(v);
		else if (strcmp(a, "--mix-base") == 0) o.mix_base = atol(v);
		else if (strcmp(a, "--iso-reps") == 0) o.iso_reps = atoi(v);
		else if (strcmp(a, "--iso-cache") == 0) o.iso_cache = v;
		else if (strcmp(a, "--out") == 0) out = v;
		else if (strcmp(a, "--size") == 0) {
			if (aos_size_parse(v, &o.size)) {
				fprintf(stderr, "accelos-mix: unknown size \"%s\"; valid: small, medium\n", v);
				return 2;
			}
		} else { fprintf(stderr, "accelos-mix: unknown option %s\n", a); usage(stderr); return 2; }
		i += takes;
	}
	if (strcmp(mode, "single") == 0) {
		o.loop = 0;
	} else if (strcmp(mode, "loop") == 0) {
		o.loop = 1;
		if (o.seconds <= 0) {
			fprintf(stderr, "accelos-mix: --mode loop needs --seconds S > 0\n");
			return 2;
		}
	} else {
		fprintf(stderr, "accelos-mix: unknown mode \"%s\"; valid: single, loop\n", mode);
		return 2;
	}
	if (o.repeat < 1 || o.iso_reps < 1) {
		fprintf(stderr, "accelos-mix: --repeat and --iso-reps must be >= 1\n");
		return 2;
	}
	if (!!tenants + pairs + (random_k > 0) != 1) {
		fprintf(stderr, "accelos-mix: give exactly one of --tenants, --pairs, --random\n");
		usage(stderr);
		return 2;
	}
	if (tenants) {
		mixes = calloc(1, sizeof(*mixes));
		if (!mixes || aos_mix_from_list(tenants, mixes, msg, sizeof(msg))) {
			fprintf(stderr, "accelos-mix: %s\n", mixes ? msg : "out of memory");
			free(mixes);
			return 2;
		}
		nmixes = 1;
	} else if (pairs) {
		nmixes = aos_mix_all_pairs(&mixes);
	} else {
		nmixes = aos_mix_random(random_k, count, seed, &mixes);
	}
	if (nmixes <= 0) {
		fprintf(stderr, "accelos-mix: cannot build mixes (check --random/--count)\n");
		return 2;
	}
	const char *env_crash = getenv("ACCELOS_MIX_CRASH_TENANT");
	if (env_crash)
		o.crash_tenant = atoi(env_crash);
	/* Resolve our own binary now: tenants re-exec it. */
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = 0;
		o.self_exe = self;
	}
	if (!o.label) {
		snprintf(label, sizeof(label), "%s-%s-%s", o.platform[0] ? o.platform : "default",
			 o.shared_ctx ? "sharedctx" : "procs", aos_size_name(o.size));
		o.label = label;
	}
	if (out && !(o.out = fopen(out, "w"))) {
		fprintf(stderr, "accelos-mix: %s: %s\n", out, strerror(errno));
		free(mixes);
		return 2;
	}
	int failed = aos_mixrun_sweep(&o, mixes, nmixes);
	if (o.out != stdout)
		fclose(o.out);
	free(mixes);
	if (failed < 0) {
		fprintf(stderr, "accelos-mix: %s\n", strerror(-failed));
		return 3;
	}
	if (failed)
		fprintf(stderr, "accelos-mix: %d run(s) had a failed tenant (marked \"failed\" in the records)\n", failed);
	return failed ? 1 : 0;
}
