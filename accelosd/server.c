/*
 * Accepts clients, checks their credentials, hands each a private shared-memory region and then
 * only watches the sockets: a hang-up is how the daemon learns that a client died (even by
 * SIGKILL), and it then tears the client's session down.
 */
#include "server.h"

#include <errno.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "accelos/log.h"
#include "accelos/sock.h"
#include "accelos/wire.h"
#include "session.h"
#include "vendor.h"

#define MAX_CLIENTS 1024
#define HANDSHAKE_TIMEOUT_MS 1000

struct client_entry {
    struct aos_session *session;
    bool ended;
};

static pthread_mutex_t clients_lock = PTHREAD_MUTEX_INITIALIZER;
static struct client_entry clients[MAX_CLIENTS];
static int wake_fd = -1;

void aos_server_session_ended(struct aos_session *s)
{
    pthread_mutex_lock(&clients_lock);
    for (int i = 0; i < MAX_CLIENTS; i++)
        if (clients[i].session == s)
            clients[i].ended = true;
    pthread_mutex_unlock(&clients_lock);
    uint64_t one = 1;
    if (write(wake_fd, &one, sizeof(one)) < 0)
        aos_log(AOS_LOG_WARN, "server", "cannot wake the server loop: %s", strerror(errno));
}

static int make_parent_dir(const char *path, mode_t mode, const struct aos_server_config *config)
{
    char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
    snprintf(dir, sizeof(dir), "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    *slash = 0;
    if (mkdir(dir, mode) < 0 && errno != EEXIST)
        return -errno;
    struct stat st;
    if (stat(dir, &st) < 0)
        return -errno;
    /* Only tighten a directory we own; a foreign one is the operator's choice. */
    if (st.st_uid == geteuid()) {
        if (chmod(dir, mode) < 0)
            return -errno;
        if (config->system_mode && config->has_allowed_gid && chown(dir, (uid_t)-1, config->allowed_gid) < 0)
            return -errno;
    }
    return 0;
}

static int listen_socket(const struct aos_server_config *config)
{
    const char *path = config->socket_path;
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof(addr.sun_path))
        return -ENAMETOOLONG;
    strcpy(addr.sun_path, path);
    mode_t dir_mode = config->system_mode ? 0750 : 0700;
    int rc = make_parent_dir(path, dir_mode, config);
    if (rc < 0)
        return rc;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -errno;
    /* A socket file left by a crashed daemon is removed only if nobody answers on it. */
    int probe = aos_sock_connect(path);
    if (probe >= 0) {
        close(probe);
        close(fd);
        return -EADDRINUSE;
    }
    unlink(path);
    mode_t old = umask(config->system_mode ? 0117 : 0177);
    rc = bind(fd, (struct sockaddr *)&addr, sizeof(addr));
    umask(old);
    if (rc < 0 || listen(fd, 64) < 0) {
        rc = -errno;
        close(fd);
        return rc;
    }
    if (config->system_mode && config->has_allowed_gid && chown(path, (uid_t)-1, config->allowed_gid) < 0) {
        rc = -errno;
        close(fd);
        return rc;
    }
    return fd;
}

static bool peer_allowed(int sock, const struct aos_server_config *config, struct ucred *cred)
{
    socklen_t len = sizeof(*cred);
    if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, cred, &len) < 0)
        return false;
    if (cred->uid == 0 || cred->uid == geteuid())
        return true;
    if (!config->system_mode || !config->has_allowed_gid)
        return false;
    if (cred->gid == config->allowed_gid)
        return true;
    gid_t groups[256];
    len = sizeof(groups);
    if (getsockopt(sock, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0)
        return false;
    for (size_t i = 0; i < len / sizeof(gid_t); i++)
        if (groups[i] == config->allowed_gid)
            return true;
    return false;
}

static void send_status(int sock)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    if (!out)
        return;
    fprintf(out, "accelosd %u devices\n", aos_device_count());
    for (uint32_t i = 0; i < aos_device_count(); i++) {
        const struct aos_device *d = aos_device_at(i);
        char name[256] = "";
        NATIVE(d->device, clGetDeviceInfo)(d->device, CL_DEVICE_NAME, sizeof(name), name, NULL);
        fprintf(out, "device %u %s\n", i, name);
    }
    pthread_mutex_lock(&clients_lock);
    for (int i = 0; i < MAX_CLIENTS; i++) {
        struct aos_session *s = clients[i].session;
        if (!s)
            continue;
        fprintf(out, "client %llu pid %d uid %u objects %u bytes %llu calls %llu%s\n",
                (unsigned long long)s->serial, (int)s->pid, (unsigned)s->uid, s->handles.count,
                (unsigned long long)s->bytes_allocated, (unsigned long long)s->calls,
                clients[i].ended || atomic_load(&s->dead) ? " closing" : "");
    }
    pthread_mutex_unlock(&clients_lock);
    fclose(out);
    aos_sock_send(sock, text, size, -1);
    free(text);
}

