/* mri-gridding: Kaiser-Bessel gridding of non-Cartesian MRI samples, with
 * the Parboil pipeline: bin, radix-sort by bin (split + scan), scan bin
 * counts into bin starts, reorder samples, then grid. Samples lie on
 * radial-ish spokes through k-space so bins are unevenly filled.
 * small: 32K samples onto 32^3; medium: 1M samples onto 128^3. */
#include "aos_bench.h"
#include "aos_rng.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char aos_cl_mri_gridding[];
static const char *const kernels[] = { "binning_kernel", "reorder_kernel", "splitSort", "splitRearrange",
				       "scan_L1_kernel", "scan_inter1_kernel", "scan_inter2_kernel",
				       "uniformAdd", "gridding_GPU" };
enum { K_BIN, K_REORDER, K_SPLIT, K_REARRANGE, K_SCAN_L1, K_SCAN_I1, K_SCAN_I2, K_UADD, K_GRID };
#define WG 256
#define SCAN_BLOCK 512
#define INTER_MAX 1024
#define LUT_N 256

struct shape { int n, G, B; };
static const struct shape shapes[AOS_SIZE_COUNT] = { { 32768, 32, 4 }, { 1048576, 128, 4 } };
static const float W = 2.0f, kb_beta = 9.0f;

struct gridding {
	struct shape s;
	int npad, nbd, nbins, nblk, bits;
	float *pos, *val, lut[LUT_N];
	cl_mem dpos, dval, dkeys[2], dvals[2], dhist, dstart, dcount, dsums, dspos, dsval, dlut, dgrid;
};

static void footprint(enum aos_size size, uint64_t *total, uint64_t *largest)
{
	const struct shape *s = &shapes[size];
	uint64_t g = (uint64_t)s->G * s->G * s->G, n = s->n;
	*largest = 16 * n > 8 * g ? 16 * n : 8 * g;
	*total = 16 * n * 2 + 8 * n * 2 + 4 * n * 6 + 8 * g + 4 * g;
}

/* Zeroth-order modified Bessel function, by its power series. */
static double bessel_i0(double x)
{
	double sum = 1, term = 1;
	for (int k = 1; k < 40; k++) {
		term *= (x / (2 * k)) * (x / (2 * k));
		sum += term;
	}
	return sum;
}

static int setup(struct aos_bench_run *r)
{
	struct gridding *g = calloc(1, sizeof(*g));
	struct aos_rng rng;
	if (!g)
		return -ENOMEM;
	r->state = g;
	g->s = shapes[r->size];
	int n = g->s.n, G = g->s.G;
	g->npad = (int)aos_round_up(n, WG);
	g->nblk = g->npad / WG;
	g->nbd = G / g->s.B;
	g->nbins = g->nbd * g->nbd * g->nbd;
	for (g->bits = 0; (1 << g->bits) < g->nbins; g->bits += 4)
		;
	if ((16 * g->nblk + SCAN_BLOCK - 1) / SCAN_BLOCK > INTER_MAX) {
		snprintf(r->msg, sizeof(r->msg), "too many samples for a two-level scan");
		return -E2BIG;
	}
	g->pos = malloc((size_t)n * 4 * sizeof(float));
	g->val = malloc((size_t)n * 2 * sizeof(float));
	if (!g->pos || !g->val)
		return -ENOMEM;
	aos_rng_seed(&rng, r->seed);
	/* Radial spokes from the k-space centre, jittered: dense in the middle. */
	for (int i = 0; i < n; i++) {
		float z = aos_rng_range(&rng, -1, 1), phi = aos_rng_range(&rng, 0, 6.2831853f);
		float rad = aos_rng_unit(&rng) * (G / 2 - 0.01f), rxy = sqrtf(1 - z * z);
		float *p = &g->pos[4 * i];
		p[0] = G / 2.0f + rad * rxy * cosf(phi);
		p[1] = G / 2.0f + rad * rxy * sinf(phi);
		p[2] = G / 2.0f + rad * z;
		p[3] = 0;
		g->val[2 * i] = aos_rng_range(&rng, -1, 1);
		g->val[2 * i + 1] = aos_rng_range(&rng, -1, 1);
	}
	for (int k = 0; k < LUT_N; k++) {
		double u2 = (double)k / (LUT_N - 1);
		g->lut[k] = (float)(bessel_i0(kb_beta * sqrt(1 - u2)) / bessel_i0(kb_beta));
	}
	size_t np = g->npad;
	g->dpos = aos_bench_buffer(r, (size_t)n * 16, g->pos);
	g->dval = aos_bench_buffer(r, (size_t)n * 8, g->val);
	for (int i = 0; i < 2; i++) {
		g->dkeys[i] = aos_bench_buffer(r, np * 4, NULL);
		g->dvals[i] = aos_bench_buffer(r, np * 4, NULL);
	}
	g->dhist = aos_bench_buffer(r, (size_t)16 * g->nblk * 4, NULL);
	g->dstart = aos_bench_buffer(r, (size_t)16 * g->nblk * 4, NULL);
	g->dcount = aos_bench_buffer(r, ((size_t)g->nbins + 1) * 4, NULL);
	g->dsums = aos_bench_buffer(r, INTER_MAX * 4, NULL);
	g->dspos = aos_bench_buffer(r, (size_t)n * 16, NULL);
	g->dsval = aos_bench_buffer(r, (size_t)n * 8, NULL);
	g->dlut = aos_bench_buffer(r, sizeof(g->lut), g->lut);
	g->dgrid = aos_bench_buffer(r, (size_t)G * G * G * 8, NULL);
	return 0;
}

