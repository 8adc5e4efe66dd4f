/*
 * Accepts clients, checks their credentials, hands each a private shared-memory region and then
 * only watches the sockets: a hang-up is how the daemon learns that a client died (even by
 * SIGKILL), and it then tears the client's session down.
 *
 * The handshake never blocks the loop: a new connection waits in a small table of pending
 * handshakes until its hello has arrived (in as many pieces as it likes) or its deadline passed,
 * so a peer that connects and stays silent delays nobody else. When the table is full, the
 * oldest pending connection makes room.
 */
#include "server.h"

#include <errno.h>
#include <fcntl.h>
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
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "accelos/futex.h"
#include "accelos/log.h"
#include "accelos/sock.h"
#include "accelos/wire.h"
#include "arena.h"
#include "device_sched.h"
#include "policy.h"
#include "session.h"
#include "vendor.h"

#define MAX_CLIENTS 1024
#define MAX_PENDING 64
#define HANDSHAKE_TIMEOUT_MS 1000

/* A connection whose hello has not fully arrived yet. */
struct pending_hello {
    int sock;                 /* -1: free entry */
    uint64_t deadline_ns;
    uint32_t got;
    struct aos_hello hello;
};

static struct pending_hello pending[MAX_PENDING];

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
    bool created = mkdir(dir, mode) == 0;
    if (!created && errno != EEXIST)
        return -errno;
    /* Set the modes of a directory we just created, or of accelOS's own default one (/run/accelos,
     * $XDG_RUNTIME_DIR/accelos) if we own it. Any other directory that exists is the operator's:
     * `--socket /tmp/a.sock` run as root used to chmod /tmp to 0700. The socket itself is 0600
     * (0660 with --system) and the daemon checks every peer's uid, so that costs no protection. */
    if (!created && !config->own_socket_dir) {
        aos_log(AOS_LOG_DEBUG, "server", "socket directory %s exists: its permissions are left as they are", dir);
        return 0;
    }
    struct stat st;
    if (stat(dir, &st) < 0)
        return -errno;
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
    /* Only a stale socket goes: a mistyped --socket naming a regular file must not delete it. */
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISSOCK(st.st_mode)) {
        close(fd);
        return -EEXIST;
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

static void send_status(int sock, const struct aos_server_config *config)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    if (!out)
        return;
    fprintf(out, "accelosd %u devices\n", aos_device_count());
    fprintf(out, "policy %s\n", aos_policy_name(aos_policy_get()));
    fprintf(out, "shared-buffers %s in-use %llu\n", config->no_shared_buffers ? "off" : "on",
            (unsigned long long)aos_arena_total_in_use());
    for (uint32_t i = 0; i < aos_device_count(); i++) {
        const struct aos_device *d = aos_device_at(i);
        char name[256] = "";
        NATIVE(d->device, clGetDeviceInfo)(d->device, CL_DEVICE_NAME, sizeof(name), name, NULL);
        fprintf(out, "device %u %s\n", i, name);
        struct aos_device_sched_stats st = aos_device_sched_stats(i);
        fprintf(out,
                "scheduler %u clients-known %zu waves %llu waves-cuttable %llu waves-cut %llu parked-events %zu "
                "alone-measures-waves %llu alone-measures-solo %llu holds %llu held-us %llu held-charged-us %llu\n",
                i, st.clients_known, (unsigned long long)st.waves_started, (unsigned long long)st.waves_cuttable,
                (unsigned long long)st.waves_cut, st.parked_events, (unsigned long long)st.alone_measures_waves,
                (unsigned long long)st.alone_measures_solo, (unsigned long long)st.holds,
                (unsigned long long)(st.held_ns / 1000u), (unsigned long long)(st.held_charged_ns / 1000u));
    }
    pthread_mutex_lock(&clients_lock);
    for (int i = 0; i < MAX_CLIENTS; i++) {
        struct aos_session *s = clients[i].session;
        if (!s)
            continue;
        fprintf(out, "client %llu pid %d uid %u objects %u bytes %llu calls %llu elastic-kernels %llu "
                     "elastic-launches %llu solo-launches %llu held-objects %llu released-queues %u gates %llu gates-failed %llu%s\n",
                (unsigned long long)s->serial, (int)s->pid, (unsigned)s->uid, s->handles.count,
                (unsigned long long)s->bytes_allocated, (unsigned long long)s->calls,
                (unsigned long long)atomic_load(&s->elastic_kernels),
                (unsigned long long)atomic_load(&s->elastic_launches),
                (unsigned long long)atomic_load(&s->solo_launches),
                (unsigned long long)atomic_load(&s->launch_held_objects),
                (unsigned)atomic_load(&s->released_queues_kept), (unsigned long long)atomic_load(&s->gates_set),
                (unsigned long long)atomic_load(&s->gates_failed), clients[i].ended || atomic_load(&s->dead) ? " closing" : "");
    }
    pthread_mutex_unlock(&clients_lock);
    fclose(out);
    aos_sock_send(sock, text, size, -1);
    free(text);
}

