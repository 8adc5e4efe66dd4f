/* sgemm: dense single-precision matrix multiply (Parboil's NT variant).
 * small follows Parboil's small input shape (128x96 times 96x160);
 * medium follows its medium shape rounded to the 16-wide tile. */
#include "aos_bench.h"
#include "aos_rng.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

extern const char aos_cl_sgemm[];
static const char *const kernels[] = { "mysgemmNT" };

struct shape { int m, n, k; };
static const struct shape shapes[AOS_SIZE_COUNT] = { { 128, 160, 96 }, { 1024, 1056, 992 } };

struct sgemm {
	struct shape s;
	float *a, *b, *c0;
	cl_mem da, db, dc;
};

static void footprint(enum aos_size size, uint64_t *total, uint64_t *largest)
{
	const struct shape *s = &shapes[size];
	uint64_t a = 4ull * s->m * s->k, b = 4ull * s->n * s->k, c = 4ull * s->m * s->n;
	*total = a + b + c;
	*largest = a > b ? (a > c ? a : c) : (b > c ? b : c);
}

static int setup(struct aos_bench_run *r)
{
	struct sgemm *g = calloc(1, sizeof(*g));
	struct aos_rng rng;
	if (!g)
		return -ENOMEM;
	r->state = g;
	g->s = shapes[r->size];
	size_t na = (size_t)g->s.m * g->s.k, nb = (size_t)g->s.n * g->s.k, nc = (size_t)g->s.m * g->s.n;
	g->a = malloc(na * 4);
	g->b = malloc(nb * 4);
	g->c0 = malloc(nc * 4);
	if (!g->a || !g->b || !g->c0)
		return -ENOMEM;
	aos_rng_seed(&rng, r->seed);
	for (size_t i = 0; i < na; i++) g->a[i] = aos_rng_range(&rng, -1, 1);
	for (size_t i = 0; i < nb; i++) g->b[i] = aos_rng_range(&rng, -1, 1);
	for (size_t i = 0; i < nc; i++) g->c0[i] = aos_rng_range(&rng, -1, 1);
	g->da = aos_bench_buffer(r, na * 4, g->a);
	g->db = aos_bench_buffer(r, nb * 4, g->b);
	g->dc = aos_bench_buffer(r, nc * 4, g->c0);
	return 0;
}

static const float alpha = 1.0f, beta = 0.0f;

static int execute(struct aos_bench_run *r)
{
	struct sgemm *g = r->state;
	size_t global[2] = { (size_t)g->s.m, (size_t)g->s.n }, local[2] = { 16, 16 };
	aos_bench_arg_mem(r, 0, 0, g->da);
	aos_bench_arg(r, 0, 1, sizeof(int), &g->s.m);
	aos_bench_arg_mem(r, 0, 2, g->db);
	aos_bench_arg(r, 0, 3, sizeof(int), &g->s.n);
	aos_bench_arg_mem(r, 0, 4, g->dc);
	aos_bench_arg(r, 0, 5, sizeof(int), &g->s.m);
	aos_bench_arg(r, 0, 6, sizeof(int), &g->s.k);
	aos_bench_arg(r, 0, 7, sizeof(float), &alpha);
	aos_bench_arg(r, 0, 8, sizeof(float), &beta);
	aos_bench_launch(r, 0, 2, global, local);
	return 0;
}

static int verify(struct aos_bench_run *r)
{
	struct sgemm *g = r->state;
	size_t nc = (size_t)g->s.m * g->s.n;
	float *got = malloc(nc * 4), *want = malloc(nc * 4);
	int rc = 0;
	if (!got || !want) {
		rc = -ENOMEM;
		goto out;
	}
	aos_bench_read(r, g->dc, nc * 4, got);
	for (int col = 0; col < g->s.n; col++)
		for (int row = 0; row < g->s.m; row++) {
			double acc = 0;
			for (int i = 0; i < g->s.k; i++)
				acc += (double)g->a[row + (size_t)i * g->s.m] * g->b[col + (size_t)i * g->s.n];
			want[row + (size_t)col * g->s.m] = (float)(alpha * acc + beta * g->c0[row + (size_t)col * g->s.m]);
		}
	long bad = aos_bench_compare_f32(got, want, nc, 1e-4f, 1e-3f);
	if (bad >= 0) {
		snprintf(r->msg, sizeof(r->msg), "C[%ld] = %g, reference %g", bad, got[bad], want[bad]);
		rc = -EDOM;
	}
out:
	free(got);
	free(want);
	return rc;
}

static void teardown(struct aos_bench_run *r)
{
	struct sgemm *g = r->state;
	if (!g)
		return;
	free(g->a);
	free(g->b);
	free(g->c0);
	free(g);
}

const struct aos_bench_desc aos_bench_sgemm = {
	.name = "sgemm", .summary = "dense matrix multiply C = A*B^T, local-memory tiles",
	.kernels = kernels, .nkernels = 1, .source = aos_cl_sgemm,
	.footprint = footprint, .setup = setup, .execute = execute, .verify = verify, .teardown = teardown,
};
