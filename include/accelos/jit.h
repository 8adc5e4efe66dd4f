/*
 * accelOS JIT: compile OpenCL C to a module whose kernels run as persistent
 * work-group loops over a virtual NDRange (accelos/vndrange.h), for one target.
 *
 * The scheduler calls aos_jit_compile() where the application called
 * clBuildProgram: same source, same build options. The result carries the
 * module bytes to hand to clCreateProgramWithBinary / WithIL, and, per kernel,
 * whether it was rewritten (and its compiled chunk) or why not.
 *
 * Ownership: aos_jit_compile() returns a result the caller frees with
 * aos_jit_result_destroy(), also when the return value is an error (then the
 * result, if non-NULL, holds the build log).
 */
#ifndef ACCELOS_JIT_H
#define ACCELOS_JIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum aos_jit_target {
	AOS_JIT_TARGET_NONE = 0,   /* device needs native build (non-elastic) */
	AOS_JIT_TARGET_SPIR64 = 1, /* SPIR 1.2 LLVM bitcode: PoCL, cl_khr_spir */
	AOS_JIT_TARGET_NVPTX64 = 2,/* PTX text for NVIDIA (nvptx64-nvidia-nvcl) */
	AOS_JIT_TARGET_SPIRV = 3,  /* SPIR-V via llvm-spirv: cl_khr_il_program */
};

/* What the device reports (strings from clGetDeviceInfo; NULL = unknown). */
struct aos_jit_device_desc {
	const char *vendor;      /* CL_DEVICE_VENDOR */
	const char *extensions;  /* CL_DEVICE_EXTENSIONS */
	const char *il_version;  /* CL_DEVICE_IL_VERSION */
	unsigned nv_sm;          /* NVIDIA compute capability * 10 (e.g. 80), 0 = unknown */
};

/* Picks the target from the device table (jit/target.c). */
enum aos_jit_target aos_jit_target_for_device(const struct aos_jit_device_desc *dev);
const char *aos_jit_target_name(enum aos_jit_target t);
/* Whether the rewrite can emit the direct shape (accelos/vndrange.h) for t: every target
 * (aos_jit_options.no_direct leaves it out). */
bool aos_jit_target_has_direct(enum aos_jit_target t);
/* Parses "spir64", "nvptx64", "spirv"; AOS_JIT_TARGET_NONE if unknown. */
enum aos_jit_target aos_jit_target_parse(const char *name);

struct aos_jit_options {
	enum aos_jit_target target;
	const char *build_options; /* as given to clBuildProgram; NULL = none */
	unsigned nv_sm;            /* PTX only: sm_XX (0 = 80) */
	int no_cache;              /* 1: neither read nor write the cache */
	int no_rewrite;            /* 1: compile and emit only, no rewrite: the reference
				    * the diff tester needs where the native compiler is
				    * another one (NVIDIA's) */
	int no_direct;             /* 1: the scheduling kernels only, no direct twins
				    * (accelos/vndrange.h): for a device that runs the loop
				    * shape (a GPU by default), whose build of the module
				    * then takes half the time */
	const char *cache_dir;     /* NULL: $ACCELOS_JIT_CACHE or $XDG_CACHE_HOME/accelos/jit */
	unsigned wall_ms;          /* worker wall timeout (0 = 60000) */
	unsigned cpu_seconds;      /* worker RLIMIT_CPU (0 = 60) */
	uint64_t address_space;    /* worker RLIMIT_AS bytes (0 = 4 GiB) */
};

struct aos_jit_kernel {
	char *name;
	int rewritten;              /* 1: takes one extra trailing arg (the record) */
	unsigned chunk;             /* compiled virtual groups per dequeue */
	unsigned inst_count;        /* IR size the chunk was chosen from */
	unsigned runtime_args;      /* arguments appended after the original ones */
	char *reason;               /* why it was left native; NULL when rewritten */
};

struct aos_jit_result {
	uint8_t *binary;            /* module bytes (bitcode, PTX text or SPIR-V) */
	size_t binary_size;
	char *build_log;            /* NUL-terminated, possibly empty */
	struct aos_jit_kernel *kernels;
	size_t num_kernels;
	int from_cache;             /* 1: served from the persistent cache */
};

/*
 * Compiles and rewrites `source`. Returns 0, or:
 *   -ENOEXEC   build failure (CL_BUILD_PROGRAM_FAILURE): see (*out)->build_log
 *   -EINVAL    invalid build options (CL_INVALID_BUILD_OPTIONS) or arguments
 *   -ETIMEDOUT / -ECANCELED  the compiler worker timed out / crashed (log says)
 *   -ENOTSUP   target not supported
 *   other negative errno for resource errors.
 */
int aos_jit_compile(const char *source, size_t source_len, const struct aos_jit_options *opt,
		    struct aos_jit_result **out);
void aos_jit_result_destroy(struct aos_jit_result *res);

/* Name of the OpenCL error an aos_jit_compile() return value stands for
 * ("CL_SUCCESS", "CL_BUILD_PROGRAM_FAILURE", "CL_INVALID_BUILD_OPTIONS", ...).
 * This is the one place the JIT's errno values map to OpenCL semantics. */
const char *aos_jit_cl_error_name(int rc);

/* Looks a kernel up by name in a result; NULL if absent. */
const struct aos_jit_kernel *aos_jit_result_kernel(const struct aos_jit_result *res,
						    const char *name);

/* Innermost loops of the kernels a CPU device compiles in this process start at 32-byte
 * boundaries unless configured otherwise. With LLVM's own 16 bytes a loop's speed depends on where
 * the code before it happens to end: gridding_GPU's 54-byte loop ran at 0.75x when it straddled
 * three 32-byte fetch windows (docs/jit.md, *Loop placement*). */
#define AOS_JIT_HOST_LOOP_ALIGN_DEFAULT 32u
#define AOS_JIT_HOST_LOOP_ALIGN_MIN 16u
#define AOS_JIT_HOST_LOOP_ALIGN_MAX 128u

/* Sets the x86 code generation of every OpenCL implementation that compiles with this process's
 * LLVM 15 (PoCL's CPU device shares it): innermost loops start at `bytes` boundaries; 0 keeps
 * LLVM's own. Call it at start-up, before anything is built: LLVM's options are process-wide and
 * not thread-safe. Returns 0, -EINVAL (neither 0 nor a power of two from _MIN to _MAX) or
 * -ENOENT (this LLVM has no such option). */
int aos_jit_set_host_loop_align(unsigned bytes);

#ifdef __cplusplus
}
#endif
#endif
