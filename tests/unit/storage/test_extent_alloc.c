/* test_extent_alloc — pages of one owner stay together in the owner's
 * extents, a full extent leads to a fresh one and the file grows by whole
 * extents, and a freed page is reused only when the checkpoint image does
 * not need it. */
#include <pthread.h>

#include "st_test.h"

static void owners_get_separate_extents(void **state)
{
  storage_t *st = stt_open(stt_path("al_owners.db"));
  pg_no_t a[10], b[10];

  for (int i = 0; i < 10; i++) {
    a[i] = stt_alloc(st, 1000, PG_NONE);
    b[i] = stt_alloc(st, 2000, PG_NONE);
  }
  for (int i = 0; i < 10; i++) {
    assert_int_equal(pg_extent_of(a[i]), pg_extent_of(a[0]));
    assert_int_equal(pg_extent_of(b[i]), pg_extent_of(b[0]));
    assert_int_equal(st_extent_owner(st, a[i]), 1000);
    assert_int_equal(st_extent_owner(st, b[i]), 2000);
    if (i > 0) {
      assert_int_equal(a[i], a[i - 1] + 1); /* packed in order */
      assert_int_equal(b[i], b[i - 1] + 1);
    }
  }
  assert_int_not_equal(pg_extent_of(a[0]), pg_extent_of(b[0]));
  assert_int_not_equal(pg_extent_of(a[0]), 0); /* extent 0 is storage's */
  st_close(st);
}

static void full_extent_leads_to_fresh_extent_and_growth(void **state)
{
  const char *path = stt_path("al_grow.db");
  storage_t *st = stt_open(path);
  pg_no_t first = stt_alloc(st, 7, PG_NONE), pg = first;
  pg_no_t n0 = st_n_pages(st);

  assert_int_equal(first % ST_EXTENT_PAGES, 0);
  for (int i = 1; i < ST_EXTENT_PAGES; i++) {
    pg = stt_alloc(st, 7, PG_NONE);
    assert_int_equal(pg_extent_of(pg), pg_extent_of(first));
  }
  assert_int_equal(st_n_pages(st), n0);
  pg = stt_alloc(st, 7, PG_NONE);
  assert_int_not_equal(pg_extent_of(pg), pg_extent_of(first));
  assert_int_equal(st_extent_owner(st, pg), 7);
  assert_int_equal(st_n_pages(st), n0 + ST_EXTENT_PAGES);
  assert_int_equal(stt_file_size(path), (long long)(n0 + ST_EXTENT_PAGES) * ST_PAGE_SIZE);
  st_close(st);
}

static void near_prefers_the_page_own_extent(void **state)
{
  storage_t *st = stt_open(stt_path("al_near.db"));
  pg_no_t a = stt_alloc(st, 7, PG_NONE), far;

  for (int i = 0; i < ST_EXTENT_PAGES; i++) /* fill a's extent, open a second */
    far = stt_alloc(st, 7, PG_NONE);
  assert_int_not_equal(pg_extent_of(far), pg_extent_of(a));
  st_free_page(st, a + 100); /* allocated since the checkpoint: reusable */
  assert_int_equal(stt_alloc(st, 7, a + 50), a + 100);
  /* without room near, the owner's other extent */
  assert_int_equal(pg_extent_of(stt_alloc(st, 7, a + 50)), pg_extent_of(far));
  st_close(st);
}

static void freed_page_of_image_not_reused_before_checkpoint(void **state)
{
  storage_t *st = stt_open(stt_path("al_reuse_image.db"));
  pg_no_t pg = stt_alloc(st, 7, PG_NONE), again;

  stt_write(st, pg, 1);
  stt_checkpoint(st, NULL);
  st_free_page(st, pg);
  assert_false(st_page_is_allocated(st, pg));
  again = stt_alloc(st, 7, pg);
  assert_int_not_equal(again, pg);
  st_free_page(st, again);
  stt_checkpoint(st, NULL);
  assert_int_equal(stt_alloc(st, 7, pg), pg); /* the new image does not have it */
  st_close(st);
}

static void freed_page_allocated_since_checkpoint_is_reused(void **state)
{
  storage_t *st = stt_open(stt_path("al_reuse_new.db"));
  pg_no_t pg = stt_alloc(st, 7, PG_NONE);

  stt_write(st, pg, 1);
  st_free_page(st, pg);
  assert_int_equal(stt_alloc(st, 7, pg), pg);
  st_close(st);
}

