/*
 * sin and cos for NVPTX (included by aos_rt.cl on that target only, after nvptx_native_math.cl,
 * whose component-by-component vector forms it reuses): rtlib/aos_trig.h, within OpenCL's 4-ulp
 * bound, in place of libclc's slower versions. Linked before libclc like the native functions,
 * so a rewritten kernel and its unrewritten reference compute the same values.
 */
#include "aos_trig.h"

float OVERLOAD sin(float x) { return aos_trig_sin(x); }
float OVERLOAD cos(float x) { return aos_trig_cos(x); }
NATIVE_VECTORS_1(sin)
NATIVE_VECTORS_1(cos)

/* The built-in sincos, scalar, and the pair passes/sincos_fuse.cpp calls where a kernel takes
 * sin(x) and cos(x) of one x: one reduction instead of two. */
float OVERLOAD sincos(float x, private float *c) { return aos_trig_sincos(x, c); }
float OVERLOAD sincos(float x, global float *c) { float v; float s = aos_trig_sincos(x, &v); *c = v; return s; }
float OVERLOAD sincos(float x, local float *c) { float v; float s = aos_trig_sincos(x, &v); *c = v; return s; }
float2 aos_sincos_pair(float x)
{
	float c, s = aos_trig_sincos(x, &c);
	return (float2)(s, c);
}
