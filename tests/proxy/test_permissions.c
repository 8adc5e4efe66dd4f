/*
 * Who may reach the daemon. Per user (the default): the socket directory is 0700 and the socket
 * 0600, so another uid cannot even connect; and should the modes be loosened, the daemon itself
 * still refuses a peer of another uid (SO_PEERCRED). System mode with --group: directory 0750
 * and socket 0660, both of that group, and members of the group (primary or supplementary) are
 * served while others are not.
 *
 * The other user is `nobody`, reached by a forked child that drops root with setgroups/setgid/
 * setuid. That needs root: run as anyone else, the tests fail and say so rather than pass.
 * The daemons started here live in a directory other users can traverse (a /tmp of mode 0700
 * would hide everything below it and prove nothing; until session 16 the daemon itself made
 * /tmp 0700 when a test gave it a socket directly in /tmp).
 *
 * A directory that already exists keeps its mode: only one the daemon creates, or its own default
 * one, is set to 0700 / 0750.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "accelos/sock.h"
#include "accelos/wire.h"
#include "clients.h"
#include "harness.h"
#include "check_run.h"

struct other_user {
    uid_t uid;
    gid_t gid;        /* nobody's group */
    gid_t other_gid;  /* a group nobody is not in */
    char group_name[64];
};

static struct other_user need_root_and_nobody(void)
{
    ck_assert_msg(geteuid() == 0, "these tests switch to another user and must run as root (euid is %d)",
                  (int)geteuid());
    struct passwd *pw = getpwnam("nobody");
    ck_assert_msg(pw != NULL, "user 'nobody' is missing");
    struct group *gr = getgrgid(pw->pw_gid);
    ck_assert_msg(gr != NULL, "nobody's group %d is missing", (int)pw->pw_gid);
    struct other_user u = {.uid = pw->pw_uid, .gid = pw->pw_gid};
    ck_assert_msg(strlen(gr->gr_name) < sizeof(u.group_name), "group name '%s' is too long", gr->gr_name);
    strcpy(u.group_name, gr->gr_name);
    struct group *daemon_group = getgrnam("daemon");
    ck_assert_msg(daemon_group != NULL && daemon_group->gr_gid != u.gid, "group 'daemon' is missing");
    u.other_gid = daemon_group->gr_gid;
    return u;
}

/* A fresh directory under a base every user can traverse, itself 0755. */
static void make_base(char *dir, size_t cap)
{
    static const char *const bases[] = {"/dev/shm", "/var/tmp", "/tmp"};
    for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
        struct stat st;
        if (stat(bases[i], &st) < 0 || !(st.st_mode & S_IXOTH))
            continue;
        snprintf(dir, cap, "%s/accelos-perm-XXXXXX", bases[i]);
        ck_assert_ptr_nonnull(mkdtemp(dir));
        ck_assert_int_eq(chmod(dir, 0755), 0);
        return;
    }
    ck_abort_msg("no temporary directory that other users can traverse");
}

static pid_t start_daemon(const char *socket_path, const char *const *extra)
{
    const char *bin = getenv("ACCELOS_DAEMON_BIN");
    ck_assert_ptr_nonnull(bin);
    const char *argv[12] = {bin, "--socket", socket_path};
    int n = 3;
    for (int i = 0; extra && extra[i]; i++)
        argv[n++] = extra[i];
    argv[n] = NULL;
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        execv(bin, (char *const *)argv);
        _exit(127);
    }
    for (int i = 0; i < 500; i++) {
        int s = aos_sock_connect(socket_path);
        if (s >= 0) {
            close(s);
            return pid;
        }
        usleep(10000);
    }
    ck_abort_msg("accelosd did not start on %s", socket_path);
    return -1;
}

static void stop_daemon(pid_t pid)
{
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
}

struct attempt {
    int connect_errno; /* 0: connected */
    int handshake;     /* aos_sock_recv result */
    int status;        /* welcome.status */
    bool got_region;
    bool identity_ok;  /* the child really runs as the other user */
};

