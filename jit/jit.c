/*
 * aos_jit_compile: cache lookup -> front end (worker) -> rewrite + rtlib ->
 * emission -> cache store. Each step lives in its own file; this one only
 * orders them and owns the result object.
 */
#include "jit_internal.h"

#include "aos_passes.h"
#include "sha256.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AOS_JIT_MAX_SOURCE (16u << 20)

void aos_jit_result_destroy(struct aos_jit_result *res)
{
	if (!res)
		return;
	for (size_t i = 0; i < res->num_kernels; i++) {
		free(res->kernels[i].name);
		free(res->kernels[i].reason);
	}
	free(res->kernels);
	free(res->binary);
	free(res->build_log);
	free(res);
}

const struct aos_jit_kernel *aos_jit_result_kernel(const struct aos_jit_result *res,
						    const char *name)
{
	for (size_t i = 0; res && i < res->num_kernels; i++)
		if (strcmp(res->kernels[i].name, name) == 0)
			return &res->kernels[i];
	return NULL;
}

int aos_jit_set_host_loop_align(unsigned bytes)
{
	return aos_passes_set_host_loop_align(bytes);
}

const char *aos_jit_cl_error_name(int rc)
{
	switch (rc) {
	case 0:
		return "CL_SUCCESS";
	case -EINVAL:
		return "CL_INVALID_BUILD_OPTIONS";
	case -ENOMEM:
		return "CL_OUT_OF_HOST_MEMORY";
	case -ENOTSUP:
		return "CL_INVALID_DEVICE";
	default: /* -ENOEXEC, -ETIMEDOUT, -ECANCELED, -E2BIG, I/O errors */
		return "CL_BUILD_PROGRAM_FAILURE";
	}
}

static int collect_kernels(LLVMModuleRef m, struct aos_jit_result *res)
{
	struct aos_kernel_result *kr;
	int n = aos_kernel_results_read(m, &kr);
	if (n < 0)
		return n;
	res->kernels = calloc(n ? (size_t)n : 1, sizeof(*res->kernels));
	if (!res->kernels) {
		aos_kernel_results_free(kr, n);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		struct aos_jit_kernel *k = &res->kernels[i];
		k->name = kr[i].name;
		k->reason = kr[i].reason;
		kr[i].name = kr[i].reason = NULL;
		k->rewritten = kr[i].rewritten;
		k->chunk = kr[i].chunk;
		k->inst_count = kr[i].inst_count;
		k->runtime_args = k->rewritten ? 1 : 0;
	}
	res->num_kernels = (size_t)n;
	aos_kernel_results_free(kr, n);
	return 0;
}

/* The target cannot run this program's code (aos_emit -ENOSYS): no module, and every kernel
 * left native with `why`, so callers build the program natively, as for any non-elastic
 * kernel. Not an error: the application's program is fine. */
static int leave_all_native(struct aos_jit_result *res, const char *why)
{
	free(res->binary);
	res->binary = NULL;
	res->binary_size = 0;
	for (size_t i = 0; i < res->num_kernels; i++) {
		struct aos_jit_kernel *k = &res->kernels[i];
		char *r = strdup(why ? why : "the target cannot run this program");
		if (!r)
			return -ENOMEM;
		free(k->reason);
		k->reason = r;
		k->rewritten = 0;
		k->chunk = 0;
		k->runtime_args = 0;
	}
	return 0;
}

static void log_append(struct aos_jit_result *res, const char *msg)
{
	size_t a = res->build_log ? strlen(res->build_log) : 0;
	char *p = realloc(res->build_log, a + strlen(msg) + 1);
	if (!p)
		return;
	memcpy(p + a, msg, strlen(msg) + 1);
	res->build_log = p;
}

