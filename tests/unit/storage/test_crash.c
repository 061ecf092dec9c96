/* test_crash — a process dying at any step of st_checkpoint leaves a
 * database that opens as exactly one complete image: the old one before
 * the root record is written, the new one after (with the copy-back
 * finished by the open). A child process checkpoints with CZ_FAILPOINT set
 * and is ended there (_exit(77)); the parent reopens and checks everything.
 */
#include <sys/wait.h>

#include "st_test.h"

enum { NP = 150 }; /* more than one copy-back batch, so a crash can split it */

typedef struct crash_db_s {
  char path[512];
  pg_no_t pg[NP];      /* written with tag 1 in image v1, tag 2 in v2 */
  pg_no_t freed_pg;    /* allocated in v1, freed in v2 */
  pg_no_t new_pg;      /* allocated and written in v2 only */
} crash_db_t;

static void make_v1(crash_db_t *d, const char *name)
{
  storage_t *st;

  snprintf(d->path, sizeof d->path, "%s", stt_path(name));
  st = stt_open(d->path);
  for (int i = 0; i < NP; i++) {
    d->pg[i] = stt_alloc(st, 5, PG_NONE);
    stt_write(st, d->pg[i], 1);
  }
  d->freed_pg = stt_alloc(st, 5, PG_NONE);
  stt_write(st, d->freed_pg, 1);
  stt_checkpoint(st, "v1");
  st_close(st);
}

/* Runs in a child: opens the database with the failpoint armed and, when
 * rewrite is set, makes image v2 and checkpoints it. The new page's number
 * goes back through the pipe. */
static void child_run(crash_db_t *d, const char *failpoint, bool rewrite, int fd)
{
  st_config_t c = stt_config(d->path);
  storage_t *st = NULL;
  err_t e;

  c.sc_sync = true;
  setenv("CZ_FAILPOINT", failpoint, 1);
  if (st_open(&c, &st, &e) != CZ_OK)
    _exit(2);
  if (rewrite) {
    static uint8_t bufs[NP][ST_PAGE_SIZE];
    void *bp[NP];
    pg_no_t np;

    for (int i = 0; i < NP; i++) {
      stt_fill(bufs[i], d->pg[i], 2);
      bp[i] = bufs[i];
    }
    if (st_write_pages(st, d->pg, bp, NP, &e) != CZ_OK)
      _exit(3);
    st_free_page(st, d->freed_pg);
    if (st_alloc_page(st, 6, PG_NONE, &np, &e) != CZ_OK)
      _exit(4);
    stt_fill(bufs[0], np, 2);
    bp[0] = bufs[0];
    if (st_write_pages(st, &np, bp, 1, &e) != CZ_OK || write(fd, &np, sizeof np) != sizeof np)
      _exit(5);
    if (st_checkpoint(st, "v2", 3, &e) != CZ_OK)
      _exit(6);
  }
  st_close(st);
  _exit(0);
}

static void crash_child(crash_db_t *d, const char *failpoint, bool rewrite)
{
  int fds[2], status;
  pid_t pid;

  assert_int_equal(pipe(fds), 0);
  pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    child_run(d, failpoint, rewrite, fds[1]);
  }
  close(fds[1]);
  if (rewrite)
    assert_int_equal(read(fds[0], &d->new_pg, sizeof d->new_pg), sizeof d->new_pg);
  close(fds[0]);
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 77); /* died at the failpoint */
}

/* The database is image v (1 or 2), complete, with nothing pending. */
static void check_image(crash_db_t *d, int v)
{
  storage_t *st = stt_open(d->path);
  const char *ur;
  size_t len;
  st_stats_t s;

  ur = st_user_root(st, &len);
  assert_int_equal(len, 3);
  assert_string_equal(ur, v == 1 ? "v1" : "v2");
  for (int i = 0; i < NP; i++) {
    assert_int_equal(stt_read_tag(st, d->pg[i]), v);
    /* at home in the file: the copy-back is complete */
    assert_int_equal(stt_file_tag(d->path, d->pg[i], d->pg[i]), v);
  }
  assert_int_equal(st_page_is_allocated(st, d->freed_pg), v == 1);
  assert_int_equal(st_page_is_allocated(st, d->new_pg), v == 2);
  if (v == 2)
    assert_int_equal(stt_read_tag(st, d->new_pg), 2);
  st_get_stats(st, &s);
  assert_int_equal(s.ss_remapped, 0);
  assert_int_equal(s.ss_checksum_failures, 0);
  /* and it goes on working: one more checkpoint and reopen */
  stt_write(st, d->pg[0], 3);
  stt_checkpoint(st, "v3");
  st_close(st);
  st = stt_open(d->path);
  assert_int_equal(stt_read_tag(st, d->pg[0]), 3);
  assert_int_equal(stt_read_tag(st, d->pg[NP - 1]), v);
  st_close(st);
}

static void crash_test(const char *name, const char *failpoint, int expect)
{
  crash_db_t d;

  make_v1(&d, name);
  d.new_pg = PG_NONE;
  crash_child(&d, failpoint, true);
  check_image(&d, expect);
}

static void crash_after_data_sync_keeps_old_image(void **state)
{
  crash_test("cr_data.db", "storage_after_data_sync", 1);
}

static void crash_after_meta_keeps_old_image(void **state)
{
  crash_test("cr_meta.db", "storage_after_meta", 1);
}

static void torn_root_record_keeps_old_image(void **state)
{
  crash_test("cr_torn.db", "storage_torn_root", 1);
}

static void crash_after_root_gives_new_image(void **state)
{
  crash_test("cr_root.db", "storage_after_root", 2);
}

static void crash_during_copy_back_gives_new_image(void **state)
{
  crash_test("cr_copy.db", "storage_during_copyback", 2);
}

static void crash_after_copy_back_gives_new_image(void **state)
{
  crash_test("cr_copied.db", "storage_after_copyback", 2);
}

static void crash_during_open_copy_back_gives_new_image(void **state)
{
  crash_db_t d;

  make_v1(&d, "cr_open_copy.db");
  crash_child(&d, "storage_after_root", true);
  /* the open that finishes the copy-back dies too */
  crash_child(&d, "storage_during_copyback", false);
  check_image(&d, 2);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(crash_after_data_sync_keeps_old_image),
      cmocka_unit_test(crash_after_meta_keeps_old_image),
      cmocka_unit_test(torn_root_record_keeps_old_image),
      cmocka_unit_test(crash_after_root_gives_new_image),
      cmocka_unit_test(crash_during_copy_back_gives_new_image),
      cmocka_unit_test(crash_after_copy_back_gives_new_image),
      cmocka_unit_test(crash_during_open_copy_back_gives_new_image),
  };

  return cmocka_run_group_tests_name("storage crash", tests, NULL, NULL);
}
