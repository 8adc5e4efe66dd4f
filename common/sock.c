#include "accelos/sock.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int aos_socket_default_path(char *buf, size_t cap)
{
    const char *env = getenv("ACCELOS_SOCKET");
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    int n;
    if (env && *env)
        n = snprintf(buf, cap, "%s", env);
    else if (xdg && *xdg)
        n = snprintf(buf, cap, "%s/accelos/accelosd.sock", xdg);
    else
        n = snprintf(buf, cap, "%s", AOS_SYSTEM_SOCKET_PATH);
    return (n < 0 || (size_t)n >= cap) ? -ENAMETOOLONG : 0;
}

const char *aos_socket_fallback_path(void)
{
    const char *env = getenv("ACCELOS_SOCKET");
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    return (env && *env) || !(xdg && *xdg) ? NULL : AOS_SYSTEM_SOCKET_PATH;
}

int aos_sock_connect_or(const char *path, const char *fallback, const char **used)
{
    *used = path;
    int sock = aos_sock_connect(path);
    if (sock < 0 && fallback && (sock == -ENOENT || sock == -ECONNREFUSED)) {
        *used = fallback;
        sock = aos_sock_connect(fallback);
    }
    return sock;
}

int aos_sock_send_fds(int sock, const void *data, size_t len, const int *fds, size_t nfds)
{
    struct iovec iov = {.iov_base = (void *)data, .iov_len = len};
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int) * AOS_SOCK_MAX_FDS)];
    } control;
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
    if (nfds > AOS_SOCK_MAX_FDS)
        return -EINVAL;
    if (nfds) {
        memset(&control, 0, sizeof(control));
        msg.msg_control = control.buf;
        msg.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
        memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
    }
    ssize_t n;
    do
        n = sendmsg(sock, &msg, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return -errno;
    return (size_t)n == len ? 0 : -EIO;
}

int aos_sock_send(int sock, const void *data, size_t len, int fd)
{
    return aos_sock_send_fds(sock, data, len, &fd, fd >= 0 ? 1 : 0);
}

int aos_sock_recv(int sock, void *data, size_t len, int *fd, int timeout_ms)
{
    size_t got = 0;
    if (fd)
        *fd = -1;
    while (got < len) {
        struct pollfd p = {.fd = sock, .events = POLLIN};
        int pr = poll(&p, 1, timeout_ms);
        if (pr == 0)
            return -ETIMEDOUT;
        if (pr < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        union {
            struct cmsghdr align;
            char buf[CMSG_SPACE(sizeof(int) * 4)];
        } control;
        struct iovec iov = {.iov_base = (char *)data + got, .iov_len = len - got};
        struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                             .msg_controllen = sizeof(control.buf)};
        ssize_t n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (n == 0)
            return -ECONNRESET;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
            if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
                continue;
            size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            for (size_t i = 0; i < count; i++) {
                int received;
                memcpy(&received, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
                if (fd && *fd < 0)
                    *fd = received;
                else
                    close(received);
            }
        }
        got += (size_t)n;
    }
    return 0;
}

int aos_sock_connect(const char *path)
{
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof(addr.sun_path))
        return -ENAMETOOLONG;
    strcpy(addr.sun_path, path);
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0)
        return -errno;
    if (connect(s, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
        int err = -errno;
        close(s);
        return err;
    }
    return s;
}
