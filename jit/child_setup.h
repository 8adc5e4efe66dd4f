/* The set-up of a compiler child after fork, shared by the JIT's worker (jit/worker.c) and the
 * clang zygote's children (jit/clang_zygote.cpp): output to out_fd, no input, the CPU and
 * address-space limits (0 = none), no core dumps. Async-signal-safe calls only. */
#ifndef AOS_CHILD_SETUP_H
#define AOS_CHILD_SETUP_H

#include <fcntl.h>
#include <stdint.h>
#include <sys/resource.h>
#include <unistd.h>

static inline void aos_child_setup(int out_fd, unsigned cpu_seconds, uint64_t address_space)
{
	struct rlimit cpu = { cpu_seconds, (rlim_t)cpu_seconds + 1 };
	struct rlimit as = { (rlim_t)address_space, (rlim_t)address_space };
	struct rlimit core = { 0, 0 };
	dup2(out_fd, STDOUT_FILENO);
	dup2(out_fd, STDERR_FILENO);
	int devnull = open("/dev/null", O_RDONLY);
	if (devnull >= 0)
		dup2(devnull, STDIN_FILENO);
	if (cpu_seconds)
		setrlimit(RLIMIT_CPU, &cpu);
	if (address_space)
		setrlimit(RLIMIT_AS, &as);
	setrlimit(RLIMIT_CORE, &core);
}

#endif
