/* histo: saturating image histogram. medium is Parboil's shape (996x1040
 * image, 256x4096 bins, 20 iterations); small is 512x512 into 256x256 bins.
 * Pixel values follow Parboil's skew: a dense bell around the centre
 * plus a few hot bins that saturate at 255. */
#include "aos_bench.h"
#include "aos_rng.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char aos_cl_histo[];
static const char *const kernels[] = { "histo_prescan_kernel", "histo_intermediates_kernel",
				       "histo_main_kernel", "histo_final_kernel" };
enum { K_PRESCAN, K_INTERM, K_MAIN, K_FINAL };

struct shape { int w, h, bins_w, bins_h, iters; };
static const struct shape shapes[AOS_SIZE_COUNT] = { { 512, 512, 256, 256, 4 }, { 996, 1040, 256, 4096, 20 } };

struct histo {
	int n, nbins, iters;
	uint32_t *img;
	cl_mem dimg, drange, dinterm, dhist, dout;
};

static void footprint(enum aos_size size, uint64_t *total, uint64_t *largest)
{
	const struct shape *s = &shapes[size];
	uint64_t n = (uint64_t)s->w * s->h, b = (uint64_t)s->bins_w * s->bins_h;
	*largest = 4 * (n > b ? n : b);
	*total = 8 * n + 5 * b;
}

static int setup(struct aos_bench_run *r)
{
	struct histo *h = calloc(1, sizeof(*h));
	struct aos_rng rng;
	if (!h)
		return -ENOMEM;
	r->state = h;
	const struct shape *s = &shapes[r->size];
	h->n = s->w * s->h;
	h->nbins = s->bins_w * s->bins_h;
	h->iters = s->iters;
	h->img = malloc(h->n * sizeof(uint32_t));
	if (!h->img)
		return -ENOMEM;
	aos_rng_seed(&rng, r->seed);
	int centre = h->nbins / 2, spread = h->nbins / 32;
	for (int i = 0; i < h->n; i++) {
		int v;
		if (aos_rng_below(&rng, 10) == 0) {
			v = centre + 3 * spread + (int)aos_rng_below(&rng, 64);
		} else {
			/* Sum of four uniforms: a cheap, deterministic bell curve. */
			float g = aos_rng_unit(&rng) + aos_rng_unit(&rng) + aos_rng_unit(&rng) + aos_rng_unit(&rng) - 2.0f;
			v = centre + (int)(g * spread);
		}
		if (v < 0) v = 0;
		if (v >= h->nbins) v = h->nbins - 1;
		h->img[i] = (uint32_t)v;
	}
	h->dimg = aos_bench_buffer(r, h->n * 4, h->img);
	h->drange = aos_bench_buffer(r, 8, NULL);
	h->dinterm = aos_bench_buffer(r, h->n * 4, NULL);
	h->dhist = aos_bench_buffer(r, h->nbins * 4, NULL);
	h->dout = aos_bench_buffer(r, h->nbins, NULL);
	return 0;
}

static int execute(struct aos_bench_run *r)
{
	struct histo *h = r->state;
	size_t local = 256, gstride = 64 * 256;
	size_t gn = aos_round_up(h->n, local), gb = aos_round_up(h->nbins, local);
	const uint32_t range_init[2] = { 0xffffffffu, 0 };

	aos_bench_arg_mem(r, K_PRESCAN, 0, h->dimg);
	aos_bench_arg(r, K_PRESCAN, 1, sizeof(int), &h->n);
	aos_bench_arg_mem(r, K_PRESCAN, 2, h->drange);
	aos_bench_arg_mem(r, K_INTERM, 0, h->dimg);
	aos_bench_arg(r, K_INTERM, 1, sizeof(int), &h->n);
	aos_bench_arg_mem(r, K_INTERM, 2, h->drange);
	aos_bench_arg_mem(r, K_INTERM, 3, h->dinterm);
	aos_bench_arg_mem(r, K_MAIN, 0, h->dinterm);
	aos_bench_arg(r, K_MAIN, 1, sizeof(int), &h->n);
	aos_bench_arg_mem(r, K_MAIN, 2, h->drange);
	aos_bench_arg_mem(r, K_MAIN, 3, h->dhist);
	aos_bench_arg(r, K_MAIN, 4, sizeof(int), &h->nbins);
	aos_bench_arg_mem(r, K_FINAL, 0, h->dhist);
	aos_bench_arg(r, K_FINAL, 1, sizeof(int), &h->nbins);
	aos_bench_arg_mem(r, K_FINAL, 2, h->dout);
	for (int it = 0; it < h->iters; it++) {
		aos_bench_write(r, h->drange, sizeof(range_init), range_init);
		aos_bench_zero(r, h->dhist, h->nbins * 4);
		aos_bench_launch(r, K_PRESCAN, 1, &gstride, &local);
		aos_bench_launch(r, K_INTERM, 1, &gn, &local);
		aos_bench_launch(r, K_MAIN, 1, &gstride, &local);
		aos_bench_launch(r, K_FINAL, 1, &gb, &local);
	}
	return 0;
}

static int verify(struct aos_bench_run *r)
{
	struct histo *h = r->state;
	uint32_t *count = calloc(h->nbins, 4);
	unsigned char *got = malloc(h->nbins);
	int rc = 0;
	if (!count || !got) {
		rc = -ENOMEM;
		goto out;
	}
	aos_bench_read(r, h->dout, h->nbins, got);
	for (int i = 0; i < h->n; i++)
		count[h->img[i]]++;
	for (int b = 0; b < h->nbins; b++) {
		unsigned want = count[b] > 255 ? 255 : count[b];
		if (got[b] != want) {
			snprintf(r->msg, sizeof(r->msg), "bin %d = %u, reference %u", b, got[b], want);
			rc = -EDOM;
			break;
		}
	}
out:
	free(count);
	free(got);
	return rc;
}

static void teardown(struct aos_bench_run *r)
{
	struct histo *h = r->state;
	if (h)
		free(h->img);
	free(h);
}

const struct aos_bench_desc aos_bench_histo = {
	.name = "histo", .summary = "saturating histogram: prescan, intermediates, main, final",
	.kernels = kernels, .nkernels = 4, .source = aos_cl_histo,
	.footprint = footprint, .setup = setup, .execute = execute, .verify = verify, .teardown = teardown,
};
