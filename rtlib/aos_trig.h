/*
 * Single-precision sin and cos within OpenCL's 4-ulp bound, for targets whose library versions
 * are slow: on an H200, mri-q's ComputeQ ran at 0.43x NVIDIA's own build with libclc's, the
 * whole loss in its sin and cos. Written once for OpenCL C (rtlib, NVPTX) and C (the host
 * unit test, tests/jit/test_trig.c), so the test checks the code the device runs.
 *
 * x = j * pi/2 + r with |r| <= pi/4 (a little more where x * 2/pi rounds), then a polynomial
 * for sin or cos of r by the quadrant j mod 4.
 *  - |x| <= AOS_TRIG_FAST_MAX: j = rint(x * 2/pi); pi/2 in three floats, each product taken off
 *    with one fma. For j < 2^17 the first two fmas are exact, so r keeps its precision even
 *    when x is close to a multiple of pi/2.
 *  - larger: x is an integer m (24 bits) times 2^e; the 96 bits of 2/pi that decide x * 2/pi
 *    mod 4 are multiplied by m in integers, the fraction turned into r in double. Rare, and
 *    branch-free in the fast path's lanes.
 * The polynomials are Chebyshev fits on |r| <= 1.01 pi/4 (fit errors 3e-11 and 4e-13).
 */
#ifndef ACCELOS_RTLIB_TRIG_H
#define ACCELOS_RTLIB_TRIG_H

#ifdef __OPENCL_C_VERSION__
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef uint aos_trig_u32;
typedef ulong aos_trig_u64;
typedef long aos_trig_i64;
#define AOS_TRIG_FMA(a, b, c) fma((a), (b), (c))
#define AOS_TRIG_RINT(x) rint(x)
#define AOS_TRIG_BITS(x) as_uint(x)
#define AOS_TRIG_STATIC static
#define AOS_TRIG_TABLE constant
#else
#include <math.h>
#include <stdint.h>
#include <string.h>
typedef uint32_t aos_trig_u32;
typedef uint64_t aos_trig_u64;
typedef int64_t aos_trig_i64;
#define AOS_TRIG_FMA(a, b, c) fmaf((a), (b), (c))
#define AOS_TRIG_RINT(x) rintf(x)
#define AOS_TRIG_STATIC static inline
#define AOS_TRIG_TABLE
static inline aos_trig_u32 aos_trig_bits(float x)
{
	aos_trig_u32 u;
	memcpy(&u, &x, sizeof(u));
	return u;
}
#define AOS_TRIG_BITS(x) aos_trig_bits(x)
#endif

/* Beyond this the three-float pi/2 loses bits to j; the integer reduction takes over. */
#define AOS_TRIG_FAST_MAX 105615.0f

/* 2/pi after the binary point, 32 bits a word: enough for the largest float's exponent. */
static AOS_TRIG_TABLE const aos_trig_u32 aos_trig_two_over_pi[8] = {
	0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u, 0xdb629599u, 0x3c439041u, 0xfe5163abu, 0xdebbc561u,
};

/* |x| (finite, > AOS_TRIG_FAST_MAX) as j * pi/2 + r: returns r, j mod 4 in *quadrant. */
AOS_TRIG_STATIC float aos_trig_reduce_large(float ax, int *quadrant)
{
	aos_trig_u32 bits = AOS_TRIG_BITS(ax);
	aos_trig_u64 m = (bits & 0x7fffffu) | 0x800000u;
	int e = (int)(bits >> 23) - 127 - 23; /* ax = m * 2^e, e >= -7 here */
	/* Bits of 2/pi with weight 2^-i for i <= e - 2 give multiples of 4: start at bit e - 1. */
	int first = e - 1 > 1 ? e - 1 : 1;
	int word = (first - 1) / 32, shift = (first - 1) % 32;
	aos_trig_u32 w[3];
	for (int k = 0; k < 3; k++) {
		aos_trig_u64 pair = ((aos_trig_u64)aos_trig_two_over_pi[word + k] << 32) | aos_trig_two_over_pi[word + k + 1];
		w[k] = (aos_trig_u32)(pair >> (32 - shift));
	}
	/* m * (w0 w1 w2), 120 bits, as hi:lo. */
	aos_trig_u64 p2 = m * w[2], p1 = m * w[1], p0 = m * w[0];
	aos_trig_u64 t = p1 + (p2 >> 32);
	aos_trig_u64 hi = p0 + (t >> 32);
	aos_trig_u64 lo = (t << 32) | (p2 & 0xffffffffu);
	/* The binary point sits below bit `point` of the product; move it to bit 64. */
	int point = first + 95 - e;
	int s = point - 64; /* 30..39 */
	aos_trig_u64 frac = (lo >> s) | (hi << (64 - s));
	aos_trig_u64 whole = hi >> s;
	/* A fraction of a half or more rounds j up and leaves r negative. */
	*quadrant = (int)((whole + (frac >> 63)) & 3u);
	double r = (double)(aos_trig_i64)frac * 0x1.0p-64 * 1.5707963267948966;
	return (float)r;
}

