/* Unit tests of the socket path rules a client and the daemon share (common/sock.c). */
#include <check.h>
#include "check_run.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "accelos/sock.h"

static void env(const char *socket, const char *xdg)
{
    if (socket)
        setenv("ACCELOS_SOCKET", socket, 1);
    else
        unsetenv("ACCELOS_SOCKET");
    if (xdg)
        setenv("XDG_RUNTIME_DIR", xdg, 1);
    else
        unsetenv("XDG_RUNTIME_DIR");
}

START_TEST(test_default_paths)
{
    char path[108];
    env("/tmp/x.sock", "/run/user/1000");
    ck_assert_int_eq(aos_socket_default_path(path, sizeof(path)), 0);
    ck_assert_str_eq(path, "/tmp/x.sock");
    env(NULL, "/run/user/1000");
    ck_assert_int_eq(aos_socket_default_path(path, sizeof(path)), 0);
    ck_assert_str_eq(path, "/run/user/1000/accelos/accelosd.sock");
    env(NULL, NULL);
    ck_assert_int_eq(aos_socket_default_path(path, sizeof(path)), 0);
    ck_assert_str_eq(path, AOS_SYSTEM_SOCKET_PATH);
    env("", "");
    ck_assert_int_eq(aos_socket_default_path(path, sizeof(path)), 0);
    ck_assert_str_eq(path, AOS_SYSTEM_SOCKET_PATH);
    char longer[200];
    memset(longer, 'a', sizeof(longer) - 1);
    longer[sizeof(longer) - 1] = 0;
    env(longer, NULL);
    ck_assert_int_lt(aos_socket_default_path(path, sizeof(path)), 0);
}
END_TEST

/* Only a client that looked for a per-user daemon falls back to the system service: an explicit
 * ACCELOS_SOCKET names one daemon, and the system path has nothing behind it to fall back to. */
START_TEST(test_fallback_to_the_system_service)
{
    env(NULL, "/run/user/1000");
    ck_assert_str_eq(aos_socket_fallback_path(), AOS_SYSTEM_SOCKET_PATH);
    env("/tmp/x.sock", "/run/user/1000");
    ck_assert_ptr_null(aos_socket_fallback_path());
    env(NULL, NULL);
    ck_assert_ptr_null(aos_socket_fallback_path());
    env("/tmp/x.sock", NULL);
    ck_assert_ptr_null(aos_socket_fallback_path());
}
END_TEST

/* A listening Unix socket at path; returns its fd. */
static int listen_at(const char *path)
{
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    ck_assert_int_ge(fd, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    ck_assert_int_eq(listen(fd, 4), 0);
    return fd;
}

/* The fallback is tried only when nobody listens at the first path, and *used says where the
 * connection went. */
START_TEST(test_connect_or_falls_back_only_when_nobody_listens)
{
    char dir[64] = "/tmp/accelos-sock-XXXXXX", first[128], second[128];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(first, sizeof(first), "%s/first.sock", dir);
    snprintf(second, sizeof(second), "%s/second.sock", dir);
    int l2 = listen_at(second);
    const char *used = NULL;
    int s = aos_sock_connect_or(first, second, &used); /* no socket at first */
    ck_assert_int_ge(s, 0);
    ck_assert_ptr_eq(used, second);
    close(s);
    ck_assert_int_eq(aos_sock_connect_or(first, NULL, &used), -ENOENT);
    ck_assert_ptr_eq(used, first);
    int l1 = listen_at(first);
    s = aos_sock_connect_or(first, second, &used); /* somebody at first: no fallback */
    ck_assert_int_ge(s, 0);
    ck_assert_ptr_eq(used, first);
    close(s);
    close(l1); /* a stale socket file: refused, so the fallback again */
    s = aos_sock_connect_or(first, second, &used);
    ck_assert_int_ge(s, 0);
    ck_assert_ptr_eq(used, second);
    close(s);
    close(l2);
    unlink(first), unlink(second), rmdir(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sock");
    TCase *tc = tcase_create("paths");
    tcase_add_test(tc, test_default_paths);
    tcase_add_test(tc, test_fallback_to_the_system_service);
    tcase_add_test(tc, test_connect_or_falls_back_only_when_nobody_listens);
    suite_add_tcase(s, tc);
    return aos_check_run(s);
}