static void accept_client(int listen_fd, const struct aos_server_config *config)
{
    int sock = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (sock < 0)
        return;
    struct ucred cred;
    struct aos_hello hello;
    struct aos_welcome welcome = {.magic = AOS_WIRE_MAGIC, .version = AOS_WIRE_VERSION};
    if (aos_sock_recv(sock, &hello, sizeof(hello), NULL, HANDSHAKE_TIMEOUT_MS) < 0 || hello.magic != AOS_WIRE_MAGIC) {
        close(sock);
        return;
    }
    if (!peer_allowed(sock, config, &cred)) {
        aos_log(AOS_LOG_WARN, "server", "refused connection from uid %u", (unsigned)cred.uid);
        welcome.status = -EACCES;
        aos_sock_send(sock, &welcome, sizeof(welcome), -1);
        close(sock);
        return;
    }
    if (hello.version != AOS_WIRE_VERSION) {
        welcome.status = -EPROTONOSUPPORT;
        aos_sock_send(sock, &welcome, sizeof(welcome), -1);
        close(sock);
        return;
    }
    if (hello.kind == AOS_HELLO_STATUS) {
        aos_sock_send(sock, &welcome, sizeof(welcome), -1);
        send_status(sock);
        close(sock);
        return;
    }
    int slot = -1;
    pthread_mutex_lock(&clients_lock);
    for (int i = 0; i < MAX_CLIENTS && slot < 0; i++)
        if (!clients[i].session)
            slot = i;
    pthread_mutex_unlock(&clients_lock);
    int region_fd = -1;
    struct aos_session *s = slot >= 0 ? aos_session_new(sock, cred.pid, cred.uid, &region_fd) : NULL;
    if (!s) {
        welcome.status = slot < 0 ? -EUSERS : -ENOMEM;
        aos_sock_send(sock, &welcome, sizeof(welcome), -1);
        close(sock);
        return;
    }
    welcome.region_size = (uint32_t)s->region.size;
    int rc = aos_sock_send(sock, &welcome, sizeof(welcome), region_fd);
    close(region_fd);
    if (rc < 0) {
        aos_session_unref(s);
        close(sock);
        return;
    }
    aos_session_ref(s); /* the server's reference, dropped when the client's socket is closed */
    pthread_mutex_lock(&clients_lock);
    clients[slot] = (struct client_entry){.session = s};
    pthread_mutex_unlock(&clients_lock);
    if (aos_session_start(s) < 0) {
        aos_session_kill(s, "could not start its service thread");
        aos_server_session_ended(s);
        aos_session_unref(s);
        return;
    }
    aos_log(AOS_LOG_INFO, "server", "client %llu connected (pid %d, uid %u)", (unsigned long long)s->serial,
            (int)cred.pid, (unsigned)cred.uid);
}

static void reap_ended(void)
{
    pthread_mutex_lock(&clients_lock);
    for (int i = 0; i < MAX_CLIENTS; i++) {
        if (!clients[i].session || !clients[i].ended)
            continue;
        struct aos_session *s = clients[i].session;
        clients[i] = (struct client_entry){0};
        close(s->sock);
        aos_session_unref(s);
    }
    pthread_mutex_unlock(&clients_lock);
}

int aos_server_run(const struct aos_server_config *config)
{
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    pthread_sigmask(SIG_BLOCK, &mask, NULL);
    signal(SIGPIPE, SIG_IGN);
    int sig_fd = signalfd(-1, &mask, SFD_CLOEXEC);
    wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    int listen_fd = listen_socket(config);
    if (listen_fd < 0 || sig_fd < 0 || wake_fd < 0) {
        int err = listen_fd < 0 ? listen_fd : -errno;
        if (sig_fd >= 0)
            close(sig_fd);
        return err;
    }
    aos_log(AOS_LOG_INFO, "server", "listening on %s", config->socket_path);
    static struct pollfd fds[MAX_CLIENTS + 3];
    static struct aos_session *watched[MAX_CLIENTS + 3];
    bool running = true;
    while (running) {
        nfds_t n = 0;
        fds[n++] = (struct pollfd){.fd = sig_fd, .events = POLLIN};
        fds[n++] = (struct pollfd){.fd = wake_fd, .events = POLLIN};
        fds[n++] = (struct pollfd){.fd = listen_fd, .events = POLLIN};
        pthread_mutex_lock(&clients_lock);
        for (int i = 0; i < MAX_CLIENTS; i++) {
            struct aos_session *s = clients[i].session;
            if (s && !clients[i].ended && !atomic_load(&s->dead)) {
                watched[n] = s;
                fds[n++] = (struct pollfd){.fd = s->sock, .events = POLLIN | POLLRDHUP};
            }
        }
        pthread_mutex_unlock(&clients_lock);
        if (poll(fds, n, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (fds[0].revents) {
            aos_log(AOS_LOG_INFO, "server", "stopping on signal");
            running = false;
        }
        if (fds[1].revents) {
            uint64_t v;
            if (read(wake_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
                break;
            reap_ended();
        }
        if (fds[2].revents & POLLIN)
            accept_client(listen_fd, config);
        for (nfds_t i = 3; i < n; i++) {
            if (!fds[i].revents)
                continue;
            char junk[64];
            /* Clients never write after the hello: any data or EOF means the peer went away. */
            ssize_t got = recv(fds[i].fd, junk, sizeof(junk), MSG_DONTWAIT);
            if (got <= 0 || (fds[i].revents & (POLLHUP | POLLRDHUP | POLLERR)))
                aos_session_kill(watched[i], "disconnected");
        }
    }
    unlink(config->socket_path);
    close(listen_fd);
    /* Tell every client's service thread to release its objects, then give them a moment. */
    pthread_mutex_lock(&clients_lock);
    for (int i = 0; i < MAX_CLIENTS; i++)
        if (clients[i].session)
            aos_session_kill(clients[i].session, "daemon stopping");
    pthread_mutex_unlock(&clients_lock);
    for (int tries = 0; tries < 100; tries++) {
        reap_ended();
        bool any = false;
        pthread_mutex_lock(&clients_lock);
        for (int i = 0; i < MAX_CLIENTS; i++)
            any |= clients[i].session != NULL;
        pthread_mutex_unlock(&clients_lock);
        if (!any)
            break;
        usleep(20000);
    }
    close(sig_fd);
    return 0;
}