/* Exclusive prefix sum of m uints in place: L1, inter1, inter2, uniformAdd. */
static void scan(struct aos_bench_run *r, cl_mem data, int m)
{
	struct gridding *g = r->state;
	int nblocks = (m + SCAN_BLOCK - 1) / SCAN_BLOCK;
	size_t l1g = (size_t)nblocks * WG, l1l = WG, ig = INTER_MAX / 2, il = INTER_MAX / 2;
	size_t ug = aos_round_up(m, WG), ul = WG;
	aos_bench_arg_mem(r, K_SCAN_L1, 0, data);
	aos_bench_arg(r, K_SCAN_L1, 1, sizeof(int), &m);
	aos_bench_arg_mem(r, K_SCAN_L1, 2, g->dsums);
	aos_bench_launch(r, K_SCAN_L1, 1, &l1g, &l1l);
	aos_bench_arg_mem(r, K_SCAN_I1, 0, g->dsums);
	aos_bench_arg(r, K_SCAN_I1, 1, sizeof(int), &nblocks);
	aos_bench_launch(r, K_SCAN_I1, 1, &ig, &il);
	aos_bench_arg_mem(r, K_SCAN_I2, 0, g->dsums);
	aos_bench_arg(r, K_SCAN_I2, 1, sizeof(int), &nblocks);
	aos_bench_launch(r, K_SCAN_I2, 1, &ig, &il);
	aos_bench_arg_mem(r, K_UADD, 0, data);
	aos_bench_arg(r, K_UADD, 1, sizeof(int), &m);
	aos_bench_arg_mem(r, K_UADD, 2, g->dsums);
	aos_bench_launch(r, K_UADD, 1, &ug, &ul);
}

