/* bfs: frontier-based breadth-first search, one launch per level.
 * The generator builds a road-network-like graph (as Parboil's inputs
 * are): a 2D grid with ~90% of the grid edges present plus a few random
 * shortcuts, so the graph has a long diameter and many levels.
 * medium is 1M nodes (1024x1024), small is 64K nodes (256x256). */
#include "aos_bench.h"
#include "aos_rng.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char aos_cl_bfs[];
static const char *const kernels[] = { "BFS_kernel" };

struct shape { int side; };
static const struct shape shapes[AOS_SIZE_COUNT] = { { 256 }, { 1024 } };

struct bfs {
	int n, nedges, levels;
	int *row_off, *cols, *init_cost;
	cl_mem drow, dcols, dcost, dfront[2], dcount;
};

static void footprint(enum aos_size size, uint64_t *total, uint64_t *largest)
{
	uint64_t n = (uint64_t)shapes[size].side * shapes[size].side;
	*largest = 4 * 5 * n; /* edge list upper bound */
	*total = *largest + 4 * 4 * n;
}

static int setup(struct aos_bench_run *r)
{
	struct bfs *g = calloc(1, sizeof(*g));
	struct aos_rng rng;
	if (!g)
		return -ENOMEM;
	r->state = g;
	int side = shapes[r->size].side, n = side * side;
	int shortcuts = n / 200, max_edges = 2 * (2 * n + shortcuts);
	int *src = malloc(max_edges * sizeof(int)), *dst = malloc(max_edges * sizeof(int)), m = 0;
	g->n = n;
	g->row_off = calloc(n + 1, sizeof(int));
	g->cols = malloc(max_edges * sizeof(int));
	g->init_cost = malloc(n * sizeof(int));
	if (!src || !dst || !g->row_off || !g->cols || !g->init_cost) {
		free(src); free(dst);
		return -ENOMEM;
	}
	aos_rng_seed(&rng, r->seed);
	for (int y = 0; y < side; y++)
		for (int x = 0; x < side; x++) {
			int v = x + y * side;
			if (x + 1 < side && aos_rng_below(&rng, 10) < 9) {
				src[m] = v; dst[m++] = v + 1; src[m] = v + 1; dst[m++] = v;
			}
			if (y + 1 < side && aos_rng_below(&rng, 10) < 9) {
				src[m] = v; dst[m++] = v + side; src[m] = v + side; dst[m++] = v;
			}
		}
	for (int s = 0; s < shortcuts; s++) {
		int a = aos_rng_below(&rng, n), b = aos_rng_below(&rng, n);
		src[m] = a; dst[m++] = b; src[m] = b; dst[m++] = a;
	}
	/* Counting sort of the edge list by source gives CSR. */
	for (int e = 0; e < m; e++)
		g->row_off[src[e] + 1]++;
	for (int v = 0; v < n; v++)
		g->row_off[v + 1] += g->row_off[v];
	int *fill = calloc(n, sizeof(int));
	if (!fill) {
		free(src); free(dst);
		return -ENOMEM;
	}
	for (int e = 0; e < m; e++)
		g->cols[g->row_off[src[e]] + fill[src[e]]++] = dst[e];
	free(fill); free(src); free(dst);
	g->nedges = m;
	for (int v = 0; v < n; v++)
		g->init_cost[v] = -1;
	g->init_cost[0] = 0;
	g->drow = aos_bench_buffer(r, (n + 1) * sizeof(int), g->row_off);
	g->dcols = aos_bench_buffer(r, m * sizeof(int), g->cols);
	g->dcost = aos_bench_buffer(r, n * sizeof(int), g->init_cost);
	g->dfront[0] = aos_bench_buffer(r, n * sizeof(int), NULL);
	g->dfront[1] = aos_bench_buffer(r, n * sizeof(int), NULL);
	g->dcount = aos_bench_buffer(r, sizeof(int), NULL);
	return 0;
}

static int execute(struct aos_bench_run *r)
{
	struct bfs *g = r->state;
	int n_in = 1, level = 0, cur = 0, zero = 0, source = 0;
	size_t local = 256;
	aos_bench_write(r, g->dcost, g->n * sizeof(int), g->init_cost);
	aos_bench_write(r, g->dfront[0], sizeof(int), &source);
	aos_bench_arg_mem(r, 0, 0, g->drow);
	aos_bench_arg_mem(r, 0, 1, g->dcols);
	aos_bench_arg_mem(r, 0, 2, g->dcost);
	aos_bench_arg_mem(r, 0, 6, g->dcount);
	while (n_in > 0 && aos_bench_status(r) == 0) {
		size_t global = aos_round_up(n_in, local);
		aos_bench_write(r, g->dcount, sizeof(int), &zero);
		aos_bench_arg_mem(r, 0, 3, g->dfront[cur]);
		aos_bench_arg(r, 0, 4, sizeof(int), &n_in);
		aos_bench_arg_mem(r, 0, 5, g->dfront[1 - cur]);
		aos_bench_arg(r, 0, 7, sizeof(int), &level);
		aos_bench_launch(r, 0, 1, &global, &local);
		aos_bench_read(r, g->dcount, sizeof(int), &n_in);
		cur = 1 - cur;
		level++;
	}
	g->levels = level;
	return 0;
}

static int verify(struct aos_bench_run *r)
{
	struct bfs *g = r->state;
	int *got = malloc(g->n * sizeof(int)), *want = malloc(g->n * sizeof(int));
	int *queue = malloc(g->n * sizeof(int)), head = 0, tail = 0, rc = 0;
	if (!got || !want || !queue) {
		rc = -ENOMEM;
		goto out;
	}
	aos_bench_read(r, g->dcost, g->n * sizeof(int), got);
	memcpy(want, g->init_cost, g->n * sizeof(int));
	queue[tail++] = 0;
	while (head < tail) {
		int v = queue[head++];
		for (int e = g->row_off[v]; e < g->row_off[v + 1]; e++)
			if (want[g->cols[e]] == -1) {
				want[g->cols[e]] = want[v] + 1;
				queue[tail++] = g->cols[e];
			}
	}
	for (int v = 0; v < g->n; v++)
		if (got[v] != want[v]) {
			snprintf(r->msg, sizeof(r->msg), "cost[%d] = %d, reference %d", v, got[v], want[v]);
			rc = -EDOM;
			break;
		}
out:
	free(got);
	free(want);
	free(queue);
	return rc;
}

static void teardown(struct aos_bench_run *r)
{
	struct bfs *g = r->state;
	if (!g)
		return;
	free(g->row_off);
	free(g->cols);
	free(g->init_cost);
	free(g);
}

const struct aos_bench_desc aos_bench_bfs = {
	.name = "bfs", .summary = "breadth-first search, frontier queue, one launch per level",
	.kernels = kernels, .nkernels = 1, .source = aos_cl_bfs,
	.footprint = footprint, .setup = setup, .execute = execute, .verify = verify, .teardown = teardown,
};
