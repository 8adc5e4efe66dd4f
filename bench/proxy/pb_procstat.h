/*
 * CPU use of a whole process, read from /proc, and a one-line description of this machine.
 * Used by accelos-proxy-bench to show that an idle accelosd uses no CPU.
 */
#ifndef PB_PROCSTAT_H
#define PB_PROCSTAT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct pb_cpu {
    uint64_t ticks;    /* utime + stime of the process (all threads, live and exited), clock ticks */
    uint64_t run_ns;   /* sum over live threads of schedstat's time on CPU */
    uint64_t switches; /* sum over live threads of voluntary + involuntary context switches */
    uint32_t threads;  /* live threads */
};

/* Fills c for process pid. Returns 0 or negative errno (-ENOENT: no such process). */
int pb_cpu_sample(pid_t pid, struct pb_cpu *c);

/* The difference later - earlier, each field clamped at 0 (a thread that exits takes its
 * schedstat and switch counts with it). */
struct pb_cpu pb_cpu_delta(const struct pb_cpu *earlier, const struct pb_cpu *later);

/* "N cpus, <model name>, Linux <release>" into buf. */
void pb_machine_describe(char *buf, size_t size);

#endif
