/* spmv: sparse matrix-vector product in JDS format. medium follows the
 * shape of Parboil's Dubcova3 input (146689 rows, ~25 nonzeros per row);
 * small is a 16K-row matrix. Row lengths vary so the jagged diagonals
 * really are jagged. */
#include "aos_bench.h"
#include "aos_rng.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

extern const char aos_cl_spmv[];
static const char *const kernels[] = { "spmv_jds_naive" };

struct shape { int dim, avg_nnz, iters; };
static const struct shape shapes[AOS_SIZE_COUNT] = { { 16384, 16, 10 }, { 146689, 25, 50 } };

struct spmv {
	struct shape s;
	int *rowlen, *perm, *jd_ptr, *nzcnt, *indices, ndiag;
	float *data, *x;
	size_t nnz;
	cl_mem ddst, ddata, dind, dperm, dx, dnz, djd;
};

static void footprint(enum aos_size size, uint64_t *total, uint64_t *largest)
{
	const struct shape *s = &shapes[size];
	uint64_t nnz = 2ull * s->dim * s->avg_nnz; /* upper bound */
	*largest = 4 * nnz;
	*total = 8 * nnz + 16ull * s->dim;
}

static int cmp_len_desc(const void *a, const void *b, void *ctx)
{
	const int *len = ctx;
	int la = len[*(const int *)a], lb = len[*(const int *)b];
	if (la != lb)
		return lb - la;
	return *(const int *)a - *(const int *)b;
}

static int setup(struct aos_bench_run *r)
{
	struct spmv *m = calloc(1, sizeof(*m));
	struct aos_rng rng;
	if (!m)
		return -ENOMEM;
	r->state = m;
	m->s = shapes[r->size];
	int dim = m->s.dim;
	m->rowlen = malloc(dim * sizeof(int));
	m->perm = malloc(dim * sizeof(int));
	m->nzcnt = malloc(dim * sizeof(int));
	m->x = malloc(dim * sizeof(float));
	if (!m->rowlen || !m->perm || !m->nzcnt || !m->x)
		return -ENOMEM;
	aos_rng_seed(&rng, r->seed);
	m->nnz = 0;
	m->ndiag = 0;
	for (int i = 0; i < dim; i++) {
		m->rowlen[i] = 1 + (int)aos_rng_below(&rng, 2 * m->s.avg_nnz - 1);
		m->nnz += m->rowlen[i];
		if (m->rowlen[i] > m->ndiag)
			m->ndiag = m->rowlen[i];
		m->perm[i] = i;
		m->x[i] = aos_rng_range(&rng, -1, 1);
	}
	qsort_r(m->perm, dim, sizeof(int), cmp_len_desc, m->rowlen);
	m->jd_ptr = calloc(m->ndiag + 1, sizeof(int));
	m->data = malloc(m->nnz * sizeof(float));
	m->indices = malloc(m->nnz * sizeof(int));
	if (!m->jd_ptr || !m->data || !m->indices)
		return -ENOMEM;
	/* Diagonal d holds rows (in sorted order) whose length exceeds d:
	 * a prefix of the sorted rows, since lengths decrease. */
	int off = 0;
	for (int d = 0; d < m->ndiag; d++) {
		m->jd_ptr[d] = off;
		for (int row = 0; row < dim && m->rowlen[m->perm[row]] > d; row++)
			off++;
	}
	m->jd_ptr[m->ndiag] = off;
	for (int row = 0; row < dim; row++) {
		int len = m->rowlen[m->perm[row]];
		m->nzcnt[row] = len;
		for (int d = 0; d < len; d++) {
			m->data[m->jd_ptr[d] + row] = aos_rng_range(&rng, -1, 1);
			m->indices[m->jd_ptr[d] + row] = (int)aos_rng_below(&rng, dim);
		}
	}
	m->ddst = aos_bench_buffer(r, dim * sizeof(float), NULL);
	m->ddata = aos_bench_buffer(r, m->nnz * sizeof(float), m->data);
	m->dind = aos_bench_buffer(r, m->nnz * sizeof(int), m->indices);
	m->dperm = aos_bench_buffer(r, dim * sizeof(int), m->perm);
	m->dx = aos_bench_buffer(r, dim * sizeof(float), m->x);
	m->dnz = aos_bench_buffer(r, dim * sizeof(int), m->nzcnt);
	m->djd = aos_bench_buffer(r, (m->ndiag + 1) * sizeof(int), m->jd_ptr);
	return 0;
}

static int execute(struct aos_bench_run *r)
{
	struct spmv *m = r->state;
	size_t local = 64, global = aos_round_up(m->s.dim, local);
	cl_mem args[] = { m->ddst, m->ddata, m->dind, m->dperm, m->dx, m->dnz, m->djd };
	for (cl_uint i = 0; i < 7; i++)
		aos_bench_arg_mem(r, 0, i, args[i]);
	aos_bench_arg(r, 0, 7, sizeof(int), &m->s.dim);
	for (int it = 0; it < m->s.iters; it++)
		aos_bench_launch(r, 0, 1, &global, &local);
	return 0;
}

static int verify(struct aos_bench_run *r)
{
	struct spmv *m = r->state;
	int dim = m->s.dim, rc = 0;
	float *got = malloc(dim * sizeof(float)), *want = malloc(dim * sizeof(float));
	if (!got || !want) {
		rc = -ENOMEM;
		goto out;
	}
	aos_bench_read(r, m->ddst, dim * sizeof(float), got);
	for (int row = 0; row < dim; row++) {
		double sum = 0;
		for (int d = 0; d < m->nzcnt[row]; d++) {
			int at = m->jd_ptr[d] + row;
			sum += (double)m->data[at] * m->x[m->indices[at]];
		}
		want[m->perm[row]] = (float)sum;
	}
	long bad = aos_bench_compare_f32(got, want, dim, 1e-4f, 1e-4f);
	if (bad >= 0) {
		snprintf(r->msg, sizeof(r->msg), "y[%ld] = %g, reference %g", bad, got[bad], want[bad]);
		rc = -EDOM;
	}
out:
	free(got);
	free(want);
	return rc;
}

static void teardown(struct aos_bench_run *r)
{
	struct spmv *m = r->state;
	if (!m)
		return;
	free(m->rowlen); free(m->perm); free(m->nzcnt); free(m->x);
	free(m->jd_ptr); free(m->data); free(m->indices);
	free(m);
}

const struct aos_bench_desc aos_bench_spmv = {
	.name = "spmv", .summary = "sparse matrix-vector product, JDS format",
	.kernels = kernels, .nkernels = 1, .source = aos_cl_spmv,
	.footprint = footprint, .setup = setup, .execute = execute, .verify = verify, .teardown = teardown,
};
