/*
 * The JIT's side of accelos-clang-zygote (jit/clang_zygote.cpp): started at the first compile,
 * one per process, asked for each compile to fork a child that runs clang in process. One request
 * at a time on the socket (a fork's worth of time, under a lock); the compiles themselves run side
 * by side. When no zygote can serve, the caller runs clang itself, as before the zygote.
 */
#include "jit_internal.h"
#include "zygote_protocol.h"
#include "accelos/sock.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define AOS_ZYGOTE_MAX_STARTS 3     /* a zygote that keeps dying is not started again */
#define AOS_ZYGOTE_REPLY_MS 5000    /* a fork's worth of work: a zygote this late is hung */

static pthread_mutex_t zygote_lock = PTHREAD_MUTEX_INITIALIZER;
static int zygote_sock = -1;
static pid_t zygote_pid = -1;
static pid_t zygote_owner = -1; /* the process that started it: a forked child starts its own */
static unsigned zygote_starts;

const char *aos_tool_zygote(void)
{
	const char *env = getenv("ACCELOS_JIT_ZYGOTE");
	if (env && *env)
		return strcmp(env, "none") == 0 ? NULL : env;
	if (access(AOS_JIT_ZYGOTE, X_OK) == 0)
		return AOS_JIT_ZYGOTE;
	return access(AOS_JIT_ZYGOTE_INSTALL, X_OK) == 0 ? AOS_JIT_ZYGOTE_INSTALL : NULL;
}

pid_t aos_zygote_pid(void)
{
	pthread_mutex_lock(&zygote_lock);
	pid_t pid = zygote_pid;
	pthread_mutex_unlock(&zygote_lock);
	return pid;
}

/* Only for a zygote that failed (died, or hung: stopped, say), so it is killed, not asked. */
static void zygote_stop(void)
{
	if (zygote_sock >= 0)
		close(zygote_sock);
	if (zygote_pid > 0) {
		kill(zygote_pid, SIGKILL);
		waitpid(zygote_pid, NULL, 0);
	}
	zygote_sock = -1;
	zygote_pid = -1;
}

static int zygote_start(const char *path)
{
	int sv[2];
	if (zygote_starts >= AOS_ZYGOTE_MAX_STARTS)
		return -ENOSYS;
	zygote_starts++;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	pid_t pid = fork();
	if (pid < 0) {
		int err = -errno;
		close(sv[0]);
		close(sv[1]);
		return err;
	}
	if (pid == 0) {
		/* Async-signal-safe calls only, up to exec. */
		if (sv[1] == AOS_ZYGOTE_FD)
			fcntl(sv[1], F_SETFD, 0);
		else if (dup2(sv[1], AOS_ZYGOTE_FD) < 0)
			_exit(127);
		char *argv[] = { (char *)path, NULL };
		execv(path, argv);
		_exit(127);
	}
	close(sv[1]);
	zygote_sock = sv[0];
	zygote_pid = pid;
	zygote_owner = getpid();
	return 0;
}

/* One request and its reply on the socket; the child's pid, or negative errno. */
static int ask(const void *req, size_t len, int out_w, int status_w)
{
	int fds[2] = { out_w, status_w };
	if (aos_sock_send_fds(zygote_sock, req, len, fds, 2) != 0)
		return -EPIPE;
	int32_t pid;
	ssize_t n;
	struct pollfd p = { .fd = zygote_sock, .events = POLLIN };
	int pr;
	do
		pr = poll(&p, 1, AOS_ZYGOTE_REPLY_MS);
	while (pr < 0 && errno == EINTR);
	if (pr <= 0)
		return -EPIPE; /* hung: every compile would wait behind it */
	do
		n = recv(zygote_sock, &pid, sizeof(pid), 0);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(pid) ? pid : -EPIPE;
}

int aos_zygote_spawn(char *const argv[], const struct aos_worker_limits *lim, int out_w, int status_w,
		     pid_t *pid)
{
	const char *path = aos_tool_zygote();
	if (!path)
		return -ENOSYS;
	size_t len = sizeof(struct aos_zygote_request);
	uint32_t argc = 0;
	for (; argv[argc]; argc++)
		len += strlen(argv[argc]) + 1;
	if (argc == 0 || argc > AOS_ZYGOTE_MAX_ARGS ||
	    len - sizeof(struct aos_zygote_request) > AOS_ZYGOTE_MAX_ARGS_BYTES)
		return -ENOSYS; /* the caller runs it itself */
	char *req = malloc(len);
	if (!req)
		return -ENOMEM;
	struct aos_zygote_request head = { .magic = AOS_ZYGOTE_MAGIC, .argc = argc,
					   .cpu_seconds = lim->cpu_seconds,
					   .address_space = lim->address_space };
	memcpy(req, &head, sizeof(head));
	char *p = req + sizeof(head);
	for (uint32_t i = 0; i < argc; i++) {
		size_t n = strlen(argv[i]) + 1;
		memcpy(p, argv[i], n);
		p += n;
	}
	int rc = -ENOSYS;
	pthread_mutex_lock(&zygote_lock);
	if (zygote_sock >= 0 && zygote_owner != getpid()) {
		/* Inherited through fork: the parent's zygote answers the parent. Our copy of its
		 * socket goes; the zygote is not ours to stop. */
		close(zygote_sock);
		zygote_sock = -1;
		zygote_pid = -1;
		zygote_starts = 0;
	}
	/* A zygote that died (or never started: its exec failed) answers nothing: start another,
	 * a few times per process at most. */
	for (int attempt = 0; attempt < 2; attempt++) {
		if (zygote_sock < 0 && zygote_start(path) < 0)
			break;
		rc = ask(req, len, out_w, status_w);
		if (rc != -EPIPE)
			break;
		zygote_stop();
	}
	pthread_mutex_unlock(&zygote_lock);
	free(req);
	if (rc > 0) {
		*pid = (pid_t)rc;
		return 0;
	}
	return rc == -EPIPE ? -ENOSYS : rc;
}
