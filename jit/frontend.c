/*
 * OpenCL C -> LLVM bitcode by running clang-15 in the worker process. The
 * source is written to a scratch file named program.cl and the scratch path
 * is stripped from the diagnostics, so the log reads like a native build log
 * ("program.cl:3:5: error: ...").
 */
#include "jit_internal.h"

#include <errno.h>
#include <llvm-c/BitReader.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *aos_target_triple(enum aos_jit_target t)
{
	return t == AOS_JIT_TARGET_NVPTX64 ? "nvptx64-nvidia-nvcl" : "spir64";
}

/* Removes every occurrence of `prefix` from the NUL-terminated log. */
static void strip_prefix(char *log, const char *prefix)
{
	size_t n = strlen(prefix);
	char *p;
	while (log && (p = strstr(log, prefix)))
		memmove(p, p + n, strlen(p + n) + 1);
}

static int has_option(char **opts, const char *prefix)
{
	for (char **o = opts; *o; o++)
		if (strncmp(*o, prefix, strlen(prefix)) == 0)
			return 1;
	return 0;
}

int aos_frontend_compile(const char *source, size_t len, const char *options,
			 enum aos_jit_target t, const struct aos_worker_limits *lim,
			 LLVMContextRef ctx, LLVMModuleRef *module, char **log)
{
	char dir[256], src[300], out[300], prefix[300];
	char **opts = NULL;
	int nopts = 0, rc;
	*module = NULL;
	*log = NULL;

	rc = aos_build_options_parse(options, &opts, &nopts, log);
	if (rc)
		return rc;
	rc = aos_scratch_make(dir, sizeof(dir));
	if (rc) {
		aos_build_options_free(opts);
		*log = strdup("error: cannot create scratch directory\n");
		return rc;
	}
	snprintf(src, sizeof(src), "%s/program.cl", dir);
	snprintf(out, sizeof(out), "%s/program.bc", dir);
	snprintf(prefix, sizeof(prefix), "%s/", dir);
	rc = aos_file_write(src, source, len);
	if (rc)
		goto out;

	const char *fixed[] = {
		aos_tool_clang(), "-x", "cl", "-target", aos_target_triple(t), "-emit-llvm", "-c",
		"-cl-kernel-arg-info", "-fno-color-diagnostics", "-o", out, src,
	};
	size_t nfixed = sizeof(fixed) / sizeof(fixed[0]);
	char **argv = calloc(nfixed + (size_t)nopts + 7, sizeof(*argv));
	if (!argv) {
		rc = -ENOMEM;
		goto out;
	}
	size_t a = 0;
	for (size_t i = 0; i < nfixed; i++)
		argv[a++] = (char *)fixed[i];
	if (!has_option(opts, "-cl-std="))
		argv[a++] = "-cl-std=CL1.2";
	if (!has_option(opts, "-O") && !has_option(opts, "-cl-opt-disable"))
		argv[a++] = "-O2";
	for (int i = 0; i < nopts; i++)
		argv[a++] = opts[i];
	/* Vectorizing is the device compiler's job: clang's SLP vectorizer turns scalar work-item
	 * code into vector instructions, and PoCL's loop vectorizer then refuses the work-item loops
	 * that contain them. Last, because a later -O level turns them back on. */
	argv[a++] = "-fno-slp-vectorize";
	argv[a++] = "-fno-vectorize";
	/* No unrolling either, on SPIR, as PoCL's own front end (its loops arrive marked
	 * llvm.loop.unroll.disable): PoCL vectorizes a small inner loop, but not its unrolled
	 * copies (Parboil's mb_sad_calc, direct shape 0.69x -> 0.94x native; bench/RESULTS.md §3).
	 * The rewrite unrolls some inner loops itself (passes/inner_loop_unroll.cpp). NVPTX keeps
	 * clang's unrolling: not measured on a GPU yet. */
	if (t != AOS_JIT_TARGET_NVPTX64)
		argv[a++] = "-fno-unroll-loops";
	argv[a] = NULL;

	rc = aos_worker_run_clang(argv, lim, log);
	free(argv);
	strip_prefix(*log, prefix);
	if (rc)
		goto out;

	LLVMMemoryBufferRef buf;
	char *msg = NULL;
	if (LLVMCreateMemoryBufferWithContentsOfFile(out, &buf, &msg)) {
		LLVMDisposeMessage(msg);
		rc = -EIO;
		goto out;
	}
	if (LLVMParseBitcodeInContext2(ctx, buf, module)) {
		*module = NULL;
		rc = -EIO;
	}
	LLVMDisposeMemoryBuffer(buf);
out:
	aos_scratch_remove(dir);
	aos_build_options_free(opts);
	return rc;
}
