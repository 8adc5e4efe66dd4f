/* Internal interfaces between the JIT's modules (not installed). */
#ifndef AOS_JIT_INTERNAL_H
#define AOS_JIT_INTERNAL_H

#include "accelos/jit.h"
#include "worker.h"

#include <llvm-c/Core.h>
#include <stdbool.h>
#include <sys/types.h>

/* Clang triple of a target (SPIR-V is produced from spir64). */
const char *aos_target_triple(enum aos_jit_target t);

/* Scratch directory for one compile; removed with aos_scratch_remove(). */
int aos_scratch_make(char *dir, size_t len);
void aos_scratch_remove(const char *dir);
int aos_file_read(const char *path, uint8_t **data, size_t *len);
int aos_file_write(const char *path, const void *data, size_t len);

/* Splits and checks clBuildProgram options. Returns 0 or -EINVAL with a
 * native-style message in *log. *argv is a NULL-terminated malloc'd array. */
int aos_build_options_parse(const char *options, char ***argv, int *argc, char **log);
void aos_build_options_free(char **argv);

/* Runs clang in the worker: OpenCL C -> LLVM bitcode for `t`. On success
 * *module is parsed into `ctx`. *log always set (malloc'd). */
int aos_frontend_compile(const char *source, size_t len, const char *options,
			 enum aos_jit_target t, const struct aos_worker_limits *lim,
			 LLVMContextRef ctx, LLVMModuleRef *module, char **log);

/* The newest sm_XX that LLVM 15's NVPTX back end knows; NVIDIA's driver
 * JIT-compiles its PTX for newer GPUs (an H100 reports 90). */
#define AOS_JIT_NVPTX_MAX_SM 80u

/* Turns a rewritten module into the bytes the target's driver loads.
 * -ENOSYS: the module calls functions the target cannot provide (*log names
 * them); the program has to be built natively. */
int aos_emit(LLVMModuleRef module, enum aos_jit_target t, unsigned nv_sm,
	     const struct aos_worker_limits *lim, uint8_t **bin, size_t *len, char **log);

/* Persistent cache. Key is 64 hex chars + NUL; `salt` identifies the
 * compiler side (accelOS version, pass revision, runtime library). */
void aos_cache_key(const char *source, size_t len, const char *options,
		   enum aos_jit_target t, unsigned nv_sm, const char *salt, char key[65]);
int aos_cache_dir(const char *override, char *dir, size_t len);
int aos_cache_load(const char *dir, const char *key, struct aos_jit_result **out);
int aos_cache_store(const char *dir, const char *key, const struct aos_jit_result *res);

/* Paths configured at build time, overridable by environment for installs. */
const char *aos_tool_clang(void);
/* accelos-clang-zygote: $ACCELOS_JIT_ZYGOTE ("none": no zygote), else the build tree's, else the
 * installed one; NULL when there is none. */
const char *aos_tool_zygote(void);
/* Asks the zygote (started at the first call) to fork a child running argv: its stdout and
 * stderr to out_w, its wait status (int32) written to status_w when it ends. 0 and *pid, or
 * negative errno (no zygote to serve: -ENOSYS). jit/zygote.c. */
int aos_zygote_spawn(char *const argv[], const struct aos_worker_limits *lim, int out_w, int status_w,
		     pid_t *pid);
/* The zygote this process started, or -1 (for tests). */
pid_t aos_zygote_pid(void);
const char *aos_tool_llvm_spirv(void);
const char *aos_rtlib_path(enum aos_jit_target t, char *buf, size_t len);
/* libclc for targets that link it (NULL for others): $ACCELOS_LIBCLC_NVPTX (a bitcode file, or a
 * directory of shards), else the build's shards beside the runtime library, else the configured
 * file. *sharded says which kind the path names. */
#define AOS_LIBCLC_SHARDS "clc-nvptx64"
const char *aos_libclc_path(enum aos_jit_target t, char *buf, size_t len, bool *sharded);

#endif
