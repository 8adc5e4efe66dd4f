/* cutcp: cutoff Coulombic potential. Atoms are a random water-density box
 * (0.1 atoms/A^3, charges +-) and the lattice spacing is 0.5 A with a 12 A
 * cutoff, as in Parboil. Binning is done on the host, as Parboil does. */
#include "aos_bench.h"
#include "aos_rng.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char aos_cl_cutcp[];
static const char *const kernels[] = { "opencl_cutoff_potential_lattice" };

struct shape { float box; int lattice; int verify_stride; };
static const struct shape shapes[AOS_SIZE_COUNT] = { { 24.0f, 48, 5 }, { 48.0f, 96, 101 } };
static const float spacing = 0.5f, cutoff = 12.0f, binlen = 4.0f, density = 0.1f;

struct cutcp {
	struct shape s;
	int natoms, nb, nlat;
	float *atoms; /* binned, 4 floats each */
	int *bin_start;
	cl_mem datoms, dbins, dlat;
};

static int atom_count(const struct shape *s)
{
	return (int)(s->box * s->box * s->box * density);
}

static void footprint(enum aos_size size, uint64_t *total, uint64_t *largest)
{
	const struct shape *s = &shapes[size];
	*largest = 4ull * s->lattice * s->lattice * s->lattice;
	*total = *largest + 16ull * atom_count(s) + 4096;
}

static int setup(struct aos_bench_run *r)
{
	struct cutcp *c = calloc(1, sizeof(*c));
	struct aos_rng rng;
	if (!c)
		return -ENOMEM;
	r->state = c;
	c->s = shapes[r->size];
	c->natoms = atom_count(&c->s);
	c->nb = (int)ceilf(c->s.box / binlen);
	c->nlat = c->s.lattice * c->s.lattice * c->s.lattice;
	int nbins = c->nb * c->nb * c->nb;
	float *raw = malloc(c->natoms * 4 * sizeof(float));
	int *bin_of = malloc(c->natoms * sizeof(int));
	c->atoms = malloc(c->natoms * 4 * sizeof(float));
	c->bin_start = calloc(nbins + 1, sizeof(int));
	int *fill = calloc(nbins, sizeof(int));
	if (!raw || !bin_of || !c->atoms || !c->bin_start || !fill) {
		free(raw); free(bin_of); free(fill);
		return -ENOMEM;
	}
	aos_rng_seed(&rng, r->seed);
	for (int a = 0; a < c->natoms; a++) {
		float *p = &raw[4 * a];
		for (int d = 0; d < 3; d++)
			p[d] = aos_rng_range(&rng, 0, c->s.box);
		p[3] = (a & 1) ? -0.8f : 0.4f + aos_rng_unit(&rng);
		int b[3];
		for (int d = 0; d < 3; d++) {
			b[d] = (int)(p[d] / binlen);
			if (b[d] >= c->nb) b[d] = c->nb - 1;
		}
		bin_of[a] = b[0] + c->nb * (b[1] + c->nb * b[2]);
		c->bin_start[bin_of[a] + 1]++;
	}
	for (int b = 0; b < nbins; b++)
		c->bin_start[b + 1] += c->bin_start[b];
	for (int a = 0; a < c->natoms; a++) {
		int at = c->bin_start[bin_of[a]] + fill[bin_of[a]]++;
		memcpy(&c->atoms[4 * at], &raw[4 * a], 4 * sizeof(float));
	}
	free(raw); free(bin_of); free(fill);
	c->datoms = aos_bench_buffer(r, c->natoms * 16, c->atoms);
	c->dbins = aos_bench_buffer(r, (nbins + 1) * sizeof(int), c->bin_start);
	c->dlat = aos_bench_buffer(r, c->nlat * sizeof(float), NULL);
	return 0;
}

static int execute(struct aos_bench_run *r)
{
	struct cutcp *c = r->state;
	int n = c->s.lattice;
	float c2 = cutoff * cutoff;
	size_t global[3] = { (size_t)n, (size_t)n, (size_t)n }, local[3] = { 8, 8, 1 };
	aos_bench_arg(r, 0, 0, sizeof(int), &c->nb);
	aos_bench_arg(r, 0, 1, sizeof(int), &c->nb);
	aos_bench_arg(r, 0, 2, sizeof(int), &c->nb);
	aos_bench_arg(r, 0, 3, sizeof(float), &binlen);
	aos_bench_arg_mem(r, 0, 4, c->dbins);
	aos_bench_arg_mem(r, 0, 5, c->datoms);
	aos_bench_arg(r, 0, 6, sizeof(float), &spacing);
	aos_bench_arg(r, 0, 7, sizeof(float), &c2);
	aos_bench_arg(r, 0, 8, sizeof(int), &n);
	aos_bench_arg(r, 0, 9, sizeof(int), &n);
	aos_bench_arg(r, 0, 10, sizeof(int), &n);
	aos_bench_arg_mem(r, 0, 11, c->dlat);
	aos_bench_launch(r, 0, 3, global, local);
	return 0;
}

static int verify(struct aos_bench_run *r)
{
	struct cutcp *c = r->state;
	int n = c->s.lattice, rc = 0;
	float *lat = malloc(c->nlat * sizeof(float));
	double c2 = (double)cutoff * cutoff;
	if (!lat)
		return -ENOMEM;
	aos_bench_read(r, c->dlat, c->nlat * sizeof(float), lat);
	/* Brute force over all atoms: independent of the binning under test. */
	for (int p = 0; p < c->nlat; p += c->s.verify_stride) {
		double px = (p % n) * spacing, py = (p / n % n) * spacing, pz = (p / n / n) * spacing;
		double e = 0, mag = 0;
		for (int a = 0; a < c->natoms; a++) {
			const float *at = &c->atoms[4 * a];
			double dx = at[0] - px, dy = at[1] - py, dz = at[2] - pz;
			double r2 = dx * dx + dy * dy + dz * dz;
			if (r2 < c2 && r2 > 0.01) {
				double s = 1 - r2 / c2, t = at[3] / sqrt(r2) * s * s;
				e += t;
				mag += fabs(t);
			}
		}
		if (fabs(lat[p] - e) > 1e-4 * mag + 1e-5) {
			snprintf(r->msg, sizeof(r->msg), "lattice[%d] = %g, reference %g", p, lat[p], e);
			rc = -EDOM;
			break;
		}
	}
	free(lat);
	return rc;
}

static void teardown(struct aos_bench_run *r)
{
	struct cutcp *c = r->state;
	if (!c)
		return;
	free(c->atoms);
	free(c->bin_start);
	free(c);
}

const struct aos_bench_desc aos_bench_cutcp = {
	.name = "cutcp", .summary = "cutoff Coulombic potential on a lattice, binned atoms",
	.kernels = kernels, .nkernels = 1, .source = aos_cl_cutcp,
	.footprint = footprint, .setup = setup, .execute = execute, .verify = verify, .teardown = teardown,
};
