/* accelos-clang-zygote and the JIT's use of it: same modules, restarts, fallback, bad requests. */
#include "accelos/jit.h"
#include "jit_internal.h"
#include "zygote_protocol.h"
#include "accelos/sock.h"
#include "check_run.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *src = "kernel void k(global int *o) { o[get_global_id(0)] = (int)get_group_id(0) * 3; }\n";

static struct aos_jit_result *compile_spir(void)
{
	struct aos_jit_options o = { .target = AOS_JIT_TARGET_SPIR64, .no_cache = 1 };
	struct aos_jit_result *r = NULL;
	ck_assert_int_eq(aos_jit_compile(src, strlen(src), &o, &r), 0);
	ck_assert_uint_gt(r->binary_size, 0);
	return r;
}

/* Compiles run in the zygote's children, and a zygote that dies is replaced at the next compile. */
START_TEST(compiles_run_in_the_zygote_and_survive_its_death)
{
	unsetenv("ACCELOS_JIT_ZYGOTE");
	ck_assert_ptr_nonnull(aos_tool_zygote());
	struct aos_jit_result *r = compile_spir();
	pid_t first = aos_zygote_pid();
	ck_assert_int_gt(first, 0);
	char exe[64], target[4096];
	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)first);
	ssize_t n = readlink(exe, target, sizeof(target) - 1);
	ck_assert_int_gt(n, 0);
	target[n] = '\0';
	ck_assert_ptr_nonnull(strstr(target, "accelos-clang-zygote"));
	aos_jit_result_destroy(r);

	ck_assert_int_eq(kill(first, SIGKILL), 0);
	r = compile_spir();
	ck_assert_int_gt(aos_zygote_pid(), 0);
	ck_assert_int_ne(aos_zygote_pid(), first);
	aos_jit_result_destroy(r);
}
END_TEST

/* A hung zygote (stopped here) is replaced after a bounded wait, not waited for. */
START_TEST(hung_zygote_is_replaced)
{
	unsetenv("ACCELOS_JIT_ZYGOTE");
	aos_jit_result_destroy(compile_spir());
	pid_t first = aos_zygote_pid();
	ck_assert_int_gt(first, 0);
	ck_assert_int_eq(kill(first, SIGSTOP), 0);
	aos_jit_result_destroy(compile_spir());
	ck_assert_int_gt(aos_zygote_pid(), 0);
	ck_assert_int_ne(aos_zygote_pid(), first);
	ck_assert_int_eq(kill(first, 0), -1); /* killed and reaped */
}
END_TEST

/* A child forked after the parent's first compile starts a zygote of its own, and the parent's
 * keeps serving the parent. */
START_TEST(forked_child_starts_its_own_zygote)
{
	unsetenv("ACCELOS_JIT_ZYGOTE");
	aos_jit_result_destroy(compile_spir());
	pid_t parents = aos_zygote_pid();
	ck_assert_int_gt(parents, 0);
	pid_t c = fork();
	ck_assert_int_ge(c, 0);
	if (c == 0) {
		struct aos_jit_options o = { .target = AOS_JIT_TARGET_SPIR64, .no_cache = 1 };
		struct aos_jit_result *r = NULL;
		int ok = aos_jit_compile(src, strlen(src), &o, &r) == 0 && aos_zygote_pid() > 0 &&
			 aos_zygote_pid() != parents;
		_exit(ok ? 0 : 1);
	}
	int st;
	ck_assert_int_eq(waitpid(c, &st, 0), c);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	aos_jit_result_destroy(compile_spir());
	ck_assert_int_eq(aos_zygote_pid(), parents);
}
END_TEST

/* The zygote's module is the one clang-15 started per compile gives (bar the scratch file's
 * name, which differs between any two compiles). */
START_TEST(zygote_module_equals_clang_started_per_compile)
{
	unsetenv("ACCELOS_JIT_ZYGOTE");
	struct aos_jit_result *a = compile_spir();
	ck_assert_int_gt(aos_zygote_pid(), 0);
	setenv("ACCELOS_JIT_ZYGOTE", "none", 1);
	struct aos_jit_result *b = compile_spir();
	unsetenv("ACCELOS_JIT_ZYGOTE");
	ck_assert_uint_eq(a->binary_size, b->binary_size);
	ck_assert_uint_eq(a->num_kernels, b->num_kernels);
	ck_assert_str_eq(a->kernels[0].name, b->kernels[0].name);
	ck_assert_uint_eq(a->kernels[0].chunk, b->kernels[0].chunk);
	aos_jit_result_destroy(a);
	aos_jit_result_destroy(b);
}
END_TEST

/* No zygote to start: clang is started per compile, and the build log says nothing of it. */
START_TEST(missing_zygote_falls_back_to_clang)
{
	setenv("ACCELOS_JIT_ZYGOTE", "/nonexistent/accelos-clang-zygote", 1);
	struct aos_jit_result *r = compile_spir();
	ck_assert_int_eq(aos_zygote_pid(), -1);
	ck_assert_ptr_null(strstr(r->build_log, "error"));
	aos_jit_result_destroy(r);
	unsetenv("ACCELOS_JIT_ZYGOTE");
}
END_TEST

/* Diagnostics come back from the zygote's child as from clang itself. */
START_TEST(diagnostics_through_the_zygote)
{
	unsetenv("ACCELOS_JIT_ZYGOTE");
	const char *bad = "kernel void k(global int *o) { o[0] = undeclared; }\n";
	struct aos_jit_options o = { .target = AOS_JIT_TARGET_SPIR64, .no_cache = 1 };
	struct aos_jit_result *r = NULL;
	ck_assert_int_eq(aos_jit_compile(bad, strlen(bad), &o, &r), -ENOEXEC);
	ck_assert_int_gt(aos_zygote_pid(), 0);
	ck_assert_ptr_nonnull(strstr(r->build_log, "program.cl:1:39: error: use of undeclared identifier 'undeclared'"));
	aos_jit_result_destroy(r);
}
END_TEST