/* Answers a complete hello: a status report, a refusal, or a new session. */
static void handle_hello(int sock, const struct aos_hello *h, const struct aos_server_config *config)
{
    struct ucred cred;
    struct aos_hello hello = *h;
    struct aos_welcome welcome = {.magic = AOS_WIRE_MAGIC, .version = AOS_WIRE_VERSION};
    /* Back to blocking for the few writes of the handshake, bounded by a send timeout, so a peer
     * that does not read cannot hold the loop for long either. */
    int flags = fcntl(sock, F_GETFL);
    struct timeval send_timeout = {.tv_sec = HANDSHAKE_TIMEOUT_MS / 1000, .tv_usec = (HANDSHAKE_TIMEOUT_MS % 1000) * 1000};
    if (hello.magic != AOS_WIRE_MAGIC || flags < 0 || fcntl(sock, F_SETFL, flags & ~O_NONBLOCK) < 0 ||
        setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof(send_timeout)) < 0) {
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
    if (hello.version != AOS_WIRE_VERSION || (hello.kind != AOS_HELLO_CLIENT && hello.kind != AOS_HELLO_STATUS)) {
        welcome.status = -EPROTONOSUPPORT;
        aos_sock_send(sock, &welcome, sizeof(welcome), -1);
        close(sock);
        return;
    }
    if (hello.kind == AOS_HELLO_STATUS) {
        aos_sock_send(sock, &welcome, sizeof(welcome), -1);
        send_status(sock, config);
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
    struct aos_session *s = slot >= 0 ? aos_session_new(sock, cred.pid, cred.uid, !config->no_shared_buffers, &region_fd) : NULL;
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

static void pending_close(struct pending_hello *p)
{
    close(p->sock);
    p->sock = -1;
}

/* Accepts every connection waiting on the listening socket into the pending table. */
static void accept_pending(int listen_fd, uint64_t now)
{
    for (;;) {
        int sock = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (sock < 0)
            return;
        struct pending_hello *slot = NULL, *oldest = &pending[0];
        for (int i = 0; i < MAX_PENDING && !slot; i++) {
            if (pending[i].sock < 0)
                slot = &pending[i];
            else if (pending[i].deadline_ns < oldest->deadline_ns)
                oldest = &pending[i];
        }
        if (!slot) {
            aos_log(AOS_LOG_INFO, "server", "too many handshakes at once: dropping the oldest");
            pending_close(oldest);
            slot = oldest;
        }
        *slot = (struct pending_hello){.sock = sock, .deadline_ns = now + HANDSHAKE_TIMEOUT_MS * 1000000ull};
    }
}

/* Reads what arrived of a pending hello; hands a complete one over. */
static void pending_read(struct pending_hello *p, const struct aos_server_config *config)
{
    if (p->sock < 0)
        return;
    ssize_t n = recv(p->sock, (char *)&p->hello + p->got, sizeof(p->hello) - p->got, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        pending_close(p);
        return;
    }
    p->got += (uint32_t)n;
    if (p->got < sizeof(p->hello))
        return;
    int sock = p->sock;
    p->sock = -1;
    handle_hello(sock, &p->hello, config);
}

/* Closes handshakes past their deadline; returns the poll timeout until the next one (-1: none). */
static int pending_expire(uint64_t now)
{
    int timeout = -1;
    for (int i = 0; i < MAX_PENDING; i++) {
        if (pending[i].sock < 0)
            continue;
        if (pending[i].deadline_ns <= now) {
            pending_close(&pending[i]);
            continue;
        }
        int ms = (int)((pending[i].deadline_ns - now + 999999) / 1000000);
        if (timeout < 0 || ms < timeout)
            timeout = ms;
    }
    return timeout;
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

static void shutdown_signals(sigset_t *mask)
{
    sigemptyset(mask);
    sigaddset(mask, SIGTERM);
    sigaddset(mask, SIGINT);
}

void aos_server_block_signals(void)
{
    sigset_t mask;
    shutdown_signals(&mask);
    pthread_sigmask(SIG_BLOCK, &mask, NULL);
    signal(SIGPIPE, SIG_IGN);
}

int aos_server_run(const struct aos_server_config *config)
{
    sigset_t mask;
    shutdown_signals(&mask);
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
    static struct pollfd fds[MAX_CLIENTS + MAX_PENDING + 3];
    static struct aos_session *watched[MAX_CLIENTS + MAX_PENDING + 3];
    static struct pending_hello *handshaking[MAX_CLIENTS + MAX_PENDING + 3];
    for (int i = 0; i < MAX_PENDING; i++)
        pending[i].sock = -1;
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
                handshaking[n] = NULL;
                fds[n++] = (struct pollfd){.fd = s->sock, .events = POLLIN | POLLRDHUP};
            }
        }
        pthread_mutex_unlock(&clients_lock);
        int timeout = pending_expire(aos_now_ns());
        for (int i = 0; i < MAX_PENDING; i++) {
            if (pending[i].sock < 0)
                continue;
            watched[n] = NULL;
            handshaking[n] = &pending[i];
            fds[n++] = (struct pollfd){.fd = pending[i].sock, .events = POLLIN | POLLRDHUP};
        }
        if (poll(fds, n, timeout) < 0) {
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
        for (nfds_t i = 3; i < n; i++) {
            if (!fds[i].revents)
                continue;
            if (handshaking[i]) {
                pending_read(handshaking[i], config);
                continue;
            }
            char junk[64];
            /* Clients never write after the hello: EOF means the peer went away, and data is a
             * protocol violation. */
            ssize_t got = recv(fds[i].fd, junk, sizeof(junk), MSG_DONTWAIT);
            if (got > 0)
                aos_session_kill(watched[i], "wrote to its socket after the hello");
            else if (got == 0 || (fds[i].revents & (POLLHUP | POLLRDHUP | POLLERR)) ||
                     (errno != EAGAIN && errno != EINTR))
                aos_session_kill(watched[i], "disconnected");
        }
        if (fds[2].revents & POLLIN)
            accept_pending(listen_fd, aos_now_ns());
    }
    for (int i = 0; i < MAX_PENDING; i++)
        if (pending[i].sock >= 0)
            pending_close(&pending[i]);
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
