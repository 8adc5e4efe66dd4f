/* sad: full-search motion estimation SADs at 4x4, then combined to 8x8 /
 * 8x4 / 4x8 and 16x16 / 16x8 / 8x16 blocks, search range +-16 as in
 * Parboil. small: a QCIF frame (176x144); medium: a 1920x1072 frame. The
 * current frame is the reference shifted by a known motion plus noise. */
#include "aos_bench.h"
#include "aos_rng.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char aos_cl_sad[];
static const char *const kernels[] = { "mb_sad_calc", "larger_sad_calc_8", "larger_sad_calc_16" };
enum { K_SAD4, K_SAD8, K_SAD16 };

struct shape { int w, h, range; };
static const struct shape shapes[AOS_SIZE_COUNT] = { { 176, 144, 16 }, { 1920, 1072, 16 } };

struct sad {
	struct shape s;
	int nmb, S;
	unsigned char *cur, *ref;
	cl_mem dcur, dref, d4, d8, d16;
};

static void footprint(enum aos_size size, uint64_t *total, uint64_t *largest)
{
	const struct shape *s = &shapes[size];
	uint64_t nmb = (uint64_t)(s->w / 16) * (s->h / 16), S = (uint64_t)(2 * s->range + 1) * (2 * s->range + 1);
	*largest = 2 * 20 * nmb * S;
	*total = 2 * (16 + 20 + 5) * nmb * S + 2ull * s->w * s->h;
}

static int setup(struct aos_bench_run *r)
{
	struct sad *d = calloc(1, sizeof(*d));
	struct aos_rng rng;
	if (!d)
		return -ENOMEM;
	r->state = d;
	d->s = shapes[r->size];
	int w = d->s.w, h = d->s.h, side = 2 * d->s.range + 1;
	d->nmb = (w / 16) * (h / 16);
	d->S = side * side;
	d->cur = malloc((size_t)w * h);
	d->ref = malloc((size_t)w * h);
	if (!d->cur || !d->ref)
		return -ENOMEM;
	aos_rng_seed(&rng, r->seed);
	/* Smooth texture: random values on an 8-pixel lattice, bilinearly
	 * interpolated, so SAD surfaces have a real minimum. */
	int gw = w / 8 + 2, gh = h / 8 + 2;
	float *g = malloc(sizeof(float) * gw * gh);
	if (!g)
		return -ENOMEM;
	for (int i = 0; i < gw * gh; i++)
		g[i] = aos_rng_range(&rng, 0, 255);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			float fx = (x % 8) / 8.0f, fy = (y % 8) / 8.0f;
			int gx = x / 8, gy = y / 8;
			float v = (1 - fx) * (1 - fy) * g[gy * gw + gx] + fx * (1 - fy) * g[gy * gw + gx + 1] +
				  (1 - fx) * fy * g[(gy + 1) * gw + gx] + fx * fy * g[(gy + 1) * gw + gx + 1];
			d->ref[y * w + x] = (unsigned char)v;
		}
	free(g);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			int sx = x + 3 < w ? x + 3 : w - 1, sy = y - 2 >= 0 ? y - 2 : 0;
			int v = d->ref[sy * w + sx] + (int)aos_rng_below(&rng, 9) - 4;
			d->cur[y * w + x] = (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v);
		}
	d->dcur = aos_bench_buffer(r, (size_t)w * h, d->cur);
	d->dref = aos_bench_buffer(r, (size_t)w * h, d->ref);
	d->d4 = aos_bench_buffer(r, (size_t)2 * 16 * d->nmb * d->S, NULL);
	d->d8 = aos_bench_buffer(r, (size_t)2 * 20 * d->nmb * d->S, NULL);
	d->d16 = aos_bench_buffer(r, (size_t)2 * 5 * d->nmb * d->S, NULL);
	return 0;
}

static int execute(struct aos_bench_run *r)
{
	struct sad *d = r->state;
	size_t gs = aos_round_up(d->S, 64);
	size_t g4[3] = { gs, 16, (size_t)d->nmb }, l4[3] = { 64, 1, 1 };
	size_t g2[2] = { gs, (size_t)d->nmb }, l2[2] = { 64, 1 };
	aos_bench_arg_mem(r, K_SAD4, 0, d->d4);
	aos_bench_arg_mem(r, K_SAD4, 1, d->dcur);
	aos_bench_arg_mem(r, K_SAD4, 2, d->dref);
	aos_bench_arg(r, K_SAD4, 3, sizeof(int), &d->s.w);
	aos_bench_arg(r, K_SAD4, 4, sizeof(int), &d->s.h);
	aos_bench_arg(r, K_SAD4, 5, sizeof(int), &d->s.range);
	aos_bench_launch(r, K_SAD4, 3, g4, l4);
	aos_bench_arg_mem(r, K_SAD8, 0, d->d4);
	aos_bench_arg_mem(r, K_SAD8, 1, d->d8);
	aos_bench_arg(r, K_SAD8, 2, sizeof(int), &d->S);
	aos_bench_launch(r, K_SAD8, 2, g2, l2);
	aos_bench_arg_mem(r, K_SAD16, 0, d->d8);
	aos_bench_arg_mem(r, K_SAD16, 1, d->d16);
	aos_bench_arg(r, K_SAD16, 2, sizeof(int), &d->S);
	aos_bench_launch(r, K_SAD16, 2, g2, l2);
	return 0;
}

