#include "pb_procstat.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* utime + stime from a /proc/.../stat line: fields 14 and 15, counted after the command name,
 * which may itself contain spaces and parentheses. */
static int read_stat_ticks(const char *path, uint64_t *ticks)
{
    char line[1024];
    FILE *f = fopen(path, "r");
    if (!f)
        return -errno;
    size_t n = fread(line, 1, sizeof(line) - 1, f);
    fclose(f);
    line[n] = '\0';
    const char *p = strrchr(line, ')');
    if (!p)
        return -EPROTO;
    unsigned long long utime, stime;
    /* After ")": state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime */
    if (sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime, &stime) != 2)
        return -EPROTO;
    *ticks = utime + stime;
    return 0;
}

static uint64_t read_schedstat_ns(const char *path)
{
    unsigned long long run = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    if (fscanf(f, "%llu", &run) != 1)
        run = 0;
    fclose(f);
    return run;
}

static uint64_t read_switches(const char *path)
{
    char line[256];
    uint64_t total = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    while (fgets(line, sizeof(line), f)) {
        unsigned long long v;
        if (sscanf(line, "voluntary_ctxt_switches: %llu", &v) == 1 ||
            sscanf(line, "nonvoluntary_ctxt_switches: %llu", &v) == 1)
            total += v;
    }
    fclose(f);
    return total;
}

int pb_cpu_sample(pid_t pid, struct pb_cpu *c)
{
    char path[128];
    memset(c, 0, sizeof(*c));
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    int rc = read_stat_ticks(path, &c->ticks);
    if (rc < 0)
        return rc;
    snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
    DIR *dir = opendir(path);
    if (!dir)
        return -errno;
    struct dirent *e;
    while ((e = readdir(dir))) {
        if (e->d_name[0] == '.')
            continue;
        char tpath[160];
        snprintf(tpath, sizeof(tpath), "/proc/%d/task/%.16s/schedstat", (int)pid, e->d_name);
        c->run_ns += read_schedstat_ns(tpath);
        snprintf(tpath, sizeof(tpath), "/proc/%d/task/%.16s/status", (int)pid, e->d_name);
        c->switches += read_switches(tpath);
        c->threads++;
    }
    closedir(dir);
    return 0;
}

static uint64_t sub_clamped(uint64_t later, uint64_t earlier)
{
    return later > earlier ? later - earlier : 0;
}

struct pb_cpu pb_cpu_delta(const struct pb_cpu *earlier, const struct pb_cpu *later)
{
    return (struct pb_cpu){
        .ticks = sub_clamped(later->ticks, earlier->ticks),
        .run_ns = sub_clamped(later->run_ns, earlier->run_ns),
        .switches = sub_clamped(later->switches, earlier->switches),
        .threads = later->threads,
    };
}

void pb_machine_describe(char *buf, size_t size)
{
    char model[256] = "unknown CPU";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof(line), f)) {
            if (strncmp(line, "model name", 10) != 0)
                continue;
            const char *v = strchr(line, ':');
            if (v) {
                snprintf(model, sizeof(model), "%s", v + 1 + (v[1] == ' '));
                model[strcspn(model, "\n")] = '\0';
            }
            break;
        }
        fclose(f);
    }
    struct utsname u;
    const char *release = uname(&u) == 0 ? u.release : "unknown";
    snprintf(buf, size, "%ld cpus, %s, Linux %s", sysconf(_SC_NPROCESSORS_ONLN), model, release);
}