/* Connects and says hello as uid/gid with the given supplementary groups, from a child process. */
static struct attempt attempt_kind_as(uint32_t kind, uid_t uid, gid_t gid, const gid_t *groups, int ngroups,
                                      const char *path)
{
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        struct attempt a = {0};
        a.identity_ok = setgroups((size_t)ngroups, groups) == 0 && setgid(gid) == 0 && setuid(uid) == 0 &&
                        getuid() == uid && geteuid() == uid && getgid() == gid;
        int sock = a.identity_ok ? aos_sock_connect(path) : -EPERM;
        if (sock < 0) {
            a.connect_errno = -sock;
        } else {
            struct aos_hello hello = {.magic = AOS_WIRE_MAGIC, .version = AOS_WIRE_VERSION, .kind = kind};
            struct aos_welcome welcome = {0};
            int fd = -1;
            a.handshake = aos_sock_send(sock, &hello, sizeof(hello), -1);
            if (a.handshake == 0)
                a.handshake = aos_sock_recv(sock, &welcome, sizeof(welcome), &fd, 5000);
            a.status = welcome.status;
            a.got_region = fd >= 0;
        }
        _exit(write(fds[1], &a, sizeof(a)) == sizeof(a) ? 0 : 1);
    }
    close(fds[1]);
    struct attempt a;
    ck_assert_int_eq(read(fds[0], &a, sizeof(a)), (ssize_t)sizeof(a));
    close(fds[0]);
    waitpid(pid, NULL, 0);
    ck_assert_msg(a.identity_ok, "could not become uid %d gid %d", (int)uid, (int)gid);
    return a;
}

static struct attempt attempt_as(uid_t uid, gid_t gid, const gid_t *groups, int ngroups, const char *path)
{
    return attempt_kind_as(AOS_HELLO_CLIENT, uid, gid, groups, ngroups, path);
}

static mode_t mode_of(const char *path, gid_t *group)
{
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    if (group)
        *group = st.st_gid;
    return st.st_mode & 07777;
}

START_TEST(test_per_user_socket_is_private)
{
    struct other_user nobody = need_root_and_nobody();
    char base[128], dir[160], path[200];
    make_base(base, sizeof(base));
    snprintf(dir, sizeof(dir), "%s/user", base);
    snprintf(path, sizeof(path), "%s/accelosd.sock", dir);
    pid_t daemon = start_daemon(path, NULL);
    ck_assert_uint_eq(mode_of(dir, NULL), 0700);
    ck_assert_uint_eq(mode_of(path, NULL), 0600);

    /* The owner (root here) is served. */
    struct attempt a = attempt_as(0, 0, NULL, 0, path);
    ck_assert_int_eq(a.connect_errno, 0);
    ck_assert_int_eq(a.status, 0);
    ck_assert(a.got_region);

    /* Another user cannot reach the socket at all. */
    a = attempt_as(nobody.uid, nobody.gid, NULL, 0, path);
    ck_assert_int_eq(a.connect_errno, EACCES);

    /* Loosened modes (an operator's mistake): connect works, the daemon still refuses. */
    ck_assert_int_eq(chmod(dir, 0711), 0);
    ck_assert_int_eq(chmod(path, 0666), 0);
    a = attempt_as(nobody.uid, nobody.gid, NULL, 0, path);
    ck_assert_int_eq(a.connect_errno, 0);
    ck_assert_int_eq(a.handshake, 0);
    ck_assert_int_eq(a.status, -EACCES);
    ck_assert(!a.got_region);
    /* ... and so does a status request, which would tell about other users' clients. */
    a = attempt_kind_as(AOS_HELLO_STATUS, nobody.uid, nobody.gid, NULL, 0, path);
    ck_assert_int_eq(a.connect_errno, 0);
    ck_assert_int_eq(a.status, -EACCES);
    stop_daemon(daemon);
    unlink(path);
    rmdir(dir);
    rmdir(base);
}
END_TEST

START_TEST(test_system_mode_with_group)
{
    struct other_user nobody = need_root_and_nobody();
    char base[128], dir[160], path[200];
    make_base(base, sizeof(base));
    snprintf(dir, sizeof(dir), "%s/system", base);
    snprintf(path, sizeof(path), "%s/accelosd.sock", dir);
    const char *args[] = {"--system", "--group", nobody.group_name, NULL};
    pid_t daemon = start_daemon(path, args);
    gid_t dir_group = 0, sock_group = 0;
    ck_assert_uint_eq(mode_of(dir, &dir_group), 0750);
    ck_assert_uint_eq(mode_of(path, &sock_group), 0660);
    ck_assert_uint_eq(dir_group, nobody.gid);
    ck_assert_uint_eq(sock_group, nobody.gid);

    /* A member by primary group is served. */
    struct attempt a = attempt_as(nobody.uid, nobody.gid, NULL, 0, path);
    ck_assert_int_eq(a.connect_errno, 0);
    ck_assert_int_eq(a.status, 0);
    ck_assert(a.got_region);
    /* A member by supplementary group is served too. */
    gid_t supplementary[] = {nobody.gid};
    a = attempt_as(nobody.uid, nobody.other_gid, supplementary, 1, path);
    ck_assert_int_eq(a.connect_errno, 0);
    ck_assert_int_eq(a.status, 0);
    ck_assert(a.got_region);
    /* Not a member: the directory keeps it out. */
    a = attempt_as(nobody.uid, nobody.other_gid, NULL, 0, path);
    ck_assert_int_eq(a.connect_errno, EACCES);
    /* With the directory opened up, the daemon's own check refuses it. */
    ck_assert_int_eq(chmod(dir, 0755), 0);
    ck_assert_int_eq(chmod(path, 0666), 0);
    a = attempt_as(nobody.uid, nobody.other_gid, NULL, 0, path);
    ck_assert_int_eq(a.connect_errno, 0);
    ck_assert_int_eq(a.status, -EACCES);
    ck_assert(!a.got_region);
    stop_daemon(daemon);
    unlink(path);
    rmdir(dir);
    rmdir(base);
}
END_TEST

