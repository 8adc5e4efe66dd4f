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
