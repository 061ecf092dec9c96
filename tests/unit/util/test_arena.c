/* test_arena — alignment, growth, reset reuse, the tree and its lifetimes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "util/util.h"

static void test_arena_alloc_is_16_byte_aligned(void **state)
{
  arena_t *a = arena_create(NULL, "align");
  (void)state;
  for (size_t n = 0; n < 200; n++) {
    void *p = arena_alloc(a, n % 37);
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % 16, 0);
  }
  assert_int_equal((uintptr_t)arena_alloc(a, 100000) % 16, 0);
  arena_destroy(a);
}

/* Allocations never overlap: fill each with its own byte, check them all. */
static void test_arena_allocations_do_not_overlap(void **state)
{
  arena_t *a = arena_create(NULL, "overlap");
  unsigned char *ptrs[500];
  size_t sizes[500];
  (void)state;
  for (size_t i = 0; i < 500; i++) {
    sizes[i] = (i * 97) % 9000 + 1; /* small, chunk-spanning and large */
    ptrs[i] = arena_alloc(a, sizes[i]);
    memset(ptrs[i], (int)(i & 0xff), sizes[i]);
  }
  for (size_t i = 0; i < 500; i++)
    for (size_t j = 0; j < sizes[i]; j++)
      assert_int_equal(ptrs[i][j], i & 0xff);
  arena_destroy(a);
}

static void test_arena_zalloc_strdup_sprintf(void **state)
{
  arena_t *a = arena_create(NULL, "str");
  unsigned char *z;
  (void)state;
  /* Dirty the chunk, reset, and zalloc over the same bytes. */
  memset(arena_alloc(a, 256), 0xee, 256);
  arena_reset(a);
  z = arena_zalloc(a, 256);
  for (int i = 0; i < 256; i++)
    assert_int_equal(z[i], 0);
  assert_string_equal(arena_strdup(a, "hello"), "hello");
  assert_string_equal(arena_strdup(a, ""), "");
  assert_string_equal(arena_sprintf(a, "%s-%d-%05.1f", "q", 42, 3.5), "q-42-003.5");
  char *big = arena_sprintf(a, "%5000d", 7);
  assert_int_equal(strlen(big), 5000);
  arena_destroy(a);
}

static void test_arena_bytes_used_counts_tree_and_reset(void **state)
{
  arena_t *root = arena_create(NULL, "root");
  arena_t *kid = arena_create(root, "kid");
  (void)state;
  assert_int_equal(arena_bytes_used(root), 0);
  arena_alloc(root, 100);
  arena_alloc(kid, 50);
  arena_alloc(kid, 20000);
  assert_int_equal(arena_bytes_used(kid), 20050);
  assert_int_equal(arena_bytes_used(root), 20150);
  arena_reset(root);
  assert_int_equal(arena_bytes_used(root), 0);
  assert_int_equal(arena_bytes_used(kid), 0);
  arena_destroy(root);
}

#ifndef CZ_SANITIZE
/* A reset arena hands out the same memory again instead of calling malloc:
 * that is what makes per-batch arenas cheap. */
static void test_arena_reset_reuses_memory(void **state)
{
  arena_t *a = arena_create(NULL, "reuse");
  void *first, *again;
  (void)state;
  first = arena_alloc(a, 64);
  for (int i = 0; i < 10; i++)
    arena_alloc(a, 64);
  arena_reset(a);
  again = arena_alloc(a, 64);
  assert_ptr_equal(first, again);
  arena_destroy(a);
}

/* Small allocations are carved from one chunk: consecutive addresses. */
static void test_arena_small_allocations_are_contiguous(void **state)
{
  arena_t *a = arena_create(NULL, "bump");
  char *p = arena_alloc(a, 16);
  char *q = arena_alloc(a, 1);
  char *r = arena_alloc(a, 40);
  (void)state;
  assert_ptr_equal(q, p + 16);
  assert_ptr_equal(r, q + 16);
  arena_destroy(a);
}

/* After a reset that spanned several chunks the arena keeps its largest
 * chunk, so the next round fits without growing again. */