static unsigned cpu_sad4(const struct sad *d, int mb, int blk, int pos)
{
	int w = d->s.w, h = d->s.h, side = 2 * d->s.range + 1, mbw = w / 16;
	int x0 = (mb % mbw) * 16 + (blk % 4) * 4, y0 = (mb / mbw) * 16 + (blk / 4) * 4;
	int dx = pos % side - d->s.range, dy = pos / side - d->s.range;
	unsigned sum = 0;
	for (int y = 0; y < 4; y++)
		for (int x = 0; x < 4; x++) {
			int rx = x0 + x + dx, ry = y0 + y + dy;
			rx = rx < 0 ? 0 : rx >= w ? w - 1 : rx;
			ry = ry < 0 ? 0 : ry >= h ? h - 1 : ry;
			int diff = (int)d->cur[(y0 + y) * w + x0 + x] - (int)d->ref[ry * w + rx];
			sum += (unsigned)(diff < 0 ? -diff : diff);
		}
	return sum;
}

static int verify(struct aos_bench_run *r)
{
	struct sad *d = r->state;
	size_t n8 = (size_t)20 * d->nmb * d->S, n16 = (size_t)5 * d->nmb * d->S;
	unsigned short *s8 = malloc(n8 * 2), *s16 = malloc(n16 * 2);
	int rc = 0;
	if (!s8 || !s16) {
		rc = -ENOMEM;
		goto out;
	}
	aos_bench_read(r, d->d8, n8 * 2, s8);
	aos_bench_read(r, d->d16, n16 * 2, s16);
	for (int mb = 0; mb < d->nmb && rc == 0; mb++)
		for (int pos = 0; pos < d->S; pos++) {
			unsigned b[16], want8[20], want16[5];
			for (int i = 0; i < 16; i++)
				b[i] = cpu_sad4(d, mb, i, pos);
			for (int q = 0; q < 4; q++) {
				int bx = (q % 2) * 2, by = (q / 2) * 2;
				want8[q] = b[by * 4 + bx] + b[by * 4 + bx + 1] + b[(by + 1) * 4 + bx] + b[(by + 1) * 4 + bx + 1];
			}
			for (int by = 0; by < 4; by++)
				for (int qx = 0; qx < 2; qx++)
					want8[4 + by * 2 + qx] = b[by * 4 + 2 * qx] + b[by * 4 + 2 * qx + 1];
			for (int qy = 0; qy < 2; qy++)
				for (int bx = 0; bx < 4; bx++)
					want8[12 + qy * 4 + bx] = b[2 * qy * 4 + bx] + b[(2 * qy + 1) * 4 + bx];
			want16[0] = want8[0] + want8[1] + want8[2] + want8[3];
			want16[1] = want8[0] + want8[1];
			want16[2] = want8[2] + want8[3];
			want16[3] = want8[0] + want8[2];
			want16[4] = want8[1] + want8[3];
			for (int s = 0; s < 20; s++)
				if (s8[((size_t)mb * 20 + s) * d->S + pos] != want8[s]) {
					snprintf(r->msg, sizeof(r->msg), "mb %d pos %d 8-slot %d = %u, reference %u", mb, pos, s,
						 s8[((size_t)mb * 20 + s) * d->S + pos], want8[s]);
					rc = -EDOM;
				}
			for (int s = 0; s < 5; s++)
				if (s16[((size_t)mb * 5 + s) * d->S + pos] != want16[s]) {
					snprintf(r->msg, sizeof(r->msg), "mb %d pos %d 16-slot %d = %u, reference %u", mb, pos, s,
						 s16[((size_t)mb * 5 + s) * d->S + pos], want16[s]);
					rc = -EDOM;
				}
			if (rc)
				break;
		}
out:
	free(s8);
	free(s16);
	return rc;
}

static void teardown(struct aos_bench_run *r)
{
	struct sad *d = r->state;
	if (!d)
		return;
	free(d->cur);
	free(d->ref);
	free(d);
}

const struct aos_bench_desc aos_bench_sad = {
	.name = "sad", .summary = "motion-estimation SADs: 4x4, then 8x8 and 16x16 combinations",
	.kernels = kernels, .nkernels = 3, .source = aos_cl_sad,
	.footprint = footprint, .setup = setup, .execute = execute, .verify = verify, .teardown = teardown,
};