static pid_t start_zygote(int *sock)
{
	int sv[2];
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		dup2(sv[1], AOS_ZYGOTE_FD);
		execl(aos_tool_zygote(), "accelos-clang-zygote", (char *)NULL);
		_exit(127);
	}
	close(sv[1]);
	*sock = sv[0];
	return pid;
}

static int32_t send_request(int sock, const void *msg, size_t len, int fd_a, int fd_b)
{
	int fds[2] = { fd_a, fd_b };
	ck_assert_int_eq(aos_sock_send_fds(sock, msg, len, fds, fd_a >= 0 ? 2 : 0), 0);
	int32_t reply = 0;
	ck_assert_int_eq(recv(sock, &reply, sizeof(reply), 0), (ssize_t)sizeof(reply));
	return reply;
}

/* Requests a hostile or broken caller could send are refused, and the zygote serves on. */
START_TEST(zygote_refuses_bad_requests_and_serves_on)
{
	unsetenv("ACCELOS_JIT_ZYGOTE");
	int sock, out[2], st[2];
	pid_t z = start_zygote(&sock);
	ck_assert_int_eq(pipe(out), 0);
	ck_assert_int_eq(pipe(st), 0);
	char msg[sizeof(struct aos_zygote_request) + 64];
	struct aos_zygote_request req = { .magic = AOS_ZYGOTE_MAGIC, .argc = 2 };
	const char args[] = "/usr/bin/true\0--version"; /* two strings, the last NUL included */
	memcpy(msg, &req, sizeof(req));
	memcpy(msg + sizeof(req), args, sizeof(args));
	size_t good_len = sizeof(req) + sizeof(args);

	ck_assert_int_eq(send_request(sock, msg, good_len, -1, -1), -EINVAL);      /* no pipes */
	/* One descriptor only: refused, and the zygote keeps no copy of it (the pipe then reads
	 * end of file once ours is closed). */
	int lone[2];
	ck_assert_int_eq(pipe(lone), 0);
	ck_assert_int_eq(aos_sock_send_fds(sock, msg, good_len, &lone[1], 1), 0);
	int32_t refused = 0;
	ck_assert_int_eq(recv(sock, &refused, sizeof(refused), 0), (ssize_t)sizeof(refused));
	ck_assert_int_eq(refused, -EINVAL);
	close(lone[1]);
	char byte;
	ck_assert_int_eq(read(lone[0], &byte, 1), 0);
	close(lone[0]);
	ck_assert_int_eq(send_request(sock, "ab", 2, out[1], st[1]), -EINVAL);     /* no header */
	req.argc = 3;                                                              /* one string short */
	memcpy(msg, &req, sizeof(req));
	ck_assert_int_eq(send_request(sock, msg, good_len, out[1], st[1]), -EINVAL);
	req.argc = 2;
	req.magic = 1;
	memcpy(msg, &req, sizeof(req));
	ck_assert_int_eq(send_request(sock, msg, good_len, out[1], st[1]), -EINVAL);
	char rel[sizeof(req) + 8];                                                 /* a relative path */
	req.magic = AOS_ZYGOTE_MAGIC;
	req.argc = 1;
	memcpy(rel, &req, sizeof(req));
	memcpy(rel + sizeof(req), "clang\0", 6);
	ck_assert_int_eq(send_request(sock, rel, sizeof(req) + 6, out[1], st[1]), -EINVAL);

	/* Still serving: clang's driver for `--version` runs in the zygote's child. */
	char clang_args[4200];
	int n = snprintf(clang_args, sizeof(clang_args), "%s", aos_tool_clang());
	memcpy(clang_args + n + 1, "--version", 10);
	req.argc = 2;
	memcpy(msg, &req, sizeof(req));
	char big[sizeof(req) + sizeof(clang_args)];
	memcpy(big, &req, sizeof(req));
	memcpy(big + sizeof(req), clang_args, (size_t)n + 11);
	int32_t child = send_request(sock, big, sizeof(req) + (size_t)n + 11, out[1], st[1]);
	ck_assert_int_gt(child, 0);
	close(out[1]);
	close(st[1]);
	char text[4096] = "";
	size_t got = 0;
	ssize_t r;
	while ((r = read(out[0], text + got, sizeof(text) - 1 - got)) > 0)
		got += (size_t)r;
	text[got] = '\0';
	ck_assert_ptr_nonnull(strstr(text, "clang version 15"));
	int32_t status = -1;
	ck_assert_int_eq(read(st[0], &status, sizeof(status)), (ssize_t)sizeof(status));
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	close(sock); /* end of file: the zygote ends */
	int zs;
	ck_assert_int_eq(waitpid(z, &zs, 0), z);
	ck_assert(WIFEXITED(zs) && WEXITSTATUS(zs) == 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("zygote");
	TCase *tc = tcase_create("zygote");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, compiles_run_in_the_zygote_and_survive_its_death);
	tcase_add_test(tc, hung_zygote_is_replaced);
	tcase_add_test(tc, forked_child_starts_its_own_zygote);
	tcase_add_test(tc, zygote_module_equals_clang_started_per_compile);
	tcase_add_test(tc, missing_zygote_falls_back_to_clang);
	tcase_add_test(tc, diagnostics_through_the_zygote);
	tcase_add_test(tc, zygote_refuses_bad_requests_and_serves_on);
	suite_add_tcase(s, tc);
	return aos_check_run(s);
}