static void test_arena_reset_keeps_largest_chunk(void **state)
{
  arena_t *a = arena_create(NULL, "grow");
  char *p, *q = NULL;
  (void)state;
  for (int i = 0; i < 100; i++)
    arena_alloc(a, 1000);
  arena_reset(a);
  p = arena_alloc(a, 1000);
  for (int i = 0; i < 30; i++)
    q = arena_alloc(a, 1000);
  assert_ptr_equal(q, p + 30 * 1008);
  arena_destroy(a);
}
#endif

static void test_arena_reset_resets_children_keeps_them(void **state)
{
  arena_t *root = arena_create(NULL, "root");
  arena_t *kid = arena_create(root, "kid");
  arena_t *grandkid = arena_create(kid, "grandkid");
  (void)state;
  arena_alloc(grandkid, 1000);
  arena_reset(root);
  assert_int_equal(arena_bytes_used(grandkid), 0);
  /* Still alive and usable after the parent's reset. */
  strcpy(arena_alloc(grandkid, 6), "alive");
  assert_int_equal(arena_bytes_used(root), 6);
  arena_destroy(root);
}

/* Destroying a child unlinks it: the parent no longer counts it, and
 * destroying the parent afterwards does not touch it again (ASan would
 * report the double free). */
static void test_arena_destroy_child_unlinks(void **state)
{
  arena_t *root = arena_create(NULL, "root");
  arena_t *a = arena_create(root, "a");
  arena_t *b = arena_create(root, "b");
  arena_t *c = arena_create(root, "c");
  (void)state;
  arena_alloc(a, 1);
  arena_alloc(b, 10);
  arena_alloc(c, 100);
  arena_destroy(b); /* middle of the sibling list */
  assert_int_equal(arena_bytes_used(root), 101);
  arena_destroy(c); /* head of the list */
  assert_int_equal(arena_bytes_used(root), 1);
  arena_destroy(a); /* last one */
  assert_int_equal(arena_bytes_used(root), 0);
  arena_destroy(root);
}

/* Destroying a parent destroys the whole subtree (LeakSanitizer checks
 * nothing is left in the sanitizer build). */
static void test_arena_children_die_with_parent(void **state)
{
  arena_t *root = arena_create(NULL, "root");
  (void)state;
  for (int i = 0; i < 10; i++) {
    arena_t *kid = arena_create(root, "kid");
    arena_alloc(kid, 5000);
    for (int j = 0; j < 3; j++)
      arena_alloc(arena_create(kid, "grandkid"), 100);
  }
  assert_int_equal(arena_bytes_used(root), 10 * 5000 + 30 * 100);
  arena_destroy(root);
  arena_destroy(NULL);
}

static void test_arena_zero_size_gives_distinct_pointers(void **state)
{
  arena_t *a = arena_create(NULL, "zero");
  (void)state;
  void *p = arena_alloc(a, 0);
  void *q = arena_alloc(a, 0);
  assert_non_null(p);
  assert_true(p != q);
  arena_destroy(a);
}

static void *child_churn(void *arg)
{
  arena_t *parent = arg;
  for (int i = 0; i < 2000; i++) {
    arena_t *kid = arena_create(parent, "session");
    memset(arena_alloc(kid, 64), 1, 64);
    arena_destroy(kid);
  }
  return NULL;
}

/* Threads may create and destroy children of one shared parent at once
 * (sessions under the server arena): the sibling links stay intact. */
static void test_arena_concurrent_children_of_shared_parent(void **state)
{
  arena_t *root = arena_create(NULL, "server");
  arena_t *keep = arena_create(root, "keep");
  pthread_t th[4];
  (void)state;
  arena_alloc(keep, 10);
  for (int i = 0; i < 4; i++)
    pthread_create(&th[i], NULL, child_churn, root);
  for (int i = 0; i < 4; i++)
    pthread_join(th[i], NULL);
  assert_int_equal(arena_bytes_used(root), 10);
  arena_destroy(root);
}

/* Every chunk is charged to the budget and uncharged when freed; children
 * inherit it; moving a subtree moves its charge. */
