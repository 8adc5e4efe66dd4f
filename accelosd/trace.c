#include "trace.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *trace_file;
static char trace_config[64];

int aos_trace_open(const char *path, const char *config_label)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
    if (fd < 0)
        return -errno;
    FILE *f = fdopen(fd, "a");
    if (!f) {
        int err = errno;
        close(fd);
        return -err;
    }
    snprintf(trace_config, sizeof(trace_config), "%s", config_label);
    trace_file = f;
    return 0;
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
    fprintf(trace_file, "{\"type\":\"trace\",\"config\":\"%s\",\"mix\":0,\"client\":%llu,\"pid\":%d,\"kernel\":\"",
            trace_config, (unsigned long long)t->client, (int)t->pid);
    put_name(trace_file, t->kernel ? t->kernel : "");
    fprintf(trace_file,
            "\",\"status\":\"%s\",\"error\":%d,\"arrival_ns\":%llu,\"start_ns\":%llu,\"end_ns\":%llu,"
            "\"device_ns\":%llu,\"waves\":%u,\"physical_groups\":%u,\"virtual_groups\":%u,"
            "\"virtual_groups_done\":%u,\"chunk\":%u,\"admitted_host_ns\":%llu,\"ended_host_ns\":%llu,"
            "\"groups_over_time\":[",
            t->ok ? "ok" : "failed", (int)t->status, (unsigned long long)t->queued_ns,
            (unsigned long long)t->start_ns, (unsigned long long)t->end_ns, (unsigned long long)t->device_ns,
            t->waves, t->physical_groups, t->virtual_groups, t->virtual_groups_done, t->chunk,
            (unsigned long long)t->admitted_host_ns, (unsigned long long)t->ended_host_ns);
    for (uint32_t i = 0; i < t->history_n && i < AOS_TRACE_HISTORY; i++)
        fprintf(trace_file, "%s[%llu,%u]", i ? "," : "", (unsigned long long)t->history[i].t_ns,
                t->history[i].groups);
    fputs("]}\n", trace_file);
    fflush(trace_file);
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
