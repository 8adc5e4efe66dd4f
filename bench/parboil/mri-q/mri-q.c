/* mri-q: MRI Q-matrix computation. medium follows Parboil's large dataset
 * shape (64^3 voxels, 2048 k-space samples); small is 8K voxels. As in
 * Parboil, |phi|^2 is computed on the device, read back, and packed with
 * the k-space coordinates into constant-memory chunks for ComputeQ. */
#include "aos_bench.h"
#include "aos_rng.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

extern const char aos_cl_mri_q[];
static const char *const kernels[] = { "ComputePhiMag_GPU", "ComputeQ_GPU" };
enum { K_PHIMAG, K_Q };
#define KCHUNK 1024
#define VERIFY_STRIDE 7

struct shape { int numX, numK; };
static const struct shape shapes[AOS_SIZE_COUNT] = { { 8192, 2048 }, { 262144, 2048 } };

struct mriq {
	struct shape s;
	float *kx, *ky, *kz, *phiR, *phiI, *x, *y, *z, *phiMag, *kvals;
	cl_mem dphiR, dphiI, dphiMag, dkvals, dx, dy, dz, dQr, dQi;
};

static void footprint(enum aos_size size, uint64_t *total, uint64_t *largest)
{
	const struct shape *s = &shapes[size];
	*largest = 16ull * s->numK;
	*total = 28ull * s->numK + 20ull * s->numX;
}

static float *fill(struct aos_rng *rng, int n, float lo, float hi)
{
	float *a = malloc(n * sizeof(float));
	for (int i = 0; a && i < n; i++)
		a[i] = aos_rng_range(rng, lo, hi);
	return a;
}

static int setup(struct aos_bench_run *r)
{
	struct mriq *q = calloc(1, sizeof(*q));
	struct aos_rng rng;
	if (!q)
		return -ENOMEM;
	r->state = q;
	q->s = shapes[r->size];
	int nk = q->s.numK, nx = q->s.numX;
	aos_rng_seed(&rng, r->seed);
	q->kx = fill(&rng, nk, -16, 16);
	q->ky = fill(&rng, nk, -16, 16);
	q->kz = fill(&rng, nk, -16, 16);
	q->phiR = fill(&rng, nk, -1, 1);
	q->phiI = fill(&rng, nk, -1, 1);
	q->x = fill(&rng, nx, -0.5f, 0.5f);
	q->y = fill(&rng, nx, -0.5f, 0.5f);
	q->z = fill(&rng, nx, -0.5f, 0.5f);
	q->phiMag = malloc(nk * sizeof(float));
	q->kvals = malloc(nk * 4 * sizeof(float));
	if (!q->kx || !q->ky || !q->kz || !q->phiR || !q->phiI || !q->x || !q->y || !q->z ||
	    !q->phiMag || !q->kvals)
		return -ENOMEM;
	q->dphiR = aos_bench_buffer(r, nk * 4, q->phiR);
	q->dphiI = aos_bench_buffer(r, nk * 4, q->phiI);
	q->dphiMag = aos_bench_buffer(r, nk * 4, NULL);
	q->dkvals = aos_bench_buffer(r, nk * 16, NULL);
	q->dx = aos_bench_buffer(r, nx * 4, q->x);
	q->dy = aos_bench_buffer(r, nx * 4, q->y);
	q->dz = aos_bench_buffer(r, nx * 4, q->z);
	q->dQr = aos_bench_buffer(r, nx * 4, NULL);
	q->dQi = aos_bench_buffer(r, nx * 4, NULL);
	return 0;
}

