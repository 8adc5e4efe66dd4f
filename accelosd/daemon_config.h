/*
 * The daemon's configuration file (--config FILE or $ACCELOS_CONFIG), parsed by the scheduler's
 * parser (include/accelos/sched_config.h). A file with any error stops the daemon before it
 * listens, with every bad line named. The daemon takes the policy from it, and the device
 * scheduler (device_sched.c) the slice length, in-flight limit, virtual-group timeout and weights.
 */
#ifndef ACCELOSD_DAEMON_CONFIG_H
#define ACCELOSD_DAEMON_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Loads path. On errors writes "accelosd: PATH:LINE: reason" lines to err and returns a negative
 * errno. Unless policy_given, the file's policy becomes the daemon's. */
int aos_daemon_config_load(const char *path, bool policy_given, FILE *err);

/* The configuration in force: the loaded file's, or the defaults. Read-only once serving. */
struct aos_sched_config;
const struct aos_sched_config *aos_daemon_config_get(void);
/* Applies the configuration's code generation settings (cpu_loop_align) to this process's LLVM,
 * which the CPU device's compiler shares. Call before the vendors load; a failure is logged and
 * the daemon goes on with LLVM's own. */
void aos_daemon_config_apply_codegen(void);
/* A client's weight (1..1000): weight.<uid>, else weight.<process name>, else 1. */
uint32_t aos_daemon_config_weight(uint32_t uid, const char *name);

#endif
