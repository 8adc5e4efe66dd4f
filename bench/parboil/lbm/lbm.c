/* lbm: D3Q19 lattice-Boltzmann. medium is Parboil's shape (120x120x150
 * lattice, 100 time steps); small is 32^3 for 10 steps. The generator
 * places random spherical obstacles and a perturbed resting fluid. */
#include "aos_bench.h"
#include "aos_rng.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char aos_cl_lbm[];
static const char *const kernels[] = { "performStreamCollide_kernel" };

struct shape { int nx, ny, nz, steps; };
static const struct shape shapes[AOS_SIZE_COUNT] = { { 32, 32, 32, 10 }, { 120, 120, 150, 100 } };
static const float omega = 1.95f;
static const int EX[19] = { 0, 1, -1, 0, 0, 0, 0, 1, -1, 1, -1, 1, -1, 1, -1, 0, 0, 0, 0 };
static const int EY[19] = { 0, 0, 0, 1, -1, 0, 0, 1, 1, -1, -1, 0, 0, 0, 0, 1, -1, 1, -1 };
static const int EZ[19] = { 0, 0, 0, 0, 0, 1, -1, 0, 0, 0, 0, 1, 1, -1, -1, 1, 1, -1, -1 };
static const int OPP[19] = { 0, 2, 1, 4, 3, 6, 5, 10, 9, 8, 7, 14, 13, 12, 11, 18, 17, 16, 15 };
static const float W[19] = { 1.0f / 3, 1.0f / 18, 1.0f / 18, 1.0f / 18, 1.0f / 18, 1.0f / 18, 1.0f / 18,
			     1.0f / 36, 1.0f / 36, 1.0f / 36, 1.0f / 36, 1.0f / 36, 1.0f / 36,
			     1.0f / 36, 1.0f / 36, 1.0f / 36, 1.0f / 36, 1.0f / 36, 1.0f / 36 };

struct lbm {
	struct shape s;
	int n;
	float *init;
	int *obstacle;
	cl_mem pristine, buf[2], dobst;
	int result;
};

static void footprint(enum aos_size size, uint64_t *total, uint64_t *largest)
{
	const struct shape *s = &shapes[size];
	uint64_t cells = (uint64_t)s->nx * s->ny * s->nz;
	*largest = 19 * 4 * cells;
	*total = 3 * *largest + 4 * cells;
}

static int setup(struct aos_bench_run *r)
{
	struct lbm *l = calloc(1, sizeof(*l));
	struct aos_rng rng;
	if (!l)
		return -ENOMEM;
	r->state = l;
	l->s = shapes[r->size];
	int nx = l->s.nx, ny = l->s.ny, nz = l->s.nz;
	l->n = nx * ny * nz;
	l->init = malloc((size_t)19 * l->n * sizeof(float));
	l->obstacle = calloc(l->n, sizeof(int));
	if (!l->init || !l->obstacle)
		return -ENOMEM;
	aos_rng_seed(&rng, r->seed);
	int spheres = 4 + nx * ny * nz / 20000;
	for (int s = 0; s < spheres; s++) {
		int cx = aos_rng_below(&rng, nx), cy = aos_rng_below(&rng, ny), cz = aos_rng_below(&rng, nz);
		int rad = 2 + aos_rng_below(&rng, nx / 8 + 1), r2 = rad * rad;
		for (int z = cz - rad; z <= cz + rad; z++)
			for (int y = cy - rad; y <= cy + rad; y++)
				for (int x = cx - rad; x <= cx + rad; x++)
					if ((x - cx) * (x - cx) + (y - cy) * (y - cy) + (z - cz) * (z - cz) <= r2)
						l->obstacle[(x + nx) % nx + nx * ((y + ny) % ny + ny * ((z + nz) % nz))] = 1;
	}
	for (int q = 0; q < 19; q++)
		for (int c = 0; c < l->n; c++)
			l->init[(size_t)q * l->n + c] = W[q] * (1.0f + 0.05f * aos_rng_range(&rng, -1, 1));
	size_t bytes = (size_t)19 * l->n * sizeof(float);
	l->pristine = aos_bench_buffer(r, bytes, l->init);
	l->buf[0] = aos_bench_buffer(r, bytes, NULL);
	l->buf[1] = aos_bench_buffer(r, bytes, NULL);
	l->dobst = aos_bench_buffer(r, l->n * sizeof(int), l->obstacle);
	return 0;
}

