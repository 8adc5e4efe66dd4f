/*
 * Emission per target: SPIR bitcode (in process), PTX (rtlib's native math and
 * libclc linked, NVPTX back end in process), SPIR-V (llvm-spirv-15 in the worker, since the
 * translator is a separate tool).
 */
#include "jit_internal.h"

#include "aos_passes.h"

#include <errno.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int copy_buffer(LLVMMemoryBufferRef mb, uint8_t **bin, size_t *len)
{
	size_t n = LLVMGetBufferSize(mb);
	*bin = malloc(n + 1);
	if (!*bin)
		return -ENOMEM;
	memcpy(*bin, LLVMGetBufferStart(mb), n);
	(*bin)[n] = 0;
	*len = n;
	return 0;
}

static int emit_bitcode(LLVMModuleRef m, uint8_t **bin, size_t *len)
{
	LLVMMemoryBufferRef mb = LLVMWriteBitcodeToMemoryBuffer(m);
	if (!mb)
		return -EIO;
	int rc = copy_buffer(mb, bin, len);
	LLVMDisposeMemoryBuffer(mb);
	return rc;
}

static pthread_once_t nvptx_once = PTHREAD_ONCE_INIT;

static void nvptx_init(void)
{
	LLVMInitializeNVPTXTargetInfo();
	LLVMInitializeNVPTXTarget();
	LLVMInitializeNVPTXTargetMC();
	LLVMInitializeNVPTXAsmPrinter();
}

/* Functions still called but defined nowhere once libclc is in: PTX would name them as
 * externs, and the driver refuses the module (images and printf, say: libclc has no PTX for
 * them). Returns -ENOSYS with their names in *log, or 0. */
static bool is_unresolved(LLVMValueRef f)
{
	return LLVMIsDeclaration(f) && !LLVMGetIntrinsicID(f) && LLVMGetFirstUse(f);
}

static int check_unresolved(LLVMModuleRef m, char **log)
{
	static const char head[] = "the nvptx64 target has no implementation of:";
	size_t cap = sizeof(head) + 1, n = 0;
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		if (is_unresolved(f)) {
			size_t len;
			cap += strlen(LLVMGetValueName2(f, &len)) + 1;
			n++;
		}
	if (n == 0)
		return 0;
	char *msg = malloc(cap);
	if (!msg)
		return -ENOMEM;
	strcpy(msg, head);
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		if (is_unresolved(f)) {
			size_t len;
			strcat(msg, " ");
			strcat(msg, LLVMGetValueName2(f, &len));
		}
	*log = msg;
	return -ENOSYS;
}

static int emit_ptx(LLVMModuleRef m, unsigned nv_sm, uint8_t **bin, size_t *len, char **log)
{
	char *err = NULL, cpu[16];
	LLVMTargetRef target;
	char rtlib[4096], libclc[4096];
	bool sharded;
	/* rtlib first: its native_* math (rtlib/nvptx_native_math.cl) must win over libclc's, in
	 * rewritten and unrewritten modules alike; the rewrite has linked the rest already. */
	int rc = aos_passes_link_library(m, aos_rtlib_path(AOS_JIT_TARGET_NVPTX64, rtlib, sizeof(rtlib)), 0, &err);
	const char *clc = aos_libclc_path(AOS_JIT_TARGET_NVPTX64, libclc, sizeof(libclc), &sharded);
	if (rc == 0)
		rc = (sharded ? aos_passes_link_library_shards : aos_passes_link_library)(
			m, clc, AOS_LINK_NVPTX_TABLES_TO_GLOBAL, &err);
	if (rc) {
		*log = err ? err : strdup("error: cannot link rtlib or libclc\n");
		return rc;
	}
	if ((rc = check_unresolved(m, log)) != 0)
		return rc;
	pthread_once(&nvptx_once, nvptx_init);
	if (LLVMGetTargetFromTriple(LLVMGetTarget(m), &target, &err)) {
		*log = err;
		return -ENOTSUP;
	}
	snprintf(cpu, sizeof(cpu), "sm_%u", nv_sm); /* aos_jit_compile() bounded it */
	LLVMTargetMachineRef tm = LLVMCreateTargetMachine(target, LLVMGetTarget(m), cpu, "",
							  LLVMCodeGenLevelDefault, LLVMRelocDefault,
							  LLVMCodeModelDefault);
	/* libclc arrives after the rewrite's optimisation: without this, every get_local_id,
	 * min, atomic and barrier stays a PTX call (on an H100, vec_add's loop kernel ran at
	 * 0.56x native so, 0.84x inlined): special registers and single instructions. */
	LLVMPassBuilderOptionsRef pbo = LLVMCreatePassBuilderOptions();
	LLVMErrorRef perr = LLVMRunPasses(m, "default<O2>", tm, pbo);
	LLVMDisposePassBuilderOptions(pbo);
	/* Then the small loops NVIDIA's compiler would unroll (passes/nvptx_unroll.cpp). */
	if (!perr && aos_passes_nvptx_unroll(m, tm) < 0)
		perr = LLVMCreateStringError("error: unrolling the PTX module's loops failed");
	if (perr) {
		char *msg = LLVMGetErrorMessage(perr);
		*log = strdup(msg ? msg : "error: optimising the PTX module failed");
		LLVMDisposeErrorMessage(msg);
		LLVMDisposeTargetMachine(tm);
		return -EIO;
	}
	LLVMMemoryBufferRef mb;
	rc = LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMAssemblyFile, &err, &mb) ? -EIO : 0;
	LLVMDisposeTargetMachine(tm);
	if (rc) {
		*log = err;
		return rc;
	}
	rc = copy_buffer(mb, bin, len);
	LLVMDisposeMemoryBuffer(mb);
	return rc;
}

static int emit_spirv(LLVMModuleRef m, const struct aos_worker_limits *lim, uint8_t **bin,
		      size_t *len, char **log)
{
	char dir[256], in[300], out[300];
	uint8_t *bc;
	size_t bclen;
	int rc = aos_scratch_make(dir, sizeof(dir));
	if (rc)
		return rc;
	snprintf(in, sizeof(in), "%s/module.bc", dir);
	snprintf(out, sizeof(out), "%s/module.spv", dir);
	aos_passes_strip_freeze(m);
	aos_passes_recompose_rem(m);
	rc = emit_bitcode(m, &bc, &bclen);
	if (!rc) {
		rc = aos_file_write(in, bc, bclen);
		free(bc);
	}
	if (!rc) {
		char *argv[] = { (char *)aos_tool_llvm_spirv(), in, "-o", out, NULL };
		rc = aos_worker_run(argv, lim, log);
	}
	if (!rc)
		rc = aos_file_read(out, bin, len);
	aos_scratch_remove(dir);
	return rc;
}

int aos_emit(LLVMModuleRef module, enum aos_jit_target t, unsigned nv_sm,
	     const struct aos_worker_limits *lim, uint8_t **bin, size_t *len, char **log)
{
	*log = NULL;
	switch (t) {
	case AOS_JIT_TARGET_SPIR64:
		aos_passes_recompose_rem(module);
		return emit_bitcode(module, bin, len);
	case AOS_JIT_TARGET_NVPTX64:
		return emit_ptx(module, nv_sm, bin, len, log);
	case AOS_JIT_TARGET_SPIRV:
		return emit_spirv(module, lim, bin, len, log);
	default:
		return -ENOTSUP;
	}
}
