/* Runs a compiler tool (clang, llvm-spirv) in a separate, resource-limited
 * process so a crash or a pathological input cannot take the caller down. */
#ifndef AOS_WORKER_H
#define AOS_WORKER_H

#include <stddef.h>
#include <stdint.h>

struct aos_worker_limits {
	unsigned wall_ms;       /* killed with SIGKILL after this */
	unsigned cpu_seconds;   /* RLIMIT_CPU */
	uint64_t address_space; /* RLIMIT_AS */
};

/* Runs argv[0] (absolute path) with argv; stdout+stderr go to *log (malloc'd,
 * NUL-terminated, capped). Returns 0 if it exited 0, -ENOEXEC if it exited
 * non-zero, -ETIMEDOUT on wall timeout, -ECANCELED if killed by a signal
 * (CPU or memory limit, crash), other negative errno if it could not start.
 * A failure line is appended to the log in every failing case. */
int aos_worker_run(char *const argv[], const struct aos_worker_limits *lim, char **log);

/* The same for a clang command (argv[0] the clang executable), run by accelos-clang-zygote
 * (jit/clang_zygote.cpp) when one can serve: clang's libraries are then loaded once per process,
 * not once per compile. Same limits, log and results. */
int aos_worker_run_clang(char *const argv[], const struct aos_worker_limits *lim, char **log);

#endif