static void owners_and_allocation_survive_reopen(void **state)
{
  const char *path = stt_path("al_reopen.db");
  storage_t *st = stt_open(path);
  pg_no_t a = stt_alloc(st, 11, PG_NONE), b;

  stt_checkpoint(st, NULL);
  st_close(st);
  st = stt_open(path);
  assert_true(st_page_is_allocated(st, a));
  assert_int_equal(st_extent_owner(st, a), 11);
  b = stt_alloc(st, 11, PG_NONE);
  assert_int_equal(pg_extent_of(b), pg_extent_of(a)); /* found again without the hint */
  assert_int_not_equal(b, a);
  st_close(st);
}

/* st_owner_pages: each owner's pages exactly, across extents, after frees
 * (of image pages too: they stop counting at once), written remapped pages
 * (remap targets are no owner's), a checkpoint and a reopen. */
static void owner_pages_are_exact(void **state)
{
  const char *path = stt_path("al_count.db");
  storage_t *st = stt_open(path);
  pg_no_t a[600];

  assert_int_equal(st_owner_pages(st, 21), 0);
  for (int i = 0; i < 600; i++) /* more than two extents */
    a[i] = stt_alloc(st, 21, PG_NONE);
  for (int i = 0; i < 40; i++)
    stt_alloc(st, 22, PG_NONE);
  assert_int_equal(st_owner_pages(st, 21), 600);
  assert_int_equal(st_owner_pages(st, 22), 40);
  for (int i = 0; i < 600; i++)
    stt_write(st, a[i], 1);
  stt_checkpoint(st, NULL);
  for (int i = 0; i < 600; i += 2) /* image pages: reusable only later, gone now */
    st_free_page(st, a[i]);
  for (int i = 1; i < 100; i += 2) /* rewritten image pages are remapped */
    stt_write(st, a[i], 2);
  assert_int_equal(st_owner_pages(st, 21), 300);
  assert_int_equal(st_owner_pages(st, 22), 40);
  stt_checkpoint(st, NULL);
  st_close(st);
  st = stt_open(path);
  assert_int_equal(st_owner_pages(st, 21), 300);
  assert_int_equal(st_owner_pages(st, 22), 40);
  assert_int_equal(st_owner_pages(st, 23), 0);
  st_close(st);
}

typedef struct alloc_arg_s {
  storage_t *aa_st;
  uint64_t aa_owner;
  pg_no_t aa_pages[300];
} alloc_arg_t;

static void *alloc_many(void *p)
{
  alloc_arg_t *a = p;

  for (int i = 0; i < 300; i++) {
    err_t e;
    if (st_alloc_page(a->aa_st, a->aa_owner, PG_NONE, &a->aa_pages[i], &e) != CZ_OK)
      a->aa_pages[i] = PG_NONE;
  }
  return NULL;
}

static void concurrent_allocations_are_distinct(void **state)
{
  storage_t *st = stt_open(stt_path("al_threads.db"));
  static alloc_arg_t args[4];
  pthread_t th[4];
  st_stats_t s;

  for (int t = 0; t < 4; t++) {
    args[t].aa_st = st;
    args[t].aa_owner = 100 + (uint64_t)(t % 2); /* two threads per owner */
    assert_int_equal(pthread_create(&th[t], NULL, alloc_many, &args[t]), 0);
  }
  for (int t = 0; t < 4; t++)
    pthread_join(th[t], NULL);
  st_get_stats(st, &s);
  assert_int_equal(s.ss_pages_allocated, 3 + 4 * 300 + 1); /* + header, roots, meta */
  for (int t = 0; t < 4; t++)
    for (int i = 0; i < 300; i++) {
      pg_no_t pg = args[t].aa_pages[i];
      assert_int_not_equal(pg, PG_NONE);
      assert_int_equal(st_extent_owner(st, pg), args[t].aa_owner);
      for (int u = 0; u < t; u++)
        for (int j = 0; j < 300; j++)
          assert_int_not_equal(args[u].aa_pages[j], pg);
    }
  st_close(st);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(owners_get_separate_extents),
      cmocka_unit_test(full_extent_leads_to_fresh_extent_and_growth),
      cmocka_unit_test(near_prefers_the_page_own_extent),
      cmocka_unit_test(freed_page_of_image_not_reused_before_checkpoint),
      cmocka_unit_test(freed_page_allocated_since_checkpoint_is_reused),
      cmocka_unit_test(owners_and_allocation_survive_reopen),
      cmocka_unit_test(owner_pages_are_exact),
      cmocka_unit_test(concurrent_allocations_are_distinct),
  };

  return cmocka_run_group_tests_name("storage extent allocation", tests, NULL, NULL);
}