static int execute(struct aos_bench_run *r)
{
	struct gridding *g = r->state;
	int n = g->s.n, G = g->s.G, lutn = LUT_N, m16 = 16 * g->nblk, nb1 = g->nbins + 1;
	size_t local = WG, gpad = g->npad, gn = aos_round_up(n, WG);
	size_t gg[3] = { (size_t)G, (size_t)G, (size_t)G }, lg[3] = { 8, 8, 1 };

	aos_bench_zero(r, g->dcount, (size_t)nb1 * 4);
	aos_bench_arg_mem(r, K_BIN, 0, g->dpos);
	aos_bench_arg(r, K_BIN, 1, sizeof(int), &n);
	aos_bench_arg(r, K_BIN, 2, sizeof(int), &g->npad);
	aos_bench_arg(r, K_BIN, 3, sizeof(int), &g->s.B);
	aos_bench_arg(r, K_BIN, 4, sizeof(int), &g->nbd);
	aos_bench_arg_mem(r, K_BIN, 5, g->dkeys[0]);
	aos_bench_arg_mem(r, K_BIN, 6, g->dvals[0]);
	aos_bench_arg_mem(r, K_BIN, 7, g->dcount);
	aos_bench_launch(r, K_BIN, 1, &gpad, &local);

	for (int shift = 0; shift < g->bits; shift += 4) {
		aos_bench_arg_mem(r, K_SPLIT, 0, g->dkeys[0]);
		aos_bench_arg_mem(r, K_SPLIT, 1, g->dvals[0]);
		aos_bench_arg(r, K_SPLIT, 2, sizeof(int), &shift);
		aos_bench_arg_mem(r, K_SPLIT, 3, g->dkeys[1]);
		aos_bench_arg_mem(r, K_SPLIT, 4, g->dvals[1]);
		aos_bench_arg_mem(r, K_SPLIT, 5, g->dhist);
		aos_bench_arg_mem(r, K_SPLIT, 6, g->dstart);
		aos_bench_arg(r, K_SPLIT, 7, sizeof(int), &g->nblk);
		aos_bench_launch(r, K_SPLIT, 1, &gpad, &local);
		scan(r, g->dhist, m16);
		aos_bench_arg_mem(r, K_REARRANGE, 0, g->dkeys[1]);
		aos_bench_arg_mem(r, K_REARRANGE, 1, g->dvals[1]);
		aos_bench_arg(r, K_REARRANGE, 2, sizeof(int), &shift);
		aos_bench_arg_mem(r, K_REARRANGE, 3, g->dhist);
		aos_bench_arg_mem(r, K_REARRANGE, 4, g->dstart);
		aos_bench_arg(r, K_REARRANGE, 5, sizeof(int), &g->nblk);
		aos_bench_arg_mem(r, K_REARRANGE, 6, g->dkeys[0]);
		aos_bench_arg_mem(r, K_REARRANGE, 7, g->dvals[0]);
		aos_bench_launch(r, K_REARRANGE, 1, &gpad, &local);
	}
	scan(r, g->dcount, nb1);

	aos_bench_arg_mem(r, K_REORDER, 0, g->dvals[0]);
	aos_bench_arg(r, K_REORDER, 1, sizeof(int), &n);
	aos_bench_arg_mem(r, K_REORDER, 2, g->dpos);
	aos_bench_arg_mem(r, K_REORDER, 3, g->dval);
	aos_bench_arg_mem(r, K_REORDER, 4, g->dspos);
	aos_bench_arg_mem(r, K_REORDER, 5, g->dsval);
	aos_bench_launch(r, K_REORDER, 1, &gn, &local);

	aos_bench_arg_mem(r, K_GRID, 0, g->dspos);
	aos_bench_arg_mem(r, K_GRID, 1, g->dsval);
	aos_bench_arg_mem(r, K_GRID, 2, g->dcount);
	aos_bench_arg(r, K_GRID, 3, sizeof(int), &G);
	aos_bench_arg(r, K_GRID, 4, sizeof(int), &g->s.B);
	aos_bench_arg(r, K_GRID, 5, sizeof(int), &g->nbd);
	aos_bench_arg(r, K_GRID, 6, sizeof(float), &W);
	aos_bench_arg_mem(r, K_GRID, 7, g->dlut);
	aos_bench_arg(r, K_GRID, 8, sizeof(int), &lutn);
	aos_bench_arg_mem(r, K_GRID, 9, g->dgrid);
	aos_bench_launch(r, K_GRID, 3, gg, lg);
	return 0;
}

static float kb_weight(const struct gridding *g, float d)
{
	float u = d * d / (W * W) * (float)(LUT_N - 1);
	int i = (int)u < LUT_N - 1 ? (int)u : LUT_N - 1, j = i + 1 < LUT_N ? i + 1 : LUT_N - 1;
	return g->lut[i] + (u - (float)i) * (g->lut[j] - g->lut[i]);
}

static int bin_of(const struct gridding *g, const float *p)
{
	int b[3];
	for (int d = 0; d < 3; d++) {
		b[d] = (int)(p[d] / g->s.B);
		if (b[d] >= g->nbd) b[d] = g->nbd - 1;
	}
	return b[0] + g->nbd * (b[1] + g->nbd * b[2]);
}