static int execute(struct aos_bench_run *r)
{
	struct mriq *q = r->state;
	int nk = q->s.numK, nx = q->s.numX;
	size_t local = 256, gk = aos_round_up(nk, local), gx = aos_round_up(nx, local);

	aos_bench_arg_mem(r, K_PHIMAG, 0, q->dphiR);
	aos_bench_arg_mem(r, K_PHIMAG, 1, q->dphiI);
	aos_bench_arg_mem(r, K_PHIMAG, 2, q->dphiMag);
	aos_bench_arg(r, K_PHIMAG, 3, sizeof(int), &nk);
	aos_bench_launch(r, K_PHIMAG, 1, &gk, &local);
	aos_bench_read(r, q->dphiMag, nk * 4, q->phiMag);
	for (int k = 0; k < nk; k++) {
		q->kvals[4 * k + 0] = q->kx[k];
		q->kvals[4 * k + 1] = q->ky[k];
		q->kvals[4 * k + 2] = q->kz[k];
		q->kvals[4 * k + 3] = q->phiMag[k];
	}
	aos_bench_write(r, q->dkvals, nk * 16, q->kvals);
	aos_bench_zero(r, q->dQr, nx * 4);
	aos_bench_zero(r, q->dQi, nx * 4);
	for (int k0 = 0; k0 < nk; k0 += KCHUNK) {
		int n = nk - k0 < KCHUNK ? nk - k0 : KCHUNK;
		cl_buffer_region reg = { (size_t)k0 * 16, (size_t)n * 16 };
		cl_int err;
		cl_mem chunk = clCreateSubBuffer(q->dkvals, CL_MEM_READ_ONLY, CL_BUFFER_CREATE_TYPE_REGION, &reg, &err);
		if (!chunk) {
			r->clerr = err;
			snprintf(r->msg, sizeof(r->msg), "clCreateSubBuffer failed");
			return -EIO;
		}
		aos_bench_arg(r, K_Q, 0, sizeof(int), &n);
		aos_bench_arg_mem(r, K_Q, 1, chunk);
		aos_bench_arg_mem(r, K_Q, 2, q->dx);
		aos_bench_arg_mem(r, K_Q, 3, q->dy);
		aos_bench_arg_mem(r, K_Q, 4, q->dz);
		aos_bench_arg_mem(r, K_Q, 5, q->dQr);
		aos_bench_arg_mem(r, K_Q, 6, q->dQi);
		aos_bench_arg(r, K_Q, 7, sizeof(int), &nx);
		aos_bench_launch(r, K_Q, 1, &gx, &local);
		clReleaseMemObject(chunk); /* the queued launch keeps it alive */
	}
	return 0;
}

static int verify(struct aos_bench_run *r)
{
	struct mriq *q = r->state;
	int nk = q->s.numK, nx = q->s.numX, rc = 0;
	float *qr = malloc(nx * 4), *qi = malloc(nx * 4);
	double mag_sum = 0;
	if (!qr || !qi) {
		rc = -ENOMEM;
		goto out;
	}
	aos_bench_read(r, q->dQr, nx * 4, qr);
	aos_bench_read(r, q->dQi, nx * 4, qi);
	for (int k = 0; k < nk; k++) {
		float m = q->phiR[k] * q->phiR[k] + q->phiI[k] * q->phiI[k];
		if (fabsf(q->phiMag[k] - m) > 1e-6f * (1 + m)) {
			snprintf(r->msg, sizeof(r->msg), "phiMag[%d] = %g, reference %g", k, q->phiMag[k], m);
			rc = -EDOM;
			goto out;
		}
		mag_sum += m;
	}
	/* Sampled voxels keep the O(numX * numK) reference affordable. */
	for (int v = 0; v < nx; v += VERIFY_STRIDE) {
		double wr = 0, wi = 0;
		for (int k = 0; k < nk; k++) {
			double arg = 2 * M_PI * ((double)q->kx[k] * q->x[v] + (double)q->ky[k] * q->y[v] +
						 (double)q->kz[k] * q->z[v]);
			double m = (double)q->phiR[k] * q->phiR[k] + (double)q->phiI[k] * q->phiI[k];
			wr += m * cos(arg);
			wi += m * sin(arg);
		}
		double tol = 1e-5 * mag_sum;
		if (fabs(qr[v] - wr) > tol || fabs(qi[v] - wi) > tol) {
			snprintf(r->msg, sizeof(r->msg), "Q[%d] = (%g, %g), reference (%g, %g)", v, qr[v], qi[v], wr, wi);
			rc = -EDOM;
			goto out;
		}
	}
out:
	free(qr);
	free(qi);
	return rc;
}

static void teardown(struct aos_bench_run *r)
{
	struct mriq *q = r->state;
	if (!q)
		return;
	free(q->kx); free(q->ky); free(q->kz); free(q->phiR); free(q->phiI);
	free(q->x); free(q->y); free(q->z); free(q->phiMag); free(q->kvals);
	free(q);
}

const struct aos_bench_desc aos_bench_mri_q = {
	.name = "mri-q", .summary = "MRI Q-matrix: |phi|^2 then sum of complex exponentials",
	.kernels = kernels, .nkernels = 2, .source = aos_cl_mri_q,
	.footprint = footprint, .setup = setup, .execute = execute, .verify = verify, .teardown = teardown,
};
