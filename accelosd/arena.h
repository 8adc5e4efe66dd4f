/*
 * A client's shared-buffer arena, daemon side: the daemon's mapping of the part of the client's
 * memfd past its region (wire.h), and a first-fit allocator of page-aligned extents in it.
 *
 * On devices whose memory is host memory, buffers get their storage here (ops_mem.c), so the
 * client, which maps the same pages, copies large transfers straight into them: one copy instead
 * of two through the staging area. Only this client's buffers live in its arena.
 *
 * Lifetime: reference counted. The session holds one reference and every extent handed out holds
 * another, dropped by aos_arena_free, which runs from the real buffer's destructor callback and so
 * possibly after the session has gone. The mapping goes with the last reference. Thread-safe.
 */
#ifndef ACCELOSD_ARENA_H
#define ACCELOSD_ARENA_H

#include <stdint.h>

struct aos_arena;

/* Maps size bytes of fd at off (both page multiples). NULL with errno on failure. */
struct aos_arena *aos_arena_map(int fd, uint64_t off, uint64_t size);
void aos_arena_unref(struct aos_arena *a);

/* Reserves bytes, rounded up to whole pages; the extent takes a reference on the arena. Returns 0
 * and the extent's arena offset in *off, or -ENOSPC (no free extent large enough), -ENOMEM. */
int aos_arena_alloc(struct aos_arena *a, uint64_t bytes, uint64_t *off);
/* Returns an extent (bytes as given to aos_arena_alloc), hands its pages back to the system and
 * drops the extent's reference. */
void aos_arena_free(struct aos_arena *a, uint64_t off, uint64_t bytes);
/* The daemon's address of arena offset off (inside an extent it handed out). */
void *aos_arena_at(const struct aos_arena *a, uint64_t off);

/* Bytes handed out by this arena, and by all arenas of the daemon (for --status). */
uint64_t aos_arena_in_use(struct aos_arena *a);
uint64_t aos_arena_total_in_use(void);

#endif
