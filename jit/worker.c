/*
 * fork+exec with rlimits set in the child, one pipe for stdout+stderr, and a
 * poll() loop enforcing the wall timeout. Only async-signal-safe calls run
 * between fork and exec, so this is safe in a threaded daemon.
 */
#include "worker.h"
#include "child_setup.h"
#include "jit_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define AOS_WORKER_LOG_CAP (1u << 20)

struct logbuf {
	char *data;
	size_t len, cap;
};

static void log_append(struct logbuf *lb, const char *s, size_t n)
{
	if (lb->len + n + 1 > AOS_WORKER_LOG_CAP)
		n = AOS_WORKER_LOG_CAP - lb->len - 1;
	if (lb->len + n + 1 > lb->cap) {
		size_t cap = lb->cap ? lb->cap : 4096;
		while (cap < lb->len + n + 1)
			cap *= 2;
		char *p = realloc(lb->data, cap);
		if (!p)
			return;
		lb->data = p;
		lb->cap = cap;
	}
	memcpy(lb->data + lb->len, s, n);
	lb->len += n;
	lb->data[lb->len] = '\0';
}

/* The wall limit in ms, 60 s when the caller set none. */
static unsigned wall_limit_ms(const struct aos_worker_limits *lim)
{
	return lim->wall_ms ? lim->wall_ms : 60000u;
}

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void child_exec(char *const argv[], const struct aos_worker_limits *lim, int out_fd)
{
	aos_child_setup(out_fd, lim->cpu_seconds, lim->address_space);
	execv(argv[0], argv);
	_exit(127);
}

/* The tool's output until it closes it or the deadline passes (then it is killed). */
static int read_output(int fd, pid_t pid, long deadline, struct logbuf *lb)
{
	for (;;) {
		long left = deadline - now_ms();
		if (left <= 0) {
			kill(pid, SIGKILL);
			return 1;
		}
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int pr = poll(&pfd, 1, (int)left);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			continue;
		char buf[4096];
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0; /* EOF: the tool closed its output (exited) */
		log_append(lb, buf, (size_t)n);
	}
}

/* The result of a finished tool from its wait status; the failure line goes to the log. */
static int conclude(char *const argv[], const struct aos_worker_limits *lim, int timed_out, int status,
		    struct logbuf *lb, char **log)
{
	int rc = 0;
	char msg[256];
	msg[0] = '\0';
	if (timed_out) {
		snprintf(msg, sizeof(msg), "error: compiler worker timed out after %u ms\n", wall_limit_ms(lim));
		rc = -ETIMEDOUT;
	} else if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		snprintf(msg, sizeof(msg), "error: compiler worker terminated by signal %d (%s)%s\n",
			 sig, strsignal(sig),
			 sig == SIGXCPU ? ": CPU time limit exceeded" : "");
		rc = -ECANCELED;
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && lb->len == 0) {
		snprintf(msg, sizeof(msg), "error: cannot execute %s\n", argv[0]);
		rc = -ENOENT;
	} else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		rc = -ENOEXEC;
	}
	if (msg[0])
		log_append(lb, msg, strlen(msg));
	if (!lb->data)
		log_append(lb, "", 0);
	*log = lb->data ? lb->data : strdup("");
	return rc;
}

int aos_worker_run(char *const argv[], const struct aos_worker_limits *lim, char **log)
{
	struct logbuf lb = { 0 };
	int fds[2];
	*log = NULL;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	pid_t pid = fork();
	if (pid < 0) {
		int err = -errno;
		close(fds[0]);
		close(fds[1]);
		return err;
	}
	if (pid == 0)
		child_exec(argv, lim, fds[1]);
	close(fds[1]);

	long deadline = now_ms() + wall_limit_ms(lim);
	int timed_out = read_output(fds[0], pid, deadline, &lb);
	close(fds[0]);

	/* The tool may close its output and keep running: the deadline still
	 * applies while waiting for it to exit. */
	int status = 0;
	for (;;) {
		pid_t w = waitpid(pid, &status, timed_out ? 0 : WNOHANG);
		if (w == pid || (w < 0 && errno != EINTR))
			break;
		if (w == 0 && now_ms() >= deadline) {
			timed_out = 1;
			kill(pid, SIGKILL);
		} else if (w == 0) {
			struct timespec nap = { 0, 2000000 };
			nanosleep(&nap, NULL);
		}
	}
	return conclude(argv, lim, timed_out, status, &lb, log);
}

/* The child's wait status, which the zygote writes once the child has ended. */
static int read_status(int fd, pid_t pid, long deadline, int *timed_out, int *status)
{
	for (;;) {
		long left = deadline - now_ms();
		if (left <= 0 && !*timed_out) {
			*timed_out = 1;
			kill(pid, SIGKILL);
		}
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		/* Once killed, the zygote reports the kill at once; a zygote gone reports nothing. */
		int pr = poll(&pfd, 1, *timed_out ? 1000 : (int)left);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr == 0 && *timed_out)
			return -1;
		if (pr <= 0)
			continue;
		int32_t v;
		ssize_t n = read(fd, &v, sizeof(v));
		if (n < 0 && errno == EINTR)
			continue;
		if (n != (ssize_t)sizeof(v))
			return -1;
		*status = v;
		return 0;
	}
}

int aos_worker_run_clang(char *const argv[], const struct aos_worker_limits *lim, char **log)
{
	int out[2], st[2];
	pid_t pid;
	*log = NULL;
	if (pipe2(out, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(st, O_CLOEXEC) < 0) {
		int err = -errno;
		close(out[0]);
		close(out[1]);
		return err;
	}
	long start = now_ms();
	int rc = aos_zygote_spawn(argv, lim, out[1], st[1], &pid);
	close(out[1]);
	close(st[1]);
	if (rc) {
		close(out[0]);
		close(st[0]);
		return aos_worker_run(argv, lim, log); /* no zygote: clang started the usual way */
	}
	struct logbuf lb = { 0 };
	long deadline = start + wall_limit_ms(lim);
	int timed_out = read_output(out[0], pid, deadline, &lb), status = 0;
	close(out[0]);
	if (read_status(st[0], pid, deadline, &timed_out, &status) < 0 && !timed_out)
		status = SIGKILL; /* the zygote died with its child: a crash as far as we know */
	close(st[0]);
	return conclude(argv, lim, timed_out, status, &lb, log);
}
