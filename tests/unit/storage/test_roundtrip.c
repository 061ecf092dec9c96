/* test_roundtrip — what is written and checkpointed is there after reopen:
 * page contents, allocation, extent owners, user root and generation. */
#include "st_test.h"

static void create_then_reopen_is_not_created(void **state)
{
  const char *path = stt_path("rt_create.db");
  st_config_t c = stt_config(path);
  storage_t *st;
  size_t len = 99;

  c.sc_sync = true; /* the real thing, directory sync included */
  st = stt_open_cfg(&c);

  assert_true(st_was_created(st));
  st_user_root(st, &len);
  assert_int_equal(len, 0);
  assert_int_equal(st_n_pages(st), ST_EXTENT_PAGES);
  assert_int_equal(stt_file_size(path), ST_EXTENT_SIZE);
  st_close(st);

  st = stt_open(path);
  assert_false(st_was_created(st));
  assert_int_equal(st_generation(st), 1);
  st_close(st);
}

static void open_missing_without_create_fails(void **state)
{
  st_config_t c = stt_config(stt_path("rt_missing.db"));
  storage_t *st = NULL;
  err_t e;

  c.sc_create = false;
  assert_int_equal(st_open(&c, &st, &e), CZ_ERR);
  assert_null(st);
  assert_true(err_is(&e, SQLSTATE_IO_ERROR));
}

static void pages_and_user_root_survive_reopen(void **state)
{
  const char *path = stt_path("rt_pages.db");
  storage_t *st = stt_open(path);
  pg_no_t pg[600];
  const void *ur;
  size_t len;

  for (int i = 0; i < 600; i++) {
    pg[i] = stt_alloc(st, 1000 + (uint64_t)(i % 3), PG_NONE);
    stt_write(st, pg[i], (uint32_t)i + 1);
  }
  stt_checkpoint(st, "directory at 42");
  assert_int_equal(st_generation(st), 2);
  st_close(st);

  st = stt_open(path);
  assert_int_equal(st_generation(st), 2);
  ur = st_user_root(st, &len);
  assert_int_equal(len, strlen("directory at 42") + 1);
  assert_string_equal(ur, "directory at 42");
  for (int i = 0; i < 600; i++) {
    assert_true(st_page_is_allocated(st, pg[i]));
    assert_int_equal(st_extent_owner(st, pg[i]), 1000 + (uint64_t)(i % 3));
    assert_int_equal(stt_read_tag(st, pg[i]), (uint32_t)i + 1);
  }
  st_close(st);
}

static void second_open_of_same_file_is_refused(void **state)
{
  const char *path = stt_path("rt_twice.db");
  storage_t *st = stt_open(path), *st2 = NULL;
  st_config_t c = stt_config(path);
  err_t e;

  assert_int_equal(st_open(&c, &st2, &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_OBJECT_IN_USE));
  st_close(st);
}

static void oversized_user_root_is_refused(void **state)
{
  storage_t *st = stt_open(stt_path("rt_big_root.db"));
  char big[ST_USER_ROOT_MAX + 1];
  err_t e;

  memset(big, 'x', sizeof big);
  assert_int_equal(st_checkpoint(st, big, sizeof big, &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_INVALID_PARAMETER));
  assert_int_equal(st_checkpoint(st, big, ST_USER_ROOT_MAX, &e), CZ_OK);
  st_close(st);
}

static void sync_and_dropped_cache_keep_contents(void **state)
{
  storage_t *st = stt_open(stt_path("rt_drop.db"));
  pg_no_t pg = stt_alloc(st, 5, PG_NONE);
  err_t e;

  stt_write(st, pg, 4);
  assert_int_equal(st_sync(st, &e), CZ_OK);
  assert_int_equal(st_drop_os_cache(st, &e), CZ_OK);
  assert_int_equal(stt_read_tag(st, pg), 4);
  st_close(st);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(create_then_reopen_is_not_created),
      cmocka_unit_test(open_missing_without_create_fails),
      cmocka_unit_test(pages_and_user_root_survive_reopen),
      cmocka_unit_test(second_open_of_same_file_is_refused),
      cmocka_unit_test(oversized_user_root_is_refused),
      cmocka_unit_test(sync_and_dropped_cache_keep_contents),
  };

  return cmocka_run_group_tests_name("storage roundtrip", tests, NULL, NULL);
}
