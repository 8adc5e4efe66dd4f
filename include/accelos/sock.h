/* Unix-socket helpers for the handshake: default paths and passing one fd with SCM_RIGHTS. */
#ifndef ACCELOS_SOCK_H
#define ACCELOS_SOCK_H

#include <stddef.h>

/* Where the system service listens (accelosd --system). */
#define AOS_SYSTEM_SOCKET_PATH "/run/accelos/accelosd.sock"

/* Socket path: $ACCELOS_SOCKET, else $XDG_RUNTIME_DIR/accelos/accelosd.sock, else
 * AOS_SYSTEM_SOCKET_PATH. Returns 0 or -ENAMETOOLONG. */
int aos_socket_default_path(char *buf, size_t cap);
/* The path a client tries when nothing listens at the default one: the system service's, when the
 * default was the per-user path ($ACCELOS_SOCKET unset, $XDG_RUNTIME_DIR set); else NULL, since an
 * explicit $ACCELOS_SOCKET means that daemon and no other. */
const char *aos_socket_fallback_path(void);

/* Connects to path or, when nobody listens there (no socket, or refused) and fallback is not NULL,
 * to fallback. Returns the fd or a negative errno; *used names the path of the last attempt. */
int aos_sock_connect_or(const char *path, const char *fallback, const char **used);

/* Sends len bytes and, when fd >= 0, the fd. Returns 0 or a negative errno. */
int aos_sock_send(int sock, const void *data, size_t len, int fd);
/* The same with up to AOS_SOCK_MAX_FDS descriptors passed along (none when nfds is 0). */
#define AOS_SOCK_MAX_FDS 4
int aos_sock_send_fds(int sock, const void *data, size_t len, const int *fds, size_t nfds);
/* Receives exactly len bytes within timeout_ms, plus at most one fd (*fd = -1 if none; extra fds
 * are closed). Returns 0, -ETIMEDOUT, -ECONNRESET on EOF, or a negative errno. */
int aos_sock_recv(int sock, void *data, size_t len, int *fd, int timeout_ms);
/* Connects to a Unix socket path; returns the fd or a negative errno. */
int aos_sock_connect(const char *path);

#endif