START_TEST(test_system_mode_without_group)
{
    struct other_user nobody = need_root_and_nobody();
    char base[128], dir[160], path[200];
    make_base(base, sizeof(base));
    snprintf(dir, sizeof(dir), "%s/system", base);
    snprintf(path, sizeof(path), "%s/accelosd.sock", dir);
    const char *args[] = {"--system", NULL};
    pid_t daemon = start_daemon(path, args);
    gid_t dir_group = 1, sock_group = 1;
    ck_assert_uint_eq(mode_of(dir, &dir_group), 0750);
    ck_assert_uint_eq(mode_of(path, &sock_group), 0660);
    ck_assert_uint_eq(dir_group, 0);
    ck_assert_uint_eq(sock_group, 0);
    struct attempt a = attempt_as(nobody.uid, nobody.gid, NULL, 0, path);
    ck_assert_int_eq(a.connect_errno, EACCES);
    stop_daemon(daemon);
    unlink(path);
    rmdir(dir);
    rmdir(base);
}
END_TEST

START_TEST(test_group_needs_system_mode)
{
    /* --group alone would suggest a shared daemon that is not one: refused at start. */
    static const char *const args[] = {"--socket", "/nonexistent/accelosd.sock", "--group", "daemon", NULL};
    ck_assert_int_eq(aos_test_daemon_exit_code(args), 2);
}
END_TEST

/* A socket put straight into a shared directory (sticky and world-writable, like /tmp) leaves
 * the directory as it was; the socket is still private (per user) or group-only (system). Needs
 * no root: the daemon used to chmod any existing directory its user owned. */
START_TEST(test_existing_directory_keeps_its_mode)
{
    static const char *const system_args[] = {"--system", NULL};
    const char *const *modes[] = {NULL, system_args};
    const unsigned socket_modes[] = {0600, 0660};
    for (int m = 0; m < 2; m++) {
        char dir[64] = "/tmp/accelos-perm-shared-XXXXXX", path[128];
        ck_assert_ptr_nonnull(mkdtemp(dir));
        ck_assert_int_eq(chmod(dir, 01777), 0);
        snprintf(path, sizeof(path), "%s/accelosd.sock", dir);
        pid_t daemon = start_daemon(path, modes[m]);
        ck_assert_uint_eq(mode_of(dir, NULL), 01777);
        ck_assert_uint_eq(mode_of(path, NULL), socket_modes[m]);
        stop_daemon(daemon);
        unlink(path);
        rmdir(dir);
    }
}
END_TEST

/* A --socket that names a file which is not a socket (a typo, a wrong variable) stops the daemon
 * with an error; the file stays. Only a stale socket is replaced. */
START_TEST(test_socket_path_naming_a_file_is_refused)
{
    char dir[64] = "/tmp/accelos-perm-file-XXXXXX", path[128], back[16] = "";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/precious", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("keep me\n", f);
    fclose(f);
    const char *args[] = {"--socket", path, NULL};
    ck_assert_int_eq(aos_test_daemon_exit_code(args), 1);
    f = fopen(path, "r");
    ck_assert_msg(f != NULL, "the daemon deleted %s", path);
    ck_assert_ptr_nonnull(fgets(back, sizeof(back), f));
    fclose(f);
    ck_assert_str_eq(back, "keep me\n");
    unlink(path);
    rmdir(dir);
}
END_TEST

int main(void)
{
    Suite *suite = suite_create("permissions");
    TCase *tc = tcase_create("permissions");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_per_user_socket_is_private);
    tcase_add_test(tc, test_system_mode_with_group);
    tcase_add_test(tc, test_system_mode_without_group);
    tcase_add_test(tc, test_group_needs_system_mode);
    tcase_add_test(tc, test_existing_directory_keeps_its_mode);
    tcase_add_test(tc, test_socket_path_naming_a_file_is_refused);
    suite_add_tcase(suite, tc);
    return aos_check_run(suite);
}