static void test_arena_budget_charges_chunks(void **state)
{
  (void)state;
  mem_budget_t b;
  mem_budget_init(&b, 0);
  arena_t *root = arena_create(NULL, "root");
  arena_alloc(root, 100);  /* before the budget: moved by set_budget */
  arena_set_budget(root, &b);
  int64_t base = atomic_load(&b.mb_used);
  assert_true(base > 0);
  arena_t *child = arena_create(root, "child");
  assert_ptr_equal(arena_budget(child), &b);
  arena_alloc(child, 1 << 20);
  assert_true(atomic_load(&b.mb_used) >= base + (1 << 20));
  arena_reset(child);
  arena_release(child);
  assert_int_equal(atomic_load(&b.mb_used), base);
  assert_true(atomic_load(&b.mb_peak) >= base + (1 << 20));
  arena_alloc(child, 50000);
  arena_set_budget(root, NULL);
  assert_int_equal(atomic_load(&b.mb_used), 0);
  assert_int_equal(mem_budget_exceeded(&b), 0);  /* no limit */
  arena_destroy(root);
}

/* Charging past the limit marks the budget; arena_try_alloc refuses a
 * request that would pass it and allocates nothing. */
static void test_arena_budget_limit(void **state)
{
  (void)state;
  mem_budget_t b;
  mem_budget_init(&b, 1 << 20);
  arena_t *a = arena_create(NULL, "limited");
  arena_set_budget(a, &b);
  assert_non_null(arena_try_alloc(a, 100000));
  assert_int_equal(mem_budget_exceeded(&b), 0);
  int64_t used = atomic_load(&b.mb_used);
  assert_null(arena_try_alloc(a, 2 << 20));
  assert_int_equal(atomic_load(&b.mb_used), used);
  assert_int_equal(mem_budget_exceeded(&b), MEM_OVER_LIMIT);
  arena_set_budget(a, NULL);
  mem_budget_init(&b, 1 << 20);
  arena_set_budget(a, &b);
  arena_alloc(a, 2 << 20);  /* cannot fail: marks the budget */
  assert_int_equal(mem_budget_exceeded(&b), MEM_OVER_LIMIT);
  arena_destroy(a);
  assert_int_equal(atomic_load(&b.mb_used), 0);
}

/* A budget with a parent (the server's, for all queries) charges both;
 * a request past the parent's room is refused and marks the child
 * MEM_OVER_SERVER, not the parent; a second child shares the parent. */
static void test_arena_budget_parent(void **state)
{
  (void)state;
  mem_budget_t server, q1, q2;
  mem_budget_init(&server, 3 << 20);
  mem_budget_init(&q1, 2 << 20);
  mem_budget_init(&q2, 2 << 20);
  mem_budget_set_parent(&q1, &server);
  mem_budget_set_parent(&q2, &server);
  arena_t *a1 = arena_create(NULL, "q1");
  arena_t *a2 = arena_create(NULL, "q2");
  arena_set_budget(a1, &q1);
  arena_set_budget(a2, &q2);
  assert_non_null(arena_try_alloc(a1, 1800000));
  assert_int_equal(atomic_load(&server.mb_used), atomic_load(&q1.mb_used));
  assert_int_equal(mem_budget_room(&q2), (3 << 20) - atomic_load(&server.mb_used));
  assert_non_null(arena_try_alloc(a2, 800000));
  assert_null(arena_try_alloc(a2, 800000));  /* q2 has room, the server not */
  assert_int_equal(mem_budget_exceeded(&q2), MEM_OVER_SERVER);
  assert_int_equal(mem_budget_exceeded(&q1), 0);
  assert_int_equal(mem_budget_exceeded(&server), 0);
  arena_destroy(a1);
  arena_destroy(a2);
  assert_int_equal(atomic_load(&server.mb_used), 0);
}

/* Small fallible requests past the current chunk take a new regular
 * chunk (as arena_alloc's do), not a malloc each; and when that chunk
 * would pass the limit they are refused like large ones. */
static void test_arena_try_alloc_small_shares_chunks(void **state)
{
  (void)state;
  mem_budget_t b;
  mem_budget_init(&b, 4 << 20);
  arena_t *a = arena_create(NULL, "small");
  arena_set_budget(a, &b);
  for (int i = 0; i < 60000; i++)
    assert_non_null(arena_try_alloc(a, 24));
#ifndef CZ_SANITIZE
  /* 60,000 * 32 bytes in chunks of up to 1 MB: under 3 MB, where a chunk
   * (and a malloc) each would be more. */
  assert_true(atomic_load(&b.mb_used) < (int64_t)3 << 20);
#endif
  assert_int_equal(mem_budget_exceeded(&b), 0);
  int i = 0;
  while (arena_try_alloc(a, 24) && i < 1000000)
    i++;
  assert_true(i < 1000000);  /* refused before the limit was passed */
  assert_true(atomic_load(&b.mb_used) <= (int64_t)4 << 20);
  assert_int_equal(mem_budget_exceeded(&b), MEM_OVER_LIMIT);
  arena_destroy(a);
  assert_int_equal(atomic_load(&b.mb_used), 0);
}