static int compile_uncached(const char *source, size_t len, const struct aos_jit_options *opt,
			    const struct aos_worker_limits *lim, struct aos_jit_result *res)
{
	LLVMContextRef ctx = LLVMContextCreate();
	LLVMModuleRef m = NULL;
	char *log = NULL, *err = NULL, rtlib[4096];
	int rc = aos_frontend_compile(source, len, opt->build_options, opt->target, lim, ctx, &m,
				      &log);
	res->build_log = log ? log : strdup("");
	if (rc)
		goto out;
	/* Before the rewrite links rtlib, which defines the pair. */
	if (opt->target == AOS_JIT_TARGET_NVPTX64)
		aos_passes_fuse_sincos(m);
	rc = opt->no_rewrite ? 0
			     : aos_passes_rewrite(m, aos_rtlib_path(opt->target, rtlib, sizeof(rtlib)),
						  opt->no_direct ? AOS_REWRITE_NO_DIRECT : 0, &err);
	if (rc) {
		log_append(res, "error: accelOS rewrite failed: ");
		log_append(res, err ? err : "unknown error");
		log_append(res, "\n");
		free(err);
		rc = -ENOEXEC;
		goto out;
	}
	rc = collect_kernels(m, res);
	if (rc)
		goto out;
	rc = aos_emit(m, opt->target, opt->nv_sm, lim, &res->binary, &res->binary_size, &err);
	if (rc == -ENOSYS)
		rc = leave_all_native(res, err);
	else if (rc) {
		log_append(res, "error: accelOS code emission failed\n");
		if (err)
			log_append(res, err);
	}
	free(err);
out:
	if (m)
		LLVMDisposeModule(m);
	LLVMContextDispose(ctx);
	return rc;
}

/* Cache salt: pass revision + hash of the target's runtime library, so a
 * rebuilt compiler side never serves stale modules. */
static void compiler_salt(enum aos_jit_target t, char *salt, size_t len)
{
	char path[4096], hex[65] = "no-rtlib";
	uint8_t *data;
	size_t n;
	if (aos_file_read(aos_rtlib_path(t, path, sizeof(path)), &data, &n) == 0) {
		struct aos_sha256 s;
		aos_sha256_init(&s);
		aos_sha256_update(&s, data, n);
		aos_sha256_final_hex(&s, hex);
		free(data);
	}
	snprintf(salt, len, "passes %s rtlib %s", AOS_PASSES_REVISION, hex);
}

int aos_jit_compile(const char *source, size_t source_len, const struct aos_jit_options *opt,
		    struct aos_jit_result **out)
{
	char key[65], dir[4096];
	int rc, use_cache;
	*out = NULL;
	if (!source || !opt)
		return -EINVAL;
	if (opt->target == AOS_JIT_TARGET_NONE || opt->target > AOS_JIT_TARGET_SPIRV)
		return -ENOTSUP;
	/* One sm per PTX module the back end can write: the cache key sees the bounded value. */
	struct aos_jit_options bounded = *opt;
	if (opt->target == AOS_JIT_TARGET_NVPTX64 &&
	    (opt->nv_sm == 0 || opt->nv_sm > AOS_JIT_NVPTX_MAX_SM))
		bounded.nv_sm = AOS_JIT_NVPTX_MAX_SM;
	opt = &bounded;

	use_cache = !opt->no_cache && aos_cache_dir(opt->cache_dir, dir, sizeof(dir)) == 0;
	if (use_cache) {
		char salt[128];
		compiler_salt(opt->target, salt, sizeof(salt));
		if (opt->no_rewrite)
			strncat(salt, " no-rewrite", sizeof(salt) - strlen(salt) - 1);
		else if (opt->no_direct)
			strncat(salt, " no-direct", sizeof(salt) - strlen(salt) - 1);
		aos_cache_key(source, source_len, opt->build_options, opt->target, opt->nv_sm, salt,
			      key);
		if (aos_cache_load(dir, key, out) == 0)
			return 0;
	}

	struct aos_jit_result *res = calloc(1, sizeof(*res));
	if (!res)
		return -ENOMEM;
	*out = res;
	if (source_len > AOS_JIT_MAX_SOURCE) {
		res->build_log = strdup("error: program source exceeds the 16 MiB limit\n");
		return -E2BIG;
	}
	struct aos_worker_limits lim = {
		.wall_ms = opt->wall_ms ? opt->wall_ms : 60000,
		.cpu_seconds = opt->cpu_seconds ? opt->cpu_seconds : 60,
		.address_space = opt->address_space ? opt->address_space : (4ull << 30),
	};
	rc = compile_uncached(source, source_len, opt, &lim, res);
	/* A program left native is not kept: the cache holds modules. */
	if (rc == 0 && use_cache && res->binary_size)
		aos_cache_store(dir, key, res); /* a cache write failure is not fatal */
	return rc;
}
