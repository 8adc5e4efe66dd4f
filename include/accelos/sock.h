/* Unix-socket helpers for the handshake: default paths and passing one fd with SCM_RIGHTS. */
#ifndef ACCELOS_SOCK_H
#define ACCELOS_SOCK_H

#include <stddef.h>

/* Socket path: $ACCELOS_SOCKET, else $XDG_RUNTIME_DIR/accelos/accelosd.sock, else
 * /run/accelos/accelosd.sock. Returns 0 or -ENAMETOOLONG. */
int aos_socket_default_path(char *buf, size_t cap);

/* Sends len bytes and, when fd >= 0, the fd. Returns 0 or a negative errno. */
int aos_sock_send(int sock, const void *data, size_t len, int fd);
/* Receives exactly len bytes within timeout_ms, plus at most one fd (*fd = -1 if none; extra fds
 * are closed). Returns 0, -ETIMEDOUT, -ECONNRESET on EOF, or a negative errno. */
int aos_sock_recv(int sock, void *data, size_t len, int *fd, int timeout_ms);
/* Connects to a Unix socket path; returns the fd or a negative errno. */
int aos_sock_connect(const char *path);

#endif