/* arena_free gives back a dedicated chunk at once (uncharged) and leaves
 * a pointer carved from a regular chunk alone. */
static void test_arena_free_dedicated_chunk(void **state)
{
  (void)state;
  mem_budget_t b;
  mem_budget_init(&b, 0);
  arena_t *a = arena_create(NULL, "free");
  arena_set_budget(a, &b);
  char *small = arena_strdup(a, "kept");
  int64_t base = atomic_load(&b.mb_used);
  char *big = arena_try_alloc(a, 1 << 20);
  char *big2 = arena_alloc(a, 1 << 20);
  assert_non_null(big);
  memset(big, 1, 1 << 20);
  assert_true(atomic_load(&b.mb_used) >= base + (2 << 20));
  arena_free(a, big, 1 << 20);
  assert_true(atomic_load(&b.mb_used) < base + (2 << 20));
  assert_true(atomic_load(&b.mb_used) >= base + (1 << 20));
  arena_free(a, big2, 1 << 20);
  assert_int_equal(atomic_load(&b.mb_used), base);
  assert_int_equal(arena_bytes_used(a), 5);
  arena_free(a, NULL, 0);
#ifndef CZ_SANITIZE
  arena_free(a, small, 5);  /* in a regular chunk: stays */
  assert_int_equal(atomic_load(&b.mb_used), base);
#endif
  assert_string_equal(small, "kept");
  arena_destroy(a);
  assert_int_equal(atomic_load(&b.mb_used), 0);
}

/* Scratch arenas lose every chunk at arena_release_scratch; others keep
 * theirs. */
static void test_arena_release_scratch(void **state)
{
  (void)state;
  mem_budget_t b;
  mem_budget_init(&b, 0);
  arena_t *plan = arena_create(NULL, "plan");
  arena_set_budget(plan, &b);
  char *kept = arena_strdup(plan, "plan text");
  int64_t plan_bytes = atomic_load(&b.mb_used);
  arena_t *st = arena_create_scratch(plan, "state");
  arena_alloc(st, 3 << 20);
  arena_alloc(st, 100);
  arena_release_scratch(plan);
  assert_int_equal(atomic_load(&b.mb_used), plan_bytes);
  assert_string_equal(kept, "plan text");
  assert_non_null(arena_alloc(st, 100));  /* usable again */
  arena_destroy(plan);
  assert_int_equal(atomic_load(&b.mb_used), 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_arena_alloc_is_16_byte_aligned),
      cmocka_unit_test(test_arena_allocations_do_not_overlap),
      cmocka_unit_test(test_arena_zalloc_strdup_sprintf),
      cmocka_unit_test(test_arena_bytes_used_counts_tree_and_reset),
#ifndef CZ_SANITIZE
      cmocka_unit_test(test_arena_reset_reuses_memory),
      cmocka_unit_test(test_arena_small_allocations_are_contiguous),
      cmocka_unit_test(test_arena_reset_keeps_largest_chunk),
#endif
      cmocka_unit_test(test_arena_reset_resets_children_keeps_them),
      cmocka_unit_test(test_arena_destroy_child_unlinks),
      cmocka_unit_test(test_arena_children_die_with_parent),
      cmocka_unit_test(test_arena_zero_size_gives_distinct_pointers),
      cmocka_unit_test(test_arena_concurrent_children_of_shared_parent),
      cmocka_unit_test(test_arena_budget_charges_chunks),
      cmocka_unit_test(test_arena_budget_limit),
      cmocka_unit_test(test_arena_budget_parent),
      cmocka_unit_test(test_arena_release_scratch),
      cmocka_unit_test(test_arena_try_alloc_small_shares_chunks),
      cmocka_unit_test(test_arena_free_dedicated_chunk),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
