/*
 * The daemon's configuration file (--config FILE or $ACCELOS_CONFIG), parsed by the scheduler's
 * parser (include/accelos/sched_config.h). A file with any error stops the daemon before it
 * listens, with every bad line named. Today the daemon takes the policy from it; the other keys
 * (slice length, in-flight limit, virtual-group timeout, weights) are validated and kept for the
 * time-slicing loop that will use them (docs/scheduler.md §6).
 */
#ifndef ACCELOSD_DAEMON_CONFIG_H
#define ACCELOSD_DAEMON_CONFIG_H

#include <stdbool.h>
#include <stdio.h>

/* Loads path. On errors writes "accelosd: PATH:LINE: reason" lines to err and returns a negative
 * errno. Unless policy_given, the file's policy becomes the daemon's. */
int aos_daemon_config_load(const char *path, bool policy_given, FILE *err);

#endif
