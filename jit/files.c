/* Scratch directories, whole-file I/O and configured tool paths. */
#include "jit_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int aos_scratch_make(char *dir, size_t len)
{
	const char *tmp = getenv("TMPDIR");
	if (snprintf(dir, len, "%s/accelos-jit-XXXXXX", tmp && *tmp ? tmp : "/tmp") >= (int)len)
		return -ENAMETOOLONG;
	return mkdtemp(dir) ? 0 : -errno;
}

void aos_scratch_remove(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	char path[4096];
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

int aos_file_read(const char *path, uint8_t **data, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	*data = NULL;
	*len = 0;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		int err = -errno;
		close(fd);
		return err;
	}
	uint8_t *buf = malloc((size_t)st.st_size + 1);
	size_t got = 0;
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = 0; /* convenient for text files */
	*data = buf;
	*len = got;
	return 0;
}

int aos_file_write(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	const uint8_t *p = data;
	if (fd < 0)
		return -errno;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = -errno;
			close(fd);
			return err;
		}
		p += n;
		len -= (size_t)n;
	}
	return close(fd) < 0 ? -errno : 0;
}

static const char *env_or(const char *env, const char *dflt)
{
	const char *v = getenv(env);
	return v && *v ? v : dflt;
}

const char *aos_tool_clang(void)
{
	return env_or("ACCELOS_JIT_CLANG", AOS_JIT_CLANG);
}

const char *aos_tool_llvm_spirv(void)
{
	return env_or("ACCELOS_JIT_LLVM_SPIRV", AOS_JIT_LLVM_SPIRV);
}

/* The runtime library's directory holding `file`: $ACCELOS_RTLIB_DIR, else the build tree while
 * developing, else the installed copy. */
static const char *rtlib_file(const char *file, char *buf, size_t len)
{
	const char *dir = getenv("ACCELOS_RTLIB_DIR");
	if (dir && *dir) {
		snprintf(buf, len, "%s/%s", dir, file);
		return buf;
	}
	snprintf(buf, len, "%s/%s", AOS_JIT_RTLIB_DIR, file);
	if (access(buf, R_OK) == 0)
		return buf;
	snprintf(buf, len, "%s/%s", AOS_JIT_RTLIB_INSTALL_DIR, file);
	return buf;
}

const char *aos_rtlib_path(enum aos_jit_target t, char *buf, size_t len)
{
	return rtlib_file(t == AOS_JIT_TARGET_NVPTX64 ? "aos_rt-nvptx64-nvidia-nvcl.bc" : "aos_rt-spir64.bc",
			  buf, len);
}

const char *aos_libclc_path(enum aos_jit_target t, char *buf, size_t len, bool *sharded)
{
	struct stat st;
	*sharded = false;
	if (t != AOS_JIT_TARGET_NVPTX64)
		return NULL;
	const char *env = getenv("ACCELOS_LIBCLC_NVPTX");
	if (env && *env) {
		*sharded = stat(env, &st) == 0 && S_ISDIR(st.st_mode);
		return env;
	}
	/* The shards the build split libclc into (passes/clc_split.cpp), beside the runtime
	 * library; else the whole library. */
	if (access(rtlib_file(AOS_LIBCLC_SHARDS "/clc-00.bc", buf, len), R_OK) == 0) {
		rtlib_file(AOS_LIBCLC_SHARDS, buf, len);
		*sharded = true;
		return buf;
	}
	return AOS_JIT_LIBCLC_NVPTX;
}
