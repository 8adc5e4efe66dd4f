/* The daemon's configuration file: a valid file sets the policy (an explicit --policy wins), and a
 * file with errors stops the daemon before it listens, naming every bad line. */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "accelos/sock.h"
#include "accelos/wire.h"
#include "daemon_status.h"
#include "harness.h"

static char good_path[64] = "/tmp/accelos-config-good-XXXXXX";

/* Runs the daemon with args until it exits or is killed after a while; returns its exit status
 * (-1 if it was still running) and its stderr in err. */
static int run_daemon(const char *const *args, char *err, size_t err_size, const char *socket_path,
                      char *status_text, size_t status_size)
{
    int pipefd[2];
    ck_assert_int_eq(pipe(pipefd), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        dup2(pipefd[1], 2);
        close(pipefd[0]);
        const char *argv[16] = {getenv("ACCELOS_DAEMON_BIN")};
        int n = 1;
        for (int i = 0; args[i] && n < 15; i++)
            argv[n++] = args[i];
        argv[n] = NULL;
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(pipefd[1]);
    int status = 0, exited = 0;
    for (int i = 0; i < 500 && !exited; i++) {
        exited = waitpid(pid, &status, WNOHANG) == pid;
        struct stat st;
        if (!exited && socket_path && stat(socket_path, &st) == 0 && status_text) {
            int sock = aos_sock_connect(socket_path);
            if (sock >= 0) {
                struct aos_hello hello = {.magic = AOS_WIRE_MAGIC, .version = AOS_WIRE_VERSION,
                                          .kind = AOS_HELLO_STATUS};
                struct aos_welcome welcome;
                size_t got = 0;
                ssize_t r;
                if (aos_sock_send(sock, &hello, sizeof(hello), -1) == 0 &&
                    aos_sock_recv(sock, &welcome, sizeof(welcome), NULL, 5000) >= 0)
                    while (got < status_size - 1 && (r = read(sock, status_text + got, status_size - 1 - got)) > 0)
                        got += (size_t)r;
                status_text[got] = 0;
                close(sock);
                break;
            }
        }
        usleep(10000);
    }
    if (!exited) {
        kill(pid, SIGTERM);
        waitpid(pid, &status, 0);
    }
    ssize_t got = read(pipefd[0], err, err_size - 1);
    err[got > 0 ? got : 0] = 0;
    close(pipefd[0]);
    return exited && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

START_TEST(test_file_sets_the_policy)
{
    char text[16384];
    aos_test_status_text(text, sizeof(text));
    ck_assert_msg(strstr(text, "\npolicy fifo\n") != NULL, "status:\n%s", text);
}
END_TEST

START_TEST(test_explicit_policy_wins_over_the_file)
{
    char sock[96], err[4096] = "", text[8192] = "";
    snprintf(sock, sizeof(sock), "/tmp/accelos-config-%d.sock", (int)getpid());
    const char *args[] = {"--socket", sock, "--config", good_path, "--policy", "fair", NULL};
    int rc = run_daemon(args, err, sizeof(err), sock, text, sizeof(text));
    unlink(sock);
    ck_assert_int_eq(rc, -1); /* it was serving until stopped */
    ck_assert_msg(strstr(text, "\npolicy fair\n") != NULL, "status:\n%s\nstderr:\n%s", text, err);
}
END_TEST

START_TEST(test_errors_stop_the_daemon_with_each_line)
{
    char bad[64] = "/tmp/accelos-config-bad-XXXXXX";
    ck_assert(aos_test_write_temp(bad, "# comment\npolicy = lottery\nslice_ms = 4\nbogus = 1\nslice_ms = 5\n"
                                       "cpu_loop_align = 48\n"));
    char sock[96], err[4096] = "";
    snprintf(sock, sizeof(sock), "/tmp/accelos-config-bad-%d.sock", (int)getpid());
    const char *args[] = {"--socket", sock, "--config", bad, NULL};
    int rc = run_daemon(args, err, sizeof(err), NULL, NULL, 0);
    struct stat st;
    ck_assert_int_ne(stat(sock, &st), 0); /* never listened */
    unlink(bad);
    ck_assert_int_eq(rc, 2);
    char want[128];
    snprintf(want, sizeof(want), "%s:2: ", bad);
    ck_assert_msg(strstr(err, want) && strstr(err, "lottery"), "stderr:\n%s", err);
    snprintf(want, sizeof(want), "%s:4: ", bad);
    ck_assert_msg(strstr(err, want) && strstr(err, "bogus"), "stderr:\n%s", err);
    snprintf(want, sizeof(want), "%s:5: ", bad);
    ck_assert_msg(strstr(err, want), "duplicate key not reported:\n%s", err);
    snprintf(want, sizeof(want), "%s:6: ", bad);
    ck_assert_msg(strstr(err, want) && strstr(err, "power of two"), "stderr:\n%s", err);
}
END_TEST

/* cpu_loop_align reaches LLVM in the daemon's process before the vendors load (the daemon says so
 * at debug level; the alignment itself is test_host_codegen's). */
START_TEST(test_loop_align_is_applied)
{
    char conf[64] = "/tmp/accelos-config-align-XXXXXX";
    ck_assert(aos_test_write_temp(conf, "cpu_loop_align = 64\n"));
    char sock[96], err[8192] = "", text[8192] = "";
    snprintf(sock, sizeof(sock), "/tmp/accelos-config-align-%d.sock", (int)getpid());
    const char *args[] = {"--socket", sock, "--config", conf, "-vv", NULL};
    int rc = run_daemon(args, err, sizeof(err), sock, text, sizeof(text));
    unlink(sock);
    unlink(conf);
    ck_assert_int_eq(rc, -1); /* it was serving until stopped */
    ck_assert_msg(strstr(err, "innermost loops align to 64 bytes"), "stderr:\n%s", err);
    const char *loaded = strstr(err, "loaded lib");
    ck_assert_msg(loaded && strstr(err, "align to 64") < loaded, "set after the vendors loaded:\n%s", err);
}
END_TEST

START_TEST(test_missing_file_stops_the_daemon)
{
    char err[4096] = "";
    const char *args[] = {"--socket", "/tmp/accelos-config-never.sock", "--config", "/nonexistent/accelosd.conf",
                          NULL};
    ck_assert_int_eq(run_daemon(args, err, sizeof(err), NULL, NULL, 0), 2);
    ck_assert_msg(strstr(err, "/nonexistent/accelosd.conf"), "stderr:\n%s", err);
}
END_TEST

/* A trace size limit that is not a number of MiB in range stops the daemon before it listens. */
START_TEST(test_bad_trace_limit_stops_the_daemon)
{
    static const char *const bad[] = {"lots", "-1", "12x", "", "99999999999"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char err[4096] = "";
        const char *args[] = {"--socket", "/tmp/accelos-config-never.sock", "--trace", "/tmp/accelos-never.jsonl",
                              "--trace-max-mb", bad[i], NULL};
        ck_assert_int_eq(run_daemon(args, err, sizeof(err), NULL, NULL, 0), 2);
        ck_assert_msg(strstr(err, "--trace-max-mb: a number of MiB from 0 to"), "'%s': stderr:\n%s", bad[i], err);
        ck_assert_int_ne(access("/tmp/accelos-config-never.sock", F_OK), 0);
    }
}
END_TEST

/* accelosd --status with no daemon listening: with the per-user default it also asks the system
 * service, as clients do, and names both places; with an explicit socket only that one. */
START_TEST(test_status_without_a_daemon_names_where_it_looked)
{
    char saved[256] = "", saved_xdg[256] = "", xdg[64] = "/tmp/accelos-config-xdg-XXXXXX", err[4096] = "";
    snprintf(saved, sizeof(saved), "%s", getenv("ACCELOS_SOCKET") ? getenv("ACCELOS_SOCKET") : "");
    bool had_xdg = getenv("XDG_RUNTIME_DIR") != NULL;
    snprintf(saved_xdg, sizeof(saved_xdg), "%s", had_xdg ? getenv("XDG_RUNTIME_DIR") : "");
    ck_assert_ptr_nonnull(mkdtemp(xdg));
    unsetenv("ACCELOS_SOCKET");
    setenv("XDG_RUNTIME_DIR", xdg, 1);
    const char *args[] = {"--status", NULL};
    int rc = run_daemon(args, err, sizeof(err), NULL, NULL, 0);
    setenv("ACCELOS_SOCKET", saved, 1);
    if (had_xdg)
        setenv("XDG_RUNTIME_DIR", saved_xdg, 1);
    else
        unsetenv("XDG_RUNTIME_DIR");
    rmdir(xdg);
    ck_assert_int_eq(rc, 1);
    ck_assert_msg(strstr(err, xdg) && strstr(err, "/run/accelos/accelosd.sock"), "stderr:\n%s", err);
    const char *explicit_args[] = {"--status", "--socket", "/tmp/accelos-config-never.sock", NULL};
    ck_assert_int_eq(run_daemon(explicit_args, err, sizeof(err), NULL, NULL, 0), 1);
    ck_assert_msg(strstr(err, "/tmp/accelos-config-never.sock") && !strstr(err, "/run/accelos"), "stderr:\n%s", err);
}
END_TEST

int main(void)
{
    if (!aos_test_write_temp(good_path, "policy = fifo  # the native baseline\nslice_ms = 8\nmax_inflight_per_client = 16\n"
                               "vgroup_timeout_ms = 2000\nweight.0 = 2\n")) {
        perror("accelos test: configuration file");
        return 1;
    }
    Suite *s = suite_create("config");
    TCase *tc = tcase_create("config");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_file_sets_the_policy);
    tcase_add_test(tc, test_explicit_policy_wins_over_the_file);
    tcase_add_test(tc, test_errors_stop_the_daemon_with_each_line);
    tcase_add_test(tc, test_missing_file_stops_the_daemon);
    tcase_add_test(tc, test_bad_trace_limit_stops_the_daemon);
    tcase_add_test(tc, test_loop_align_is_applied);
    tcase_add_test(tc, test_status_without_a_daemon_names_where_it_looked);
    suite_add_tcase(s, tc);
    const char *const args[] = {"--config", good_path, NULL};
    int rc = aos_test_run_suite_with_args(s, args);
    unlink(good_path);
    return rc;
}
