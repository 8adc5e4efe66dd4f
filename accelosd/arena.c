/*
 * Shared-buffer arenas (arena.h). Free extents are kept in a list sorted by offset and merged with
 * their neighbours on free, so the arena does not fragment into slivers under alloc/free churn.
 * Clients hold few buffers, so a list walk per allocation is cheap enough.
 */
#include "arena.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>

#define PAGE 4096u

struct free_extent {
    struct free_extent *next;
    uint64_t off, len;
};

struct aos_arena {
    _Atomic uint32_t refs;
    pthread_mutex_t lock;
    uint8_t *base;
    uint64_t size;
    uint64_t in_use;
    struct free_extent *free; /* sorted by off, never adjacent */
};

static _Atomic uint64_t total_in_use;

static uint64_t pages(uint64_t bytes) { return (bytes + PAGE - 1) & ~(uint64_t)(PAGE - 1); }

struct aos_arena *aos_arena_map(int fd, uint64_t off, uint64_t size)
{
    if (size == 0 || size % PAGE || off % PAGE) {
        errno = EINVAL;
        return NULL;
    }
    struct aos_arena *a = calloc(1, sizeof(*a));
    struct free_extent *all = malloc(sizeof(*all));
    if (!a || !all) {
        free(a);
        free(all);
        errno = ENOMEM;
        return NULL;
    }
    /* MAP_NORESERVE: address space only; pages come with the buffers that touch them. */
    void *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, (off_t)off);
    if (base == MAP_FAILED) {
        int err = errno;
        free(a);
        free(all);
        errno = err;
        return NULL;
    }
    *all = (struct free_extent){.next = NULL, .off = 0, .len = size};
    atomic_init(&a->refs, 1);
    pthread_mutex_init(&a->lock, NULL);
    a->base = base;
    a->size = size;
    a->free = all;
    return a;
}

void aos_arena_unref(struct aos_arena *a)
{
    if (!a || atomic_fetch_sub(&a->refs, 1) != 1)
        return;
    munmap(a->base, a->size);
    for (struct free_extent *f = a->free, *next; f; f = next) {
        next = f->next;
        free(f);
    }
    pthread_mutex_destroy(&a->lock);
    free(a);
}

int aos_arena_alloc(struct aos_arena *a, uint64_t bytes, uint64_t *off)
{
    uint64_t len = pages(bytes);
    if (bytes == 0 || len < bytes)
        return -ENOSPC;
    pthread_mutex_lock(&a->lock);
    for (struct free_extent **p = &a->free; *p; p = &(*p)->next) {
        struct free_extent *f = *p;
        if (f->len < len)
            continue;
        *off = f->off;
        f->off += len;
        f->len -= len;
        if (f->len == 0) {
            *p = f->next;
            free(f);
        }
        a->in_use += len;
        atomic_fetch_add(&a->refs, 1);
        pthread_mutex_unlock(&a->lock);
        atomic_fetch_add(&total_in_use, len);
        return 0;
    }
    pthread_mutex_unlock(&a->lock);
    return -ENOSPC;
}

void aos_arena_free(struct aos_arena *a, uint64_t off, uint64_t bytes)
{
    uint64_t len = pages(bytes);
    /* The client may still have the pages mapped: MADV_REMOVE frees them for both sides (a later
     * access reads zeros), which munmap of our view alone would not. */
    madvise(a->base + off, len, MADV_REMOVE);
    pthread_mutex_lock(&a->lock);
    struct free_extent *prev = NULL, *next = a->free;
    while (next && next->off < off) {
        prev = next;
        next = next->next;
    }
    if (prev && prev->off + prev->len == off) {
        prev->len += len;
        if (next && prev->off + prev->len == next->off) {
            prev->len += next->len;
            prev->next = next->next;
            free(next);
        }
    } else if (next && off + len == next->off) {
        next->off = off;
        next->len += len;
    } else {
        struct free_extent *f = malloc(sizeof(*f));
        if (f) {
            *f = (struct free_extent){.next = next, .off = off, .len = len};
            if (prev)
                prev->next = f;
            else
                a->free = f;
        } /* else the extent is lost to this arena: harmless, it only limits later allocations */
    }
    a->in_use -= len;
    pthread_mutex_unlock(&a->lock);
    atomic_fetch_sub(&total_in_use, len);
    aos_arena_unref(a);
}

void *aos_arena_at(const struct aos_arena *a, uint64_t off)
{
    return a->base + off;
}

uint64_t aos_arena_in_use(struct aos_arena *a)
{
    pthread_mutex_lock(&a->lock);
    uint64_t n = a->in_use;
    pthread_mutex_unlock(&a->lock);
    return n;
}

uint64_t aos_arena_total_in_use(void)
{
    return atomic_load(&total_in_use);
}
