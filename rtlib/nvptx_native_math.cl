/*
 * native_* math for NVPTX (included by aos_rt.cl on that target only).
 *
 * OpenCL leaves the accuracy of native_* to the implementation so that they can be the
 * hardware's approximations. libclc's PTX builds them from the precise functions: on an H200
 * nbody_lite's native_rsqrt became sqrt.rn + rcp.rn and the kernel ran at 0.35x NVIDIA's own
 * build even unrewritten. These map each to the PTX .approx instruction NVIDIA uses. The PTX
 * emitter links this library before libclc, with or without the rewrite, so a rewritten
 * kernel and its unrewritten reference (accelos-jit diff) compute the same values.
 */
#define LOG2_E 1.44269504088896340736f
#define LN_2 0.693147180559945309417f
#define LOG2_10 3.32192809488736234787f
#define LOG10_2 0.301029995663981195214f

#define OVERLOAD __attribute__((overloadable))

/* Vector forms, component by component, from the scalar one. */
#define NATIVE_VECTORS_1(name)                                                                   \
	float2 OVERLOAD name(float2 x) { return (float2)(name(x.x), name(x.y)); }               \
	float3 OVERLOAD name(float3 x) { return (float3)(name(x.x), name(x.y), name(x.z)); }    \
	float4 OVERLOAD name(float4 x) { return (float4)(name(x.lo), name(x.hi)); }             \
	float8 OVERLOAD name(float8 x) { return (float8)(name(x.lo), name(x.hi)); }             \
	float16 OVERLOAD name(float16 x) { return (float16)(name(x.lo), name(x.hi)); }
#define NATIVE_VECTORS_2(name)                                                                   \
	float2 OVERLOAD name(float2 x, float2 y) { return (float2)(name(x.x, y.x), name(x.y, y.y)); } \
	float3 OVERLOAD name(float3 x, float3 y)                                                 \
	{                                                                                        \
		return (float3)(name(x.x, y.x), name(x.y, y.y), name(x.z, y.z));                  \
	}                                                                                        \
	float4 OVERLOAD name(float4 x, float4 y) { return (float4)(name(x.lo, y.lo), name(x.hi, y.hi)); } \
	float8 OVERLOAD name(float8 x, float8 y) { return (float8)(name(x.lo, y.lo), name(x.hi, y.hi)); } \
	float16 OVERLOAD name(float16 x, float16 y) { return (float16)(name(x.lo, y.lo), name(x.hi, y.hi)); }

#define NATIVE_1(name, expr)                  \
	float OVERLOAD name(float x) { return expr; } \
	NATIVE_VECTORS_1(name)
#define NATIVE_2(name, expr)                           \
	float OVERLOAD name(float x, float y) { return expr; } \
	NATIVE_VECTORS_2(name)

NATIVE_1(native_rsqrt, __nvvm_rsqrt_approx_f(x))
NATIVE_1(native_sqrt, __nvvm_sqrt_approx_f(x))
NATIVE_1(native_recip, __nvvm_div_approx_f(1.0f, x))
NATIVE_1(native_sin, __nvvm_sin_approx_f(x))
NATIVE_1(native_cos, __nvvm_cos_approx_f(x))
NATIVE_1(native_tan, __nvvm_div_approx_f(__nvvm_sin_approx_f(x), __nvvm_cos_approx_f(x)))
NATIVE_1(native_exp2, __nvvm_ex2_approx_f(x))
NATIVE_1(native_exp, __nvvm_ex2_approx_f(x * LOG2_E))
NATIVE_1(native_exp10, __nvvm_ex2_approx_f(x * LOG2_10))
NATIVE_1(native_log2, __nvvm_lg2_approx_f(x))
NATIVE_1(native_log, __nvvm_lg2_approx_f(x) * LN_2)
NATIVE_1(native_log10, __nvvm_lg2_approx_f(x) * LOG10_2)
NATIVE_2(native_divide, __nvvm_div_approx_f(x, y))
NATIVE_2(native_powr, __nvvm_ex2_approx_f(y * __nvvm_lg2_approx_f(x)))
