/* The listening socket, the handshake and the watch on every client's socket. */
#ifndef ACCELOSD_SERVER_H
#define ACCELOSD_SERVER_H

#include <stdbool.h>
#include <sys/types.h>

struct aos_session;

struct aos_server_config {
    const char *socket_path;
    bool system_mode;      /* /run/accelos, group access */
    gid_t allowed_gid;     /* system mode: members of this group may connect (0: root only) */
    bool has_allowed_gid;
    bool own_socket_dir;   /* the default socket path: its directory is accelOS's, tightened even if it exists */
    bool no_shared_buffers; /* never place buffers in client arenas (every transfer is staged) */
};

/* Blocks SIGTERM and SIGINT in the calling thread and ignores SIGPIPE. Call it before any other
 * thread starts (PoCL starts its workers when the vendors load): threads inherit the mask, and one
 * that did not block them would end the daemon on the spot instead of letting it stop in order. */
void aos_server_block_signals(void);

/* Creates the socket directory and socket with the right permissions and serves until SIGTERM or
 * SIGINT, which aos_server_block_signals() must have blocked. Returns 0 on an orderly stop, a
 * negative errno when it cannot start. */
int aos_server_run(const struct aos_server_config *config);

/* Called by a session's service thread when it has released the client's objects. */
void aos_server_session_ended(struct aos_session *s);

#endif
