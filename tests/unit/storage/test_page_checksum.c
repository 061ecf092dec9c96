/* test_page_checksum — every page read is verified: a changed byte or a
 * page found in the wrong place is XX001 naming the page, and counted. */
#include "st_test.h"

/* A database with one checkpointed page (tag 1); returns its number. */
static pg_no_t one_page_db(const char *path)
{
  storage_t *st = stt_open(path);
  pg_no_t pg = stt_alloc(st, 3, PG_NONE);

  stt_write(st, pg, 1);
  stt_checkpoint(st, NULL);
  st_close(st);
  return pg;
}

static void write_seals_checksum_and_page_number(void **state)
{
  storage_t *st = stt_open(stt_path("ck_seal.db"));
  pg_no_t pg = stt_alloc(st, 3, PG_NONE);
  static uint8_t buf[ST_PAGE_SIZE];
  pg_head_t *h = (pg_head_t *)buf;
  void *b = buf;
  err_t e;

  stt_fill(buf, pg, 1);
  assert_int_equal(st_write_pages(st, &pg, &b, 1, &e), CZ_OK);
  assert_int_equal(h->ph_page_no, pg);
  assert_int_equal(h->ph_checksum, hash64(buf + 8, ST_PAGE_SIZE - 8, pg));
  st_close(st);
}

static void corrupt_byte_is_xx001_naming_the_page(void **state)
{
  const char *path = stt_path("ck_byte.db");
  pg_no_t pg = one_page_db(path);
  uint8_t byte, buf[ST_PAGE_SIZE];
  char want[32];
  storage_t *st;
  st_stats_t s;
  err_t e;

  stt_file_io(path, (long long)pg * ST_PAGE_SIZE + 5000, &byte, 1, false);
  byte ^= 0x10;
  stt_file_io(path, (long long)pg * ST_PAGE_SIZE + 5000, &byte, 1, true);

  st = stt_open(path);
  assert_int_equal(st_read_page(st, pg, buf, &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_DATA_CORRUPTED));
  snprintf(want, sizeof want, "page %u", pg);
  assert_non_null(strstr(e.er_msg, want));
  assert_non_null(strstr(e.er_msg, "checksum"));
  st_get_stats(st, &s);
  assert_int_equal(s.ss_checksum_failures, 1);
  st_close(st);
}

static void misdirected_page_is_detected(void **state)
{
  const char *path = stt_path("ck_misdirect.db");
  storage_t *st = stt_open(path);
  pg_no_t a = stt_alloc(st, 3, PG_NONE), b = stt_alloc(st, 3, PG_NONE);
  uint8_t buf[ST_PAGE_SIZE];
  char want[64];
  err_t e;

  stt_write(st, a, 1);
  stt_write(st, b, 1);
  stt_checkpoint(st, NULL);
  st_close(st);
  /* page a's bytes land where page b belongs: intact, but the wrong page */
  stt_file_io(path, (long long)a * ST_PAGE_SIZE, buf, sizeof buf, false);
  stt_file_io(path, (long long)b * ST_PAGE_SIZE, buf, sizeof buf, true);

  st = stt_open(path);
  assert_int_equal(st_read_page(st, b, buf, &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_DATA_CORRUPTED));
  snprintf(want, sizeof want, "page %u: page number mismatch, found page %u", b, a);
  assert_non_null(strstr(e.er_msg, want));
  assert_int_equal(stt_read_tag(st, a), 1);
  st_close(st);
}

static void page_never_written_does_not_verify(void **state)
{
  storage_t *st = stt_open(stt_path("ck_zero.db"));
  pg_no_t pg = stt_alloc(st, 3, PG_NONE);
  uint8_t buf[ST_PAGE_SIZE];
  err_t e;

  assert_int_equal(st_read_page(st, pg, buf, &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_DATA_CORRUPTED));
  st_close(st);
}

static void corrupt_header_fails_open(void **state)
{
  const char *path = stt_path("ck_header.db");
  storage_t *st = NULL;
  st_config_t c = stt_config(path);
  uint8_t byte = 0xff;
  err_t e;

  one_page_db(path);
  stt_file_io(path, 100, &byte, 1, true);
  assert_int_equal(st_open(&c, &st, &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_DATA_CORRUPTED));
  assert_non_null(strstr(e.er_msg, "page 0"));
}

static void one_bad_root_slot_is_survived_two_are_not(void **state)
{
  const char *path = stt_path("ck_root.db");
  st_config_t c = stt_config(path);
  storage_t *st = NULL;
  uint8_t byte = 0xff;
  err_t e;

  one_page_db(path); /* generation 2 is in slot B (page 2), 1 in slot A */
  stt_file_io(path, 2LL * ST_PAGE_SIZE + 3000, &byte, 1, true);
  st = stt_open(path);
  assert_int_equal(st_generation(st), 1); /* the older, valid record */
  st_close(st);
  stt_file_io(path, 1LL * ST_PAGE_SIZE + 3000, &byte, 1, true);
  assert_int_equal(st_open(&c, &st, &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_DATA_CORRUPTED));
  assert_non_null(strstr(e.er_msg, "no valid root record"));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(write_seals_checksum_and_page_number),
      cmocka_unit_test(corrupt_byte_is_xx001_naming_the_page),
      cmocka_unit_test(misdirected_page_is_detected),
      cmocka_unit_test(page_never_written_does_not_verify),
      cmocka_unit_test(corrupt_header_fails_open),
      cmocka_unit_test(one_bad_root_slot_is_survived_two_are_not),
  };

  return cmocka_run_group_tests_name("storage page checksum", tests, NULL, NULL);
}
