/* stencil: 7-point 3D Jacobi, many iterations. medium is Parboil's default
 * dataset shape (512x512x64, 100 iterations); small keeps the shape ratio
 * but fits the 2 s budget. */
#include "aos_bench.h"
#include "aos_rng.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char aos_cl_stencil[];
static const char *const kernels[] = { "naive_kernel" };

struct shape { int nx, ny, nz, iters; };
static const struct shape shapes[AOS_SIZE_COUNT] = { { 64, 64, 32, 20 }, { 512, 512, 64, 100 } };
static const float c0 = 1.0f / 6.0f, c1 = 1.0f / 6.0f / 6.0f;

struct stencil {
	struct shape s;
	size_t n;
	float *init;
	cl_mem pristine, buf[2];
	int result; /* which buf holds the answer after execute */
};

static void footprint(enum aos_size size, uint64_t *total, uint64_t *largest)
{
	const struct shape *s = &shapes[size];
	*largest = 4ull * s->nx * s->ny * s->nz;
	*total = 3 * *largest;
}

static int setup(struct aos_bench_run *r)
{
	struct stencil *st = calloc(1, sizeof(*st));
	struct aos_rng rng;
	if (!st)
		return -ENOMEM;
	r->state = st;
	st->s = shapes[r->size];
	st->n = (size_t)st->s.nx * st->s.ny * st->s.nz;
	st->init = malloc(st->n * 4);
	if (!st->init)
		return -ENOMEM;
	aos_rng_seed(&rng, r->seed);
	for (size_t i = 0; i < st->n; i++)
		st->init[i] = aos_rng_unit(&rng);
	st->pristine = aos_bench_buffer(r, st->n * 4, st->init);
	st->buf[0] = aos_bench_buffer(r, st->n * 4, NULL);
	st->buf[1] = aos_bench_buffer(r, st->n * 4, NULL);
	return 0;
}

static int execute(struct aos_bench_run *r)
{
	struct stencil *st = r->state;
	size_t global[3] = { (size_t)st->s.nx, (size_t)st->s.ny, (size_t)st->s.nz };
	size_t local[3] = { 16, 4, 1 };
	int cur = 0;
	/* Restart from the pristine grid so repeated executions do equal work. */
	aos_bench_copy(r, st->pristine, st->buf[0], st->n * 4);
	aos_bench_arg(r, 0, 0, sizeof(float), &c0);
	aos_bench_arg(r, 0, 1, sizeof(float), &c1);
	aos_bench_arg(r, 0, 4, sizeof(int), &st->s.nx);
	aos_bench_arg(r, 0, 5, sizeof(int), &st->s.ny);
	aos_bench_arg(r, 0, 6, sizeof(int), &st->s.nz);
	for (int it = 0; it < st->s.iters; it++) {
		aos_bench_arg_mem(r, 0, 2, st->buf[cur]);
		aos_bench_arg_mem(r, 0, 3, st->buf[1 - cur]);
		aos_bench_launch(r, 0, 3, global, local);
		cur = 1 - cur;
	}
	st->result = cur;
	return 0;
}

static int verify(struct aos_bench_run *r)
{
	struct stencil *st = r->state;
	int nx = st->s.nx, ny = st->s.ny, nz = st->s.nz, rc = 0;
	float *a = malloc(st->n * 4), *b = malloc(st->n * 4), *got = malloc(st->n * 4);
	if (!a || !b || !got) {
		rc = -ENOMEM;
		goto out;
	}
	aos_bench_read(r, st->buf[st->result], st->n * 4, got);
	memcpy(a, st->init, st->n * 4);
	memcpy(b, st->init, st->n * 4);
	for (int it = 0; it < st->s.iters; it++) {
		for (int k = 1; k < nz - 1; k++)
			for (int j = 1; j < ny - 1; j++)
				for (int i = 1; i < nx - 1; i++) {
					size_t x = i + (size_t)nx * (j + (size_t)ny * k), sy = nx, sz = (size_t)nx * ny;
					b[x] = c1 * (a[x - 1] + a[x + 1] + a[x - sy] + a[x + sy] + a[x - sz] + a[x + sz]) - c0 * a[x];
				}
		float *t = a; a = b; b = t;
	}
	long bad = aos_bench_compare_f32(got, a, st->n, 1e-4f, 1e-5f);
	if (bad >= 0) {
		snprintf(r->msg, sizeof(r->msg), "cell %ld = %g, reference %g", bad, got[bad], a[bad]);
		rc = -EDOM;
	}
out:
	free(a);
	free(b);
	free(got);
	return rc;
}

static void teardown(struct aos_bench_run *r)
{
	struct stencil *st = r->state;
	if (st)
		free(st->init);
	free(st);
}

const struct aos_bench_desc aos_bench_stencil = {
	.name = "stencil", .summary = "7-point 3D Jacobi stencil, many iterations",
	.kernels = kernels, .nkernels = 1, .source = aos_cl_stencil,
	.footprint = footprint, .setup = setup, .execute = execute, .verify = verify, .teardown = teardown,
};