/* x as j * pi/2 + r: returns r, j mod 4 in *quadrant. x finite. */
AOS_TRIG_STATIC float aos_trig_reduce(float x, int *quadrant)
{
	float ax = x < 0.0f ? -x : x;
	if (ax > AOS_TRIG_FAST_MAX) {
		float r = aos_trig_reduce_large(ax, quadrant);
		if (x < 0.0f) {
			*quadrant = (4 - *quadrant) & 3;
			r = -r;
		}
		return r;
	}
	float j = AOS_TRIG_RINT(x * 0x1.45f306p-1f);
	float r = AOS_TRIG_FMA(-j, 0x1.921fb6p+0f, x);
	r = AOS_TRIG_FMA(-j, -0x1.777a5cp-25f, r);
	r = AOS_TRIG_FMA(-j, -0x1.ee59dap-50f, r);
	*quadrant = (int)j & 3;
	return r;
}

AOS_TRIG_STATIC float aos_trig_sin_poly(float r)
{
	float s = r * r;
	float p = AOS_TRIG_FMA(AOS_TRIG_FMA(AOS_TRIG_FMA(0x1.6da8ecp-19f, s, -0x1.a01366p-13f), s, 0x1.11110ep-7f), s,
			       -0x1.555556p-3f);
	return AOS_TRIG_FMA(r * s, p, r);
}

AOS_TRIG_STATIC float aos_trig_cos_poly(float r)
{
	float s = r * r;
	float p = AOS_TRIG_FMA(AOS_TRIG_FMA(AOS_TRIG_FMA(AOS_TRIG_FMA(-0x1.24634ap-22f, s, 0x1.a0124cp-16f), s,
						       -0x1.6c16bap-10f),
					    s, 0x1.555556p-5f),
			       s, -0.5f);
	return AOS_TRIG_FMA(s, p, 1.0f);
}

/* Below this sin(x) rounds to x (and sin(-0) must stay -0, which the reduction would lose). */
#define AOS_TRIG_SIN_TINY 0x1.0p-12f

/* sin(x), and cos(x) in *cos_out, from one reduction. Both polynomials are evaluated and the
 * quadrant selects, without a branch: on a GPU the lanes of a warp fall in different quadrants,
 * and a branch would run both sides anyway. */
AOS_TRIG_STATIC float aos_trig_sincos(float x, float *cos_out)
{
	if (!(x - x == 0.0f)) { /* inf or NaN */
		*cos_out = x - x;
		return x - x;
	}
	int q;
	float r = aos_trig_reduce(x, &q);
	float sp = aos_trig_sin_poly(r), cp = aos_trig_cos_poly(r);
	float s = (q & 1) ? cp : sp, c = (q & 1) ? sp : cp;
	*cos_out = ((q + 1) & 2) ? -c : c;
	s = (q & 2) ? -s : s;
	return (x < 0.0f ? -x : x) < AOS_TRIG_SIN_TINY ? x : s;
}

/* One of the pair: the other's polynomial is still needed for the branch-free quadrant. */
AOS_TRIG_STATIC float aos_trig_sin(float x)
{
	float c;
	return aos_trig_sincos(x, &c);
}

AOS_TRIG_STATIC float aos_trig_cos(float x)
{
	float c;
	aos_trig_sincos(x, &c);
	return c;
}

#endif
