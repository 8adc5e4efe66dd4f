/* tpacf: two-point angular correlation function histograms (DD, DR, RR)
 * of one clustered "observed" point set against several uniform random
 * sets, 20 log-spaced bins from 1 to 10000 arcminutes as in Parboil.
 * small: 1024 points, 4 random sets; medium: 4096 points, 100 random sets. */
#include "aos_bench.h"
#include "aos_rng.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char aos_cl_tpacf[];
static const char *const kernels[] = { "gen_hists" };

#define NB 20
#define SLOTS (NB + 2)
struct shape { int npts, nrand; };
static const struct shape shapes[AOS_SIZE_COUNT] = { { 1024, 4 }, { 4096, 100 } };

struct tpacf {
	struct shape s;
	float *pts;   /* (1 + nrand) sets of npts float4 */
	float binb[NB + 1];
	uint32_t got[3][SLOTS];
	cl_mem dpts, dbinb, dhist;
};

static void footprint(enum aos_size size, uint64_t *total, uint64_t *largest)
{
	const struct shape *s = &shapes[size];
	*largest = 16ull * s->npts * (1 + s->nrand);
	*total = *largest + 4096;
}

static void unit_point(struct aos_rng *rng, float *p)
{
	float z = aos_rng_range(rng, -1, 1), phi = aos_rng_range(rng, 0, 6.2831853f);
	float rxy = sqrtf(1 - z * z);
	p[0] = rxy * cosf(phi);
	p[1] = rxy * sinf(phi);
	p[2] = z;
	p[3] = 0;
}

static int setup(struct aos_bench_run *r)
{
	struct tpacf *t = calloc(1, sizeof(*t));
	struct aos_rng rng;
	if (!t)
		return -ENOMEM;
	r->state = t;
	t->s = shapes[r->size];
	size_t total = (size_t)t->s.npts * (1 + t->s.nrand);
	t->pts = malloc(total * 16);
	if (!t->pts)
		return -ENOMEM;
	aos_rng_seed(&rng, r->seed);
	/* Observed set: points scattered around 16 cluster centres. */
	float centres[16][4];
	for (int c = 0; c < 16; c++)
		unit_point(&rng, centres[c]);
	for (int i = 0; i < t->s.npts; i++) {
		float *p = &t->pts[4 * i], *c = centres[aos_rng_below(&rng, 16)], n = 0;
		for (int d = 0; d < 3; d++) {
			p[d] = c[d] + aos_rng_range(&rng, -0.05f, 0.05f);
			n += p[d] * p[d];
		}
		n = sqrtf(n);
		for (int d = 0; d < 3; d++)
			p[d] /= n;
		p[3] = 0;
	}
	for (size_t i = t->s.npts; i < total; i++)
		unit_point(&rng, &t->pts[4 * i]);
	for (int k = 0; k <= NB; k++) {
		double arcmin = pow(10.0, 4.0 * k / NB);
		t->binb[k] = (float)cos(arcmin / 60.0 * M_PI / 180.0);
	}
	t->dpts = aos_bench_buffer(r, total * 16, t->pts);
	t->dbinb = aos_bench_buffer(r, sizeof(t->binb), t->binb);
	t->dhist = aos_bench_buffer(r, 3 * SLOTS * 4, NULL);
	return 0;
}

static void launch_pair(struct aos_bench_run *r, int a, int b, int which)
{
	struct tpacf *t = r->state;
	size_t local = 256, global = aos_round_up(t->s.npts, local);
	int offa = a * t->s.npts, offb = b * t->s.npts, same = a == b, nb = NB, base = which * SLOTS;
	aos_bench_arg_mem(r, 0, 0, t->dpts);
	aos_bench_arg(r, 0, 1, sizeof(int), &offa);
	aos_bench_arg(r, 0, 2, sizeof(int), &offb);
	aos_bench_arg(r, 0, 3, sizeof(int), &t->s.npts);
	aos_bench_arg(r, 0, 4, sizeof(int), &same);
	aos_bench_arg_mem(r, 0, 5, t->dbinb);
	aos_bench_arg(r, 0, 6, sizeof(int), &nb);
	aos_bench_arg_mem(r, 0, 7, t->dhist);
	aos_bench_arg(r, 0, 8, sizeof(int), &base);
	aos_bench_launch(r, 0, 1, &global, &local);
}

static int execute(struct aos_bench_run *r)
{
	struct tpacf *t = r->state;
	aos_bench_zero(r, t->dhist, 3 * SLOTS * 4);
	launch_pair(r, 0, 0, 0);
	for (int k = 1; k <= t->s.nrand; k++) {
		launch_pair(r, 0, k, 1);
		launch_pair(r, k, k, 2);
	}
	return 0;
}

static void cpu_hist(const struct tpacf *t, int a, int b, uint64_t *hist)
{
	const float *A = &t->pts[(size_t)4 * a * t->s.npts], *B = &t->pts[(size_t)4 * b * t->s.npts];
	for (int i = 0; i < t->s.npts; i++)
		for (int j = a == b ? i + 1 : 0; j < t->s.npts; j++) {
			float d = A[4 * i] * B[4 * j] + A[4 * i + 1] * B[4 * j + 1] + A[4 * i + 2] * B[4 * j + 2];
			int bin = 0;
			while (bin <= NB && t->binb[bin] > d)
				bin++;
			hist[bin]++;
		}
}

static int verify(struct aos_bench_run *r)
{
	struct tpacf *t = r->state;
	uint64_t want[3][SLOTS] = { { 0 } };
	static const char *const names[3] = { "DD", "DR", "RR" };
	aos_bench_read(r, t->dhist, sizeof(t->got), t->got);
	cpu_hist(t, 0, 0, want[0]);
	for (int k = 1; k <= t->s.nrand; k++) {
		cpu_hist(t, 0, k, want[1]);
		cpu_hist(t, k, k, want[2]);
	}
	for (int h = 0; h < 3; h++) {
		uint64_t tg = 0, tw = 0;
		for (int b = 0; b < SLOTS; b++) {
			tg += t->got[h][b];
			tw += want[h][b];
			/* A pair exactly on a bin edge may round differently on the
			 * device; allow a handful of moved pairs, never lost ones. */
			double diff = fabs((double)t->got[h][b] - (double)want[h][b]);
			if (diff > 2 + 1e-4 * (double)want[h][b]) {
				snprintf(r->msg, sizeof(r->msg), "%s bin %d = %u, reference %llu", names[h], b,
					 t->got[h][b], (unsigned long long)want[h][b]);
				return -EDOM;
			}
		}
		if (tg != tw) {
			snprintf(r->msg, sizeof(r->msg), "%s holds %llu pairs, reference %llu", names[h],
				 (unsigned long long)tg, (unsigned long long)tw);
			return -EDOM;
		}
	}
	return 0;
}

static void teardown(struct aos_bench_run *r)
{
	struct tpacf *t = r->state;
	if (t)
		free(t->pts);
	free(t);
}

const struct aos_bench_desc aos_bench_tpacf = {
	.name = "tpacf", .summary = "two-point angular correlation histograms, local atomics",
	.kernels = kernels, .nkernels = 1, .source = aos_cl_tpacf,
	.footprint = footprint, .setup = setup, .execute = execute, .verify = verify, .teardown = teardown,
};
