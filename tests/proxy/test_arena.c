/* Unit tests of the daemon's shared-buffer arena allocator (accelosd/arena.c) over a real memfd. */
#include <check.h>
#include "check_run.h"
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"

#define PAGE 4096u
#define SIZE (64u * PAGE)

static int fd = -1;
static struct aos_arena *arena;

static void setup(void)
{
    fd = memfd_create("test-arena", MFD_CLOEXEC);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(ftruncate(fd, 2 * SIZE), 0);
    arena = aos_arena_map(fd, SIZE, SIZE); /* the second half, as past a region */
    ck_assert_ptr_nonnull(arena);
}

static void teardown(void)
{
    aos_arena_unref(arena);
    close(fd);
}

static uint64_t alloc(uint64_t bytes)
{
    uint64_t off = UINT64_MAX;
    ck_assert_int_eq(aos_arena_alloc(arena, bytes, &off), 0);
    ck_assert_uint_eq(off % PAGE, 0);
    return off;
}

START_TEST(test_pages_first_fit_and_exhaustion)
{
    uint64_t a = alloc(1), b = alloc(PAGE + 1), c = alloc(PAGE);
    ck_assert_uint_eq(a, 0);
    ck_assert_uint_eq(b, PAGE);
    ck_assert_uint_eq(c, 3 * PAGE);
    ck_assert_uint_eq(aos_arena_in_use(arena), 4 * PAGE);
    uint64_t off;
    ck_assert_int_eq(aos_arena_alloc(arena, SIZE, &off), -ENOSPC);
    ck_assert_int_eq(aos_arena_alloc(arena, 0, &off), -ENOSPC);
    ck_assert_int_eq(aos_arena_alloc(arena, UINT64_MAX, &off), -ENOSPC);
    ck_assert_uint_eq(alloc(SIZE - 4 * PAGE), 4 * PAGE); /* exactly what is left */
    ck_assert_int_eq(aos_arena_alloc(arena, 1, &off), -ENOSPC);
    aos_arena_free(arena, b, PAGE + 1);
    ck_assert_uint_eq(alloc(PAGE), PAGE); /* first fit: the hole b left */
    ck_assert_uint_eq(alloc(PAGE), 2 * PAGE);
    ck_assert_int_eq(aos_arena_alloc(arena, 1, &off), -ENOSPC);
    aos_arena_free(arena, 0, 1);
    aos_arena_free(arena, PAGE, PAGE);
    aos_arena_free(arena, 2 * PAGE, PAGE);
    aos_arena_free(arena, 3 * PAGE, PAGE);
    aos_arena_free(arena, 4 * PAGE, SIZE - 4 * PAGE);
    ck_assert_uint_eq(aos_arena_in_use(arena), 0);
}
END_TEST

/* Freed neighbours merge, in any order, so the whole arena is one extent again. */
START_TEST(test_free_merges_neighbours)
{
    uint64_t off[8];
    for (int i = 0; i < 8; i++)
        off[i] = alloc(8 * PAGE);
    ck_assert_uint_eq(aos_arena_in_use(arena), SIZE);
    static const int order[8] = {3, 5, 4, 0, 7, 1, 6, 2};
    for (int i = 0; i < 8; i++)
        aos_arena_free(arena, off[order[i]], 8 * PAGE);
    ck_assert_uint_eq(alloc(SIZE), 0);
    aos_arena_free(arena, 0, SIZE);
}
END_TEST

/* The daemon's view is the memfd's pages: what another mapping of the file writes shows here, and
 * a free hands the pages back (they read as zero afterwards). */
START_TEST(test_shares_the_file_and_frees_pages)
{
    uint64_t off = alloc(2 * PAGE);
    uint8_t *peer = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, SIZE);
    ck_assert_ptr_ne(peer, MAP_FAILED);
    memset(peer + off, 0x77, 2 * PAGE);
    ck_assert_uint_eq(((uint8_t *)aos_arena_at(arena, off))[PAGE + 5], 0x77);
    struct stat st;
    ck_assert_int_eq(fstat(fd, &st), 0);
    ck_assert_int_ge(st.st_blocks * 512, 2 * PAGE);
    aos_arena_free(arena, off, 2 * PAGE);
    ck_assert_int_eq(fstat(fd, &st), 0);
    ck_assert_int_eq(st.st_blocks, 0);
    ck_assert_uint_eq(peer[off + 5], 0); /* (this read brings a zero page back) */
    munmap(peer, SIZE);
}
END_TEST

/* An extent keeps the arena mapped after its owner (the session) lets go. */
START_TEST(test_extent_outlives_the_session_reference)
{
    uint64_t off = alloc(PAGE);
    struct aos_arena *a = arena;
    arena = aos_arena_map(fd, SIZE, SIZE); /* teardown's reference */
    aos_arena_unref(a);                    /* the session's: the extent still holds a */
    uint8_t *p = aos_arena_at(a, off);
    p[0] = 1; /* still mapped: ASan or a fault would tell */
    ck_assert_uint_eq(p[0], 1);
    aos_arena_free(a, off, PAGE); /* the last reference: unmapped now */
}
END_TEST

START_TEST(test_bad_geometry_refused)
{
    ck_assert_ptr_null(aos_arena_map(fd, 100, SIZE));
    ck_assert_int_eq(errno, EINVAL);
    ck_assert_ptr_null(aos_arena_map(fd, 0, 0));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("arena");
    TCase *tc = tcase_create("allocator");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_pages_first_fit_and_exhaustion);
    tcase_add_test(tc, test_free_merges_neighbours);
    tcase_add_test(tc, test_shares_the_file_and_frees_pages);
    tcase_add_test(tc, test_extent_outlives_the_session_reference);
    tcase_add_test(tc, test_bad_geometry_refused);
    suite_add_tcase(s, tc);
    return aos_check_run(s);
}
