/*
 * The running test daemon's status report (accelosd --status), for tests that check what the
 * daemon did behind the application's back: the policy, and per client the kernels that got an
 * elastic twin, the launches that ran over a virtual NDRange or solo, and what they retain.
 */
#ifndef ACCELOS_TEST_DAEMON_STATUS_H
#define ACCELOS_TEST_DAEMON_STATUS_H

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "accelos/sock.h"
#include "accelos/wire.h"
#include "harness.h"

/* Reads the whole report into text (NUL-terminated). */
static inline void aos_test_status_text(char *text, size_t size)
{
    int sock = aos_sock_connect(aos_test_socket_path());
    ck_assert_int_ge(sock, 0);
    struct aos_hello hello = {.magic = AOS_WIRE_MAGIC, .version = AOS_WIRE_VERSION, .kind = AOS_HELLO_STATUS};
    ck_assert_int_eq(aos_sock_send(sock, &hello, sizeof(hello), -1), 0);
    struct aos_welcome welcome;
    ck_assert_int_ge(aos_sock_recv(sock, &welcome, sizeof(welcome), NULL, 5000), 0);
    ck_assert_int_eq(welcome.status, 0);
    size_t got = 0;
    ssize_t n;
    while (got < size - 1 && (n = read(sock, text + got, size - 1 - got)) > 0)
        got += (size_t)n;
    close(sock);
    text[got] = 0;
}

/* The elastic counters of the client whose process is pid; fails the test when it is not listed. */
static inline void aos_test_status_elastic(pid_t pid, long long *kernels, long long *launches)
{
    char text[16384], key[48];
    aos_test_status_text(text, sizeof(text));
    snprintf(key, sizeof(key), " pid %d ", (int)pid);
    char *line = strstr(text, key);
    ck_assert_msg(line != NULL, "pid %d not in the status report:\n%s", (int)pid, text);
    char *k = strstr(line, " elastic-kernels "), *l = strstr(line, " elastic-launches ");
    ck_assert_ptr_nonnull(k);
    ck_assert_ptr_nonnull(l);
    *kernels = atoll(k + strlen(" elastic-kernels "));
    *launches = atoll(l + strlen(" elastic-launches "));
}

/* A counter of the client whose process is pid in the status report, by its name (solo-launches:
 * short launches that ran natively while the client had the device to itself; held-objects:
 * argument objects its logical launches still retain). */
static inline long long aos_test_status_count(pid_t pid, const char *name)
{
    char text[16384], key[48], field[48];
    aos_test_status_text(text, sizeof(text));
    snprintf(key, sizeof(key), " pid %d ", (int)pid);
    snprintf(field, sizeof(field), " %s ", name);
    char *line = strstr(text, key);
    ck_assert_msg(line != NULL, "pid %d not in the status report:\n%s", (int)pid, text);
    char *n = strstr(line, field);
    ck_assert_msg(n != NULL, "no %s in the status report:\n%s", name, text);
    return atoll(n + strlen(field));
}

/* A counter of device 0's scheduler in the status report (clients-known, parked-events). */
static inline long long aos_test_status_scheduler(const char *name)
{
    char text[16384], field[48];
    aos_test_status_text(text, sizeof(text));
    char *line = strstr(text, "scheduler 0 ");
    ck_assert_msg(line != NULL, "no scheduler line in the status report:\n%s", text);
    char *eol = strchr(line, '\n');
    if (eol)
        *eol = 0;
    snprintf(field, sizeof(field), " %s ", name);
    char *n = strstr(line, field);
    ck_assert_msg(n != NULL, "no %s in the scheduler line: %s", name, line);
    return atoll(n + strlen(field));
}

/* Bytes of buffer storage the daemon has placed in clients' shared-buffer arenas; -1 when shared
 * buffers are off. */
static inline long long aos_test_status_shared_in_use(void)
{
    char text[16384];
    aos_test_status_text(text, sizeof(text));
    char *line = strstr(text, "shared-buffers ");
    ck_assert_msg(line != NULL, "no shared-buffers line in the status report:\n%s", text);
    if (strncmp(line, "shared-buffers on ", 18) != 0)
        return -1;
    char *n = strstr(line, " in-use ");
    ck_assert_ptr_nonnull(n);
    return atoll(n + strlen(" in-use "));
}

static inline long long aos_test_status_solo(pid_t pid)
{
    return aos_test_status_count(pid, "solo-launches");
}

/* The voluntary context switches (sleeps, so wake-ups) of the daemon's thread named `name`
 * (aos_thread_name), from /proc; -1 when no thread has that name. */
static inline long long aos_test_daemon_thread_sleeps(const char *name)
{
    char dir[64], path[512], line[128];
    snprintf(dir, sizeof(dir), "/proc/%d/task", (int)aos_test_daemon_pid());
    DIR *tasks = opendir(dir);
    if (!tasks)
        return -1;
    long long n = -1;
    for (struct dirent *e; n < 0 && (e = readdir(tasks));) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s/comm", dir, e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        bool named = fgets(line, sizeof(line), f) && strcspn(line, "\n") == strlen(name) &&
                     strncmp(line, name, strlen(name)) == 0;
        fclose(f);
        snprintf(path, sizeof(path), "%s/%s/status", dir, e->d_name);
        if (named && (f = fopen(path, "r"))) {
            while (fgets(line, sizeof(line), f) && sscanf(line, "voluntary_ctxt_switches: %lld", &n) != 1)
                ;
            fclose(f);
        }
    }
    closedir(tasks);
    return n;
}

#endif
