/* Unit tests of the socket path rules a client and the daemon share (common/sock.c). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

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

int main(void)
{
    Suite *s = suite_create("sock");
    TCase *tc = tcase_create("paths");
    tcase_add_test(tc, test_default_paths);
    tcase_add_test(tc, test_fallback_to_the_system_service);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}