static int check_sort(struct aos_bench_run *r, uint32_t **start_out)
{
	struct gridding *g = r->state;
	int n = g->s.n, rc = 0;
	uint32_t *start = calloc(g->nbins + 1, 4), *got_start = malloc((g->nbins + 1) * 4);
	uint32_t *got_idx = malloc((size_t)n * 4), *fill = calloc(g->nbins, 4);
	if (!start || !got_start || !got_idx || !fill) {
		rc = -ENOMEM;
		goto out;
	}
	aos_bench_read(r, g->dcount, (g->nbins + 1) * 4, got_start);
	aos_bench_read(r, g->dvals[0], (size_t)n * 4, got_idx);
	for (int i = 0; i < n; i++)
		start[bin_of(g, &g->pos[4 * i]) + 1]++;
	for (int b = 0; b < g->nbins; b++)
		start[b + 1] += start[b];
	for (int b = 0; b <= g->nbins && rc == 0; b++)
		if (got_start[b] != start[b]) {
			snprintf(r->msg, sizeof(r->msg), "bin start %d = %u, reference %u", b, got_start[b], start[b]);
			rc = -EDOM;
		}
	/* LSD radix sort is stable and starts from index order, so the
	 * sorted order is exactly (bin, index). */
	for (int i = 0; i < n && rc == 0; i++) {
		int b = bin_of(g, &g->pos[4 * i]);
		uint32_t at = start[b] + fill[b]++;
		if (got_idx[at] != (uint32_t)i) {
			snprintf(r->msg, sizeof(r->msg), "sorted slot %u holds sample %u, reference %d", at, got_idx[at], i);
			rc = -EDOM;
		}
	}
out:
	free(got_start);
	free(got_idx);
	free(fill);
	*start_out = start;
	return rc;
}

static int verify(struct aos_bench_run *r)
{
	struct gridding *g = r->state;
	int G = g->s.G, rc;
	size_t cells = (size_t)G * G * G;
	uint32_t *start = NULL;
	float *got = malloc(cells * 8);
	double *want = calloc(cells * 2, sizeof(double)), *mag = calloc(cells, sizeof(double));
	if (!got || !want || !mag) {
		rc = -ENOMEM;
		goto out;
	}
	rc = check_sort(r, &start);
	if (rc)
		goto out;
	aos_bench_read(r, g->dgrid, cells * 8, got);
	/* Scatter formulation: independent of the bins under test. */
	for (int i = 0; i < g->s.n; i++) {
		const float *p = &g->pos[4 * i];
		int lo[3], hi[3];
		for (int d = 0; d < 3; d++) {
			lo[d] = (int)ceilf(p[d] - W);
			hi[d] = (int)floorf(p[d] + W);
			if (lo[d] < 0) lo[d] = 0;
			if (hi[d] > G - 1) hi[d] = G - 1;
		}
		for (int z = lo[2]; z <= hi[2]; z++)
			for (int y = lo[1]; y <= hi[1]; y++)
				for (int x = lo[0]; x <= hi[0]; x++) {
					float dx = fabsf(p[0] - (float)x), dy = fabsf(p[1] - (float)y), dz = fabsf(p[2] - (float)z);
					if (dx > W || dy > W || dz > W)
						continue;
					double w = (double)kb_weight(g, dx) * kb_weight(g, dy) * kb_weight(g, dz);
					size_t c = x + (size_t)G * (y + (size_t)G * z);
					want[2 * c] += w * g->val[2 * i];
					want[2 * c + 1] += w * g->val[2 * i + 1];
					mag[c] += w * (fabs(g->val[2 * i]) + fabs(g->val[2 * i + 1]));
				}
	}
	for (size_t c = 0; c < cells; c++) {
		double tol = 1e-4 * mag[c] + 1e-5;
		if (fabs(got[2 * c] - want[2 * c]) > tol || fabs(got[2 * c + 1] - want[2 * c + 1]) > tol) {
			snprintf(r->msg, sizeof(r->msg), "grid[%zu] = (%g, %g), reference (%g, %g)", c, got[2 * c],
				 got[2 * c + 1], want[2 * c], want[2 * c + 1]);
			rc = -EDOM;
			break;
		}
	}
out:
	free(start);
	free(got);
	free(want);
	free(mag);
	return rc;
}

static void teardown(struct aos_bench_run *r)
{
	struct gridding *g = r->state;
	if (!g)
		return;
	free(g->pos);
	free(g->val);
	free(g);
}

const struct aos_bench_desc aos_bench_mri_gridding = {
	.name = "mri-gridding", .summary = "MRI gridding: bin, radix sort (split+scan), reorder, grid",
	.kernels = kernels, .nkernels = 9, .source = aos_cl_mri_gridding,
	.footprint = footprint, .setup = setup, .execute = execute, .verify = verify, .teardown = teardown,
};
