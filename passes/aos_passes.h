/*
 * C interface to the accelOS kernel rewrite (LLVM new pass manager).
 *
 * aos_passes_rewrite() turns every kernel of `module` into a scheduling kernel
 * over a virtual NDRange (docs/jit.md), links the runtime library bitcode at
 * `rtlib_path` into the module and inlines it. Kernels that cannot be
 * rewritten safely are left unchanged; the reason is recorded.
 */
#ifndef AOS_PASSES_H
#define AOS_PASSES_H

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Name of the named metadata the rewrite records its per-kernel results in:
 * !{!"name", i32 rewritten, i32 chunk, i32 inst_count, !"reason"}. */
#define AOS_PASSES_RESULT_MD "accelos.kernels"

/* Bump whenever the JIT's output changes (passes or front-end flags); part of
 * the JIT cache key. */
#define AOS_PASSES_REVISION "23"

struct aos_kernel_result {
	char *name;          /* kernel name (malloc'd) */
	int rewritten;       /* 1: scheduling kernel, 0: left native */
	unsigned chunk;      /* adaptive chunk compiled in (rewritten only) */
	unsigned inst_count; /* IR instructions the chunk was chosen from */
	char *reason;        /* why not rewritten (malloc'd), NULL if rewritten */
};

/* aos_passes_rewrite flags. */
enum {
	/* Only the scheduling kernels, no direct twins (accelos/vndrange.h): for devices that
	 * run the loop shape, which then build half the code. */
	AOS_REWRITE_NO_DIRECT = 1,
};

/* Rewrites the kernels, links and inlines rtlib. Returns 0 or negative errno;
 * on error *err_msg (malloc'd, may be NULL) says why. Module stays owned by
 * the caller. */
int aos_passes_rewrite(LLVMModuleRef module, const char *rtlib_path, unsigned flags, char **err_msg);

/* aos_passes_link_library flags. */
enum {
	/* NVPTX: constant arrays the library brings in (libclc's math tables, read
	 * with an index per work-item) move from the constant to the global address
	 * space (passes/library_tables.cpp). */
	AOS_LINK_NVPTX_TABLES_TO_GLOBAL = 1,
};

/* Links the bitcode library at `path` (only what the module needs, e.g.
 * libclc for PTX), makes every non-kernel function internal and drops the
 * unused ones. Returns 0 or negative errno (*err_msg as above). */
int aos_passes_link_library(LLVMModuleRef module, const char *path, unsigned flags, char **err_msg);

/* The same for a library split at build time (aos-clc-split, passes/clc_shards.h): links the
 * shards of `dir` that define a function the module calls; same result, less to read. */
int aos_passes_link_library_shards(LLVMModuleRef module, const char *dir, unsigned flags, char **err_msg);

/* PTX, after the optimisation pipeline: unrolls by 2 or 4 the innermost loops with a small body
 * and a constant trip count that count divides (passes/nvptx_unroll.cpp). Returns how many loops
 * it unrolled or negative errno. */
int aos_passes_nvptx_unroll(LLVMModuleRef module, LLVMTargetMachineRef tm);

/* PTX, before rtlib is linked: a scalar sin(x) and cos(x) of one x in one block become one call
 * to rtlib's aos_sincos_pair (passes/sincos_fuse.cpp). Returns how many pairs, or negative errno. */
int aos_passes_fuse_sincos(LLVMModuleRef module);

/* SPIR, last: every X - (X / Y) * Y becomes X % Y again, as the source had it (clang's -O2
 * splits such remainders for targets with no divide-and-remainder instruction; PoCL's x86 code
 * then kept the multiply; passes/rem_recompose.cpp). Returns how many, or negative errno. */
int aos_passes_recompose_rem(LLVMModuleRef module);

/* Replaces `freeze` instructions by their operand, for llvm-spirv-15 which
 * cannot translate them. Returns the number removed. */
int aos_passes_strip_freeze(LLVMModuleRef module);

/* x86 code generation in this process, hence PoCL's for its CPU device, which shares this LLVM:
 * innermost loops start at `bytes` boundaries (passes/host_codegen.cpp). 0 changes nothing.
 * Returns 0, -EINVAL (not a power of two from AOS_JIT_HOST_LOOP_ALIGN_MIN to _MAX,
 * accelos/jit.h) or -ENOENT (this LLVM lacks the option).
 * Call it before anything compiles: LLVM's options are not thread-safe. */
int aos_passes_set_host_loop_align(unsigned bytes);

/* Reads the per-kernel results recorded in `module`. *out is malloc'd; free
 * with aos_kernel_results_free(). Returns the count or negative errno. */
int aos_kernel_results_read(LLVMModuleRef module, struct aos_kernel_result **out);
void aos_kernel_results_free(struct aos_kernel_result *res, int count);

#ifdef __cplusplus
}
#endif
#endif