static int execute(struct aos_bench_run *r)
{
	struct lbm *l = r->state;
	size_t global[3] = { (size_t)l->s.nx, (size_t)l->s.ny, (size_t)l->s.nz };
	size_t local[3] = { (size_t)l->s.nx, 1, 1 };
	int cur = 0;
	aos_bench_copy(r, l->pristine, l->buf[0], (size_t)19 * l->n * sizeof(float));
	aos_bench_arg_mem(r, 0, 2, l->dobst);
	aos_bench_arg(r, 0, 3, sizeof(int), &l->s.nx);
	aos_bench_arg(r, 0, 4, sizeof(int), &l->s.ny);
	aos_bench_arg(r, 0, 5, sizeof(int), &l->s.nz);
	aos_bench_arg(r, 0, 6, sizeof(float), &omega);
	for (int t = 0; t < l->s.steps; t++) {
		aos_bench_arg_mem(r, 0, 0, l->buf[cur]);
		aos_bench_arg_mem(r, 0, 1, l->buf[1 - cur]);
		aos_bench_launch(r, 0, 3, global, local);
		cur = 1 - cur;
	}
	l->result = cur;
	return 0;
}

static void step_cpu(const struct lbm *l, const float *src, float *dst)
{
	int nx = l->s.nx, ny = l->s.ny, nz = l->s.nz, n = l->n;
	for (int z = 0; z < nz; z++)
		for (int y = 0; y < ny; y++)
			for (int x = 0; x < nx; x++) {
				int cell = x + nx * (y + ny * z);
				float f[19], rho = 0, ux = 0, uy = 0, uz = 0;
				if (l->obstacle[cell]) {
					for (int q = 0; q < 19; q++)
						dst[(size_t)q * n + cell] = src[(size_t)q * n + cell];
					continue;
				}
				for (int q = 0; q < 19; q++) {
					int sx = (x - EX[q] + nx) % nx, sy = (y - EY[q] + ny) % ny, sz = (z - EZ[q] + nz) % nz;
					int from = sx + nx * (sy + ny * sz);
					f[q] = l->obstacle[from] ? src[(size_t)OPP[q] * n + cell] : src[(size_t)q * n + from];
					rho += f[q];
					ux += EX[q] * f[q];
					uy += EY[q] * f[q];
					uz += EZ[q] * f[q];
				}
				ux /= rho; uy /= rho; uz /= rho;
				float usq = 1.5f * (ux * ux + uy * uy + uz * uz);
				for (int q = 0; q < 19; q++) {
					float eu = EX[q] * ux + EY[q] * uy + EZ[q] * uz;
					float feq = W[q] * rho * (1.0f + 3.0f * eu + 4.5f * eu * eu - usq);
					dst[(size_t)q * n + cell] = f[q] - omega * (f[q] - feq);
				}
			}
}

static int verify(struct aos_bench_run *r)
{
	struct lbm *l = r->state;
	size_t count = (size_t)19 * l->n;
	float *a = malloc(count * 4), *b = malloc(count * 4), *got = malloc(count * 4);
	int rc = 0;
	if (!a || !b || !got) {
		rc = -ENOMEM;
		goto out;
	}
	aos_bench_read(r, l->buf[l->result], count * 4, got);
	memcpy(a, l->init, count * 4);
	for (int t = 0; t < l->s.steps; t++) {
		step_cpu(l, a, b);
		float *tmp = a; a = b; b = tmp;
	}
	long bad = aos_bench_compare_f32(got, a, count, 1e-3f, 1e-5f);
	if (bad >= 0) {
		snprintf(r->msg, sizeof(r->msg), "f[%ld] = %g, reference %g", bad, got[bad], a[bad]);
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
	struct lbm *l = r->state;
	if (!l)
		return;
	free(l->init);
	free(l->obstacle);
	free(l);
}

const struct aos_bench_desc aos_bench_lbm = {
	.name = "lbm", .summary = "D3Q19 lattice-Boltzmann stream-collide, many time steps",
	.kernels = kernels, .nkernels = 1, .source = aos_cl_lbm,
	.footprint = footprint, .setup = setup, .execute = execute, .verify = verify, .teardown = teardown,
};
