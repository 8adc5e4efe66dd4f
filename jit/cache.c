/*
 * Persistent content-addressed cache of JIT results.
 *
 * Key: SHA-256 over accelOS version, compiler salt (pass revision and the
 * runtime library's hash), target, sm, build options and source, each
 * NUL-separated. Entry: <dir>/<key[0..1]>/<key>.aosjit, written to a
 * temporary file in the same directory and renamed, so readers never see a
 * partial entry and concurrent writers of the same key are harmless.
 * Format: "accelos-jit-cache 1\n", "kernels N\n", N lines
 * "name rewritten chunk inst_count runtime_args reason...\n",
 * "binary SIZE\n", then SIZE raw bytes. Anything malformed is a miss.
 */
#include "jit_internal.h"
#include "sha256.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CACHE_MAGIC "accelos-jit-cache 1\n"

void aos_cache_key(const char *source, size_t len, const char *options,
		   enum aos_jit_target t, unsigned nv_sm, const char *salt, char key[65])
{
	struct aos_sha256 s;
	char sm[16];
	const char *parts[] = { "accelos " AOS_VERSION, salt ? salt : "", aos_jit_target_name(t),
				sm, options ? options : "" };
	snprintf(sm, sizeof(sm), "%u", nv_sm);
	aos_sha256_init(&s);
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		aos_sha256_update(&s, parts[i], strlen(parts[i]) + 1);
	aos_sha256_update(&s, source, len);
	aos_sha256_final_hex(&s, key);
}

int aos_cache_dir(const char *override, char *dir, size_t len)
{
	const char *env = getenv("ACCELOS_JIT_CACHE");
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	int n;
	if (override && *override)
		n = snprintf(dir, len, "%s", override);
	else if (env && *env)
		n = snprintf(dir, len, "%s", env);
	else if (xdg && *xdg)
		n = snprintf(dir, len, "%s/accelos/jit", xdg);
	else if (home && *home)
		n = snprintf(dir, len, "%s/.cache/accelos/jit", home);
	else
		return -ENOENT;
	return n < (int)len ? 0 : -ENAMETOOLONG;
}

static int mkdir_p(const char *path)
{
	char tmp[4096];
	if (snprintf(tmp, sizeof(tmp), "%s", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return mkdir(tmp, 0755) < 0 && errno != EEXIST ? -errno : 0;
}

static void entry_path(const char *dir, const char *key, char *path, size_t len, int subdir_only)
{
	if (subdir_only)
		snprintf(path, len, "%s/%.2s", dir, key);
	else
		snprintf(path, len, "%s/%.2s/%s.aosjit", dir, key, key);
}

static int parse_entry(uint8_t *data, size_t len, struct aos_jit_result *res)
{
	char *p = (char *)data, *end = (char *)data + len, *nl;
	size_t nk, size;
	if (len < strlen(CACHE_MAGIC) || memcmp(p, CACHE_MAGIC, strlen(CACHE_MAGIC)) != 0)
		return -EINVAL;
	p += strlen(CACHE_MAGIC);
	if (sscanf(p, "kernels %zu\n", &nk) != 1 || nk > 100000 || !(nl = memchr(p, '\n', end - p)))
		return -EINVAL;
	p = nl + 1;
	res->kernels = calloc(nk ? nk : 1, sizeof(*res->kernels));
	if (!res->kernels)
		return -ENOMEM;
	res->num_kernels = nk;
	for (size_t i = 0; i < nk; i++) {
		struct aos_jit_kernel *k = &res->kernels[i];
		char name[1024];
		int consumed = 0;
		if (!(nl = memchr(p, '\n', end - p)))
			return -EINVAL;
		*nl = '\0';
		if (sscanf(p, "%1023s %d %u %u %u %n", name, &k->rewritten, &k->chunk,
			   &k->inst_count, &k->runtime_args, &consumed) < 5)
			return -EINVAL;
		k->name = strdup(name);
		k->reason = k->rewritten ? NULL : strdup(p + consumed);
		p = nl + 1;
	}
	if (sscanf(p, "binary %zu\n", &size) != 1 || !(nl = memchr(p, '\n', end - p)))
		return -EINVAL;
	p = nl + 1;
	if ((size_t)(end - p) != size)
		return -EINVAL;
	res->binary = malloc(size + 1);
	if (!res->binary)
		return -ENOMEM;
	memcpy(res->binary, p, size);
	res->binary[size] = 0;
	res->binary_size = size;
	res->build_log = strdup("");
	res->from_cache = 1;
	return 0;
}

int aos_cache_load(const char *dir, const char *key, struct aos_jit_result **out)
{
	char path[4096];
	uint8_t *data;
	size_t len;
	*out = NULL;
	entry_path(dir, key, path, sizeof(path), 0);
	int rc = aos_file_read(path, &data, &len);
	if (rc)
		return rc;
	struct aos_jit_result *res = calloc(1, sizeof(*res));
	rc = res ? parse_entry(data, len, res) : -ENOMEM;
	free(data);
	if (rc) {
		aos_jit_result_destroy(res);
		return rc;
	}
	*out = res;
	return 0;
}

int aos_cache_store(const char *dir, const char *key, const struct aos_jit_result *res)
{
	char sub[4096], path[4096], tmp[4200];
	entry_path(dir, key, sub, sizeof(sub), 1);
	entry_path(dir, key, path, sizeof(path), 0);
	int rc = mkdir_p(sub);
	if (rc)
		return rc;
	snprintf(tmp, sizeof(tmp), "%s/.tmp-XXXXXX", sub);
	int fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	FILE *f = fdopen(fd, "wb");
	if (!f) {
		rc = -errno;
		close(fd);
		unlink(tmp);
		return rc;
	}
	fputs(CACHE_MAGIC, f);
	fprintf(f, "kernels %zu\n", res->num_kernels);
	for (size_t i = 0; i < res->num_kernels; i++) {
		const struct aos_jit_kernel *k = &res->kernels[i];
		fprintf(f, "%s %d %u %u %u %s\n", k->name, k->rewritten, k->chunk, k->inst_count,
			k->runtime_args, k->reason ? k->reason : "");
	}
	fprintf(f, "binary %zu\n", res->binary_size);
	fwrite(res->binary, 1, res->binary_size, f);
	if (ferror(f) | fclose(f)) {
		unlink(tmp);
		return -EIO;
	}
	if (rename(tmp, path) < 0) {
		rc = -errno;
		unlink(tmp);
		return rc;
	}
	return 0;
}
