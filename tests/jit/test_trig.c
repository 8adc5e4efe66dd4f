/* The runtime library's sin and cos for NVPTX (rtlib/aos_trig.h), compiled for the host: every
 * result within OpenCL's 4-ulp bound of the double-precision value, over a sweep of the fast
 * reduction's range, the integer reduction's range up to FLT_MAX, the floats nearest multiples of
 * pi/2 (where the reduction cancels), and the special values. */
#include <check.h>
#include "check_run.h"
#include <float.h>
#include <math.h>
#include <stdio.h>

#include "aos_trig.h"

/* OpenCL's bound for sin and cos in single precision. */
#define BOUND_ULP 4.0

static float from_bits(uint32_t u)
{
	float f;
	memcpy(&f, &u, sizeof(f));
	return f;
}

/* |got - want| in units of the last place of want rounded to float. */
static double ulp_error(float got, double want)
{
	int e;
	frexp(want, &e);
	double ulp = ldexp(1.0, (e - 1) - 23);
	if (ulp < ldexp(1.0, -149))
		ulp = ldexp(1.0, -149);
	return fabs((double)got - want) / ulp;
}

struct worst {
	double ulp;
	float x;
};

static void check_at(float x, struct worst *ws, struct worst *wc)
{
	double es = ulp_error(aos_trig_sin(x), sin((double)x));
	double ec = ulp_error(aos_trig_cos(x), cos((double)x));
	if (es > ws->ulp)
		*ws = (struct worst){es, x};
	if (ec > wc->ulp)
		*wc = (struct worst){ec, x};
}

static void assert_within(const char *what, const struct worst *ws, const struct worst *wc)
{
	fprintf(stderr, "%s: sin %.3f ulp at %a, cos %.3f ulp at %a\n", what, ws->ulp, (double)ws->x, wc->ulp,
		(double)wc->x);
	ck_assert_msg(ws->ulp <= BOUND_ULP, "%s: sin(%a) off by %.2f ulp", what, (double)ws->x, ws->ulp);
	ck_assert_msg(wc->ulp <= BOUND_ULP, "%s: cos(%a) off by %.2f ulp", what, (double)wc->x, wc->ulp);
}

START_TEST(test_fast_range_sweep)
{
	struct worst ws = {0}, wc = {0};
	uint32_t top;
	float fast_max = AOS_TRIG_FAST_MAX;
	memcpy(&top, &fast_max, sizeof(top));
	for (uint32_t u = 0; u <= top; u += 127) {
		check_at(from_bits(u), &ws, &wc);
		check_at(-from_bits(u + 64), &ws, &wc);
	}
	assert_within("|x| <= fast max", &ws, &wc);
}
END_TEST

START_TEST(test_large_range_sweep)
{
	struct worst ws = {0}, wc = {0};
	float fast_max = AOS_TRIG_FAST_MAX;
	uint32_t bottom;
	memcpy(&bottom, &fast_max, sizeof(bottom));
	for (uint32_t u = bottom + 1; u < 0x7f800000u; u += 1021) {
		check_at(from_bits(u), &ws, &wc);
		check_at(-from_bits(u + 7), &ws, &wc);
	}
	check_at(FLT_MAX, &ws, &wc);
	check_at(-FLT_MAX, &ws, &wc);
	assert_within("|x| > fast max", &ws, &wc);
}
END_TEST

/* The floats around k pi/2 leave the smallest r: a reduction that loses bits shows there. */
START_TEST(test_near_multiples_of_half_pi)
{
	struct worst ws = {0}, wc = {0};
	for (int k = 1; k < 2000000; k += (k < 5000 ? 1 : 97)) {
		float x = (float)(k * 1.5707963267948966);
		for (int step = -3; step <= 3; step++) {
			float y = nextafterf(x, step < 0 ? 0.0f : INFINITY);
			for (int s = 1; s < (step < 0 ? -step : step); s++)
				y = nextafterf(y, step < 0 ? 0.0f : INFINITY);
			check_at(step ? y : x, &ws, &wc);
		}
	}
	assert_within("near k pi/2", &ws, &wc);
}
END_TEST

START_TEST(test_special_values)
{
	ck_assert(isnan(aos_trig_sin(INFINITY)) && isnan(aos_trig_cos(-INFINITY)));
	ck_assert(isnan(aos_trig_sin(NAN)) && isnan(aos_trig_cos(NAN)));
	ck_assert(aos_trig_sin(-0.0f) == 0.0f && signbit(aos_trig_sin(-0.0f)));
	ck_assert(aos_trig_sin(0.0f) == 0.0f && !signbit(aos_trig_sin(0.0f)));
	ck_assert(aos_trig_cos(0.0f) == 1.0f && aos_trig_cos(-0.0f) == 1.0f);
	ck_assert(aos_trig_sin(FLT_TRUE_MIN) == FLT_TRUE_MIN);
	ck_assert(aos_trig_cos(FLT_TRUE_MIN) == 1.0f);
	/* A quadrant per sign: sin is odd, cos even, everywhere. */
	for (float x = 0.1f; x < 1e30f; x *= 3.7f) {
		ck_assert_msg(aos_trig_sin(-x) == -aos_trig_sin(x), "sin(-%a)", (double)x);
		ck_assert_msg(aos_trig_cos(-x) == aos_trig_cos(x), "cos(-%a)", (double)x);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("trig");
	TCase *tc = tcase_create("trig");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_fast_range_sweep);
	tcase_add_test(tc, test_large_range_sweep);
	tcase_add_test(tc, test_near_multiples_of_half_pi);
	tcase_add_test(tc, test_special_values);
	suite_add_tcase(s, tc);
	return aos_check_run(s);
}
