#include "trace.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "accelos/log.h"

static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *trace_file;
static char trace_config[64];
static char trace_path[PATH_MAX];
static uint64_t trace_max_bytes;

static FILE *open_append(const char *path, int *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
    FILE *f = fd >= 0 ? fdopen(fd, "a") : NULL;
    *err = f ? 0 : -errno;
    if (!f && fd >= 0)
        close(fd);
    return f;
}

int aos_trace_open(const char *path, const char *config_label, uint64_t max_bytes)
{
    if (strlen(path) + 3 > sizeof(trace_path)) /* room for ".1" */
        return -ENAMETOOLONG;
    int err;
    FILE *f = open_append(path, &err);
    if (!f)
        return err;
    snprintf(trace_config, sizeof(trace_config), "%s", config_label);
    snprintf(trace_path, sizeof(trace_path), "%s", path);
    trace_max_bytes = max_bytes;
    trace_file = f;
    return 0;
}

/* Under trace_lock: the file reached its limit; it becomes PATH.1 and a new one starts. A failure
 * ends the trace, never the daemon. */
static void rotate(void)
{
    char old[sizeof(trace_path) + 2];
    snprintf(old, sizeof(old), "%s.1", trace_path);
    fclose(trace_file);
    trace_file = NULL;
    int err = rename(trace_path, old) == 0 ? 0 : -errno;
    FILE *f = err ? NULL : open_append(trace_path, &err);
    if (!f) {
        aos_log(AOS_LOG_WARN, "trace", "cannot start a new trace file %s: %s; tracing stops", trace_path,
                strerror(-err));
        return;
    }
    aos_log(AOS_LOG_INFO, "trace", "trace reached %llu bytes: moved to %s", (unsigned long long)trace_max_bytes,
            old);
    trace_file = f;
}

bool aos_trace_enabled(void) { return trace_file != NULL; }

/* Kernel names are OpenCL identifiers; anything else is replaced so the line stays valid JSON. */
static void put_name(FILE *f, const char *name)
{
    for (const char *p = name; *p; p++) {
        char c = *p;
        bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
        fputc(plain ? c : '?', f);
    }
}

void aos_trace_launch(const struct aos_trace_launch *t)
{
    if (!trace_file)
        return;
    pthread_mutex_lock(&trace_lock);
    if (!trace_file) { /* a failed rotation or aos_trace_close came in between */
        pthread_mutex_unlock(&trace_lock);
        return;
    }
    fprintf(trace_file, "{\"type\":\"trace\",\"config\":\"%s\",\"mix\":0,\"client\":%llu,\"pid\":%d,\"kernel\":\"",
            trace_config, (unsigned long long)t->client, (int)t->pid);
    put_name(trace_file, t->kernel ? t->kernel : "");
    fprintf(trace_file,
            "\",\"status\":\"%s\",\"error\":%d,\"arrival_ns\":%llu,\"start_ns\":%llu,\"end_ns\":%llu,"
            "\"device_ns\":%llu,\"charged_ns\":%llu,\"waves\":%u,\"physical_groups\":%u,\"virtual_groups\":%u,"
            "\"virtual_groups_done\":%u,\"chunk\":%u,\"admitted_host_ns\":%llu,\"ended_host_ns\":%llu,"
            "\"groups_over_time\":[",
            t->ok ? "ok" : "failed", (int)t->status, (unsigned long long)t->queued_ns,
            (unsigned long long)t->start_ns, (unsigned long long)t->end_ns, (unsigned long long)t->device_ns,
            (unsigned long long)t->charged_ns, t->waves, t->physical_groups, t->virtual_groups, t->virtual_groups_done, t->chunk,
            (unsigned long long)t->admitted_host_ns, (unsigned long long)t->ended_host_ns);
    for (uint32_t i = 0; i < t->history_n && i < AOS_TRACE_HISTORY; i++)
        fprintf(trace_file, "%s[%llu,%u]", i ? "," : "", (unsigned long long)t->history[i].t_ns,
                t->history[i].groups);
    fputs("]}\n", trace_file);
    fflush(trace_file);
    long size = ftell(trace_file);
    if (trace_max_bytes && size >= 0 && (uint64_t)size >= trace_max_bytes)
        rotate();
    pthread_mutex_unlock(&trace_lock);
}

void aos_trace_close(void)
{
    pthread_mutex_lock(&trace_lock);
    if (trace_file)
        fclose(trace_file);
    trace_file = NULL;
    pthread_mutex_unlock(&trace_lock);
}
