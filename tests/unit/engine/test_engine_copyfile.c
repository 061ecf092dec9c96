/* Server-side COPY files: COPY … TO '/abs/path' and FROM '/abs/path' in
 * text and CSV, the superuser rule, [Parameters] DirsAllowed and the
 * SQLSTATEs of missing and unreadable files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cz_test.h"
#include "en_run.h"
#include "util/util.h"

static char *g_allowed;  /* <tmpdir>/allowed: the only DirsAllowed folder */

/* An engine whose DirsAllowed is dirs (NULL: the key left out). */
static engine_t *open_with_dirs(const char *name, const char *dirs)
{
  char *db = cz_test_path(name);
  char text[4096];
  snprintf(text, sizeof(text),
           "[Database]\nDatabaseFile = %s.db\nTransactionFile = %s.trx\n"
           "[Parameters]\nNumberOfBuffers = 2000\nDBAPassword = secret\nVectorSize = 4\n%s%s\n",
           db, db, dirs ? "DirsAllowed = " : "", dirs ? dirs : "");
  free(db);
  err_t e;
  ini_t *ini = ini_parse(text, strlen(text), &e);
  assert_non_null(ini);
  engine_t *eng = NULL;
  if (engine_open(ini, &eng, &e) != CZ_OK)
    fail_msg("engine_open: %s %s", e.er_sqlstate, e.er_msg);
  ini_free(ini);
  return eng;
}

static void close_engine(engine_t *eng)
{
  err_t e;
  assert_int_equal(engine_close(eng, &e), CZ_OK);
}

static void expect_rows(esession_t *s, const char *sql, const char *want)
{
  char *got = en_query(s, sql);
  if (strcmp(got, want) != 0)
    fail_msg("%s\n got: [%s]\nwant: [%s]", sql, got, want);
  free(got);
}

static void expect_tag(esession_t *s, const char *sql, const char *tag)
{
  en_result_t r = {0};
  if (en_run(s, sql, &r) != CZ_OK)
    fail_msg("%s: %s %s", sql, r.rr_err.er_sqlstate, r.rr_err.er_msg);
  assert_string_equal(r.rr_tag, tag);
  en_result_free(&r);
}

static char *file_text(const char *path)
{
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  static char buf[4096];
  size_t n = fread(buf, 1, sizeof(buf) - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

/* "COPY …" with %s replaced by the path of name in the allowed folder. */
static char *sql_at(const char *fmt, const char *dir, const char *name)
{
  static char sql[2048];
  char path[1024];
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  snprintf(sql, sizeof(sql), fmt, path);
  return sql;
}

static int setup(void **state)
{
  (void)state;
  g_allowed = cz_test_path("allowed");
  mkdir(g_allowed, 0755);
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  free(g_allowed);
  return 0;
}

#define ROWS "1|plain\n2|tab\there\n3|NULL\n4|back\\slash\n5|line\nbreak\n6|comma, \"quoted\"\n7|"

static void fill(esession_t *s)
{
  en_exec(s, "CREATE TABLE src(a int, b text)");
  en_exec(s, "INSERT INTO src VALUES (1, 'plain'), (2, E'tab\\there'), (3, NULL), "
             "(4, E'back\\\\slash'), (5, E'line\\nbreak'), (6, 'comma, \"quoted\"'), (7, '')");
  expect_rows(s, "SELECT a, b FROM src ORDER BY a", ROWS);
}

static void test_round_trip_text(void **state)
{
  (void)state;
  engine_t *eng = open_with_dirs("text", g_allowed);
  esession_t *s = en_test_session(eng, "dba");
  fill(s);
  expect_tag(s, sql_at("COPY src TO '%s'", g_allowed, "src.txt"), "COPY 7");
  char path[1024];
  snprintf(path, sizeof(path), "%s/src.txt", g_allowed);
  assert_string_equal(file_text(path), "1\tplain\n2\ttab\\there\n3\t\\N\n4\tback\\\\slash\n"
                                       "5\tline\\nbreak\n6\tcomma, \"quoted\"\n7\t\n");
  en_exec(s, "CREATE TABLE dst(a int, b text)");
  expect_tag(s, sql_at("COPY dst FROM '%s'", g_allowed, "src.txt"), "COPY 7");
  expect_rows(s, "SELECT a, b FROM dst ORDER BY a", ROWS);
  /* a column list, and COPY TO overwriting the file */
  expect_tag(s, sql_at("COPY (SELECT b FROM src WHERE a < 3 ORDER BY a) TO '%s'", g_allowed,
                       "src.txt"), "COPY 2");
  en_exec(s, "CREATE TABLE one(a int DEFAULT 42, b text)");
  expect_tag(s, sql_at("COPY one (b) FROM '%s'", g_allowed, "src.txt"), "COPY 2");
  expect_rows(s, "SELECT a, b FROM one ORDER BY b", "42|plain\n42|tab\there");
  /* inside a block the rows are the block's: ROLLBACK removes them */
  en_exec(s, "BEGIN");
  expect_tag(s, sql_at("COPY one (b) FROM '%s'", g_allowed, "src.txt"), "COPY 2");
  expect_rows(s, "SELECT count(*) FROM one", "4");
  en_exec(s, "ROLLBACK");
  expect_rows(s, "SELECT count(*) FROM one", "2");
  /* a bad value fails the COPY and nothing of it stays */
  expect_tag(s, sql_at("COPY (SELECT b, b FROM src WHERE a = 1) TO '%s'", g_allowed, "bad.txt"),
             "COPY 1");
  en_expect_error(s, sql_at("COPY one FROM '%s'", g_allowed, "bad.txt"), "22P02");
  expect_rows(s, "SELECT count(*) FROM one", "2");
  esession_close(s);
  close_engine(eng);
}

static void test_round_trip_csv_header(void **state)
{
  (void)state;
  engine_t *eng = open_with_dirs("csv", g_allowed);
  esession_t *s = en_test_session(eng, "dba");
  fill(s);
  expect_tag(s, sql_at("COPY src TO '%s' WITH (FORMAT csv, HEADER true)", g_allowed, "src.csv"),
             "COPY 7");
  char path[1024];
  snprintf(path, sizeof(path), "%s/src.csv", g_allowed);
  assert_string_equal(file_text(path), "a,b\n1,plain\n2,tab\there\n3,\n4,back\\slash\n"
                                       "5,\"line\nbreak\"\n6,\"comma, \"\"quoted\"\"\"\n7,\"\"\n");
  en_exec(s, "CREATE TABLE dst(a int, b text)");
  expect_tag(s, sql_at("COPY dst FROM '%s' WITH (FORMAT csv, HEADER true)", g_allowed, "src.csv"),
             "COPY 7");
  expect_rows(s, "SELECT a, b FROM dst ORDER BY a", ROWS);
  /* without HEADER the header line is data: "a" is not an integer */
  en_expect_error(s, sql_at("COPY dst FROM '%s' WITH (FORMAT csv)", g_allowed, "src.csv"), "22P02");
  expect_rows(s, "SELECT count(*) FROM dst", "7");
  esession_close(s);
  close_engine(eng);
}

static void test_dirs_allowed(void **state)
{
  (void)state;
  engine_t *eng = open_with_dirs("dirs", g_allowed);
  esession_t *s = en_test_session(eng, "dba");
  fill(s);
  /* the temp folder holds the allowed one but is not allowed itself */
  en_expect_error(s, sql_at("COPY src TO '%s'", cz_test_tmpdir(), "out.txt"), "42501");
  en_expect_error(s, sql_at("COPY src TO '%s'", g_allowed, "../out.txt"), "42501");
  en_expect_error(s, sql_at("COPY src FROM '%s'", g_allowed, "../text.db"), "42501");
  en_expect_error(s, "COPY src TO '/allowedx/out.txt'", "58P01");  /* no such folder */
  en_expect_error(s, "COPY src TO 'relative.txt'", "42602");
  /* a missing file outside is refused, not reported missing */
  en_expect_error(s, sql_at("COPY src FROM '%s'", cz_test_tmpdir(), "nothing.txt"), "42501");
  /* the folder itself is not a file (PostgreSQL: wrong_object_type) */
  en_expect_error(s, sql_at("COPY src FROM '%s'", g_allowed, "."), "42809");
  esession_close(s);
  close_engine(eng);

  /* DirsAllowed absent: nothing is allowed */
  eng = open_with_dirs("nodirs", NULL);
  s = en_test_session(eng, "dba");
  fill(s);
  en_result_t r = {0};
  assert_int_equal(en_run(s, sql_at("COPY src TO '%s'", g_allowed, "x.txt"), &r), CZ_ERR);
  assert_string_equal(r.rr_err.er_sqlstate, "42501");
  assert_non_null(strstr(r.rr_err.er_msg, "not in DirsAllowed"));
  en_result_free(&r);
  esession_close(s);
  close_engine(eng);

  /* several folders, spaces around the commas, a relative one */
  char dirs[2048];
  snprintf(dirs, sizeof(dirs), "/nonexistent-dir , %s ,.", g_allowed);
  eng = open_with_dirs("multi", dirs);
  s = en_test_session(eng, "dba");
  fill(s);
  expect_tag(s, sql_at("COPY src TO '%s'", g_allowed, "multi.txt"), "COPY 7");
  esession_close(s);
  close_engine(eng);
}

static void test_superuser_only(void **state)
{
  (void)state;
  engine_t *eng = open_with_dirs("super", g_allowed);
  esession_t *dba = en_test_session(eng, "dba");
  fill(dba);
  en_exec(dba, "CREATE USER alice PASSWORD 'pw'");
  en_exec(dba, "GRANT SELECT, INSERT ON src TO alice");
  expect_tag(dba, sql_at("COPY src TO '%s'", g_allowed, "super.txt"), "COPY 7");
  esession_t *al = en_test_session(eng, "alice");
  en_expect_error(al, sql_at("COPY src TO '%s'", g_allowed, "alice.txt"), "42501");
  en_expect_error(al, sql_at("COPY src FROM '%s'", g_allowed, "super.txt"), "42501");
  expect_rows(dba, "SELECT count(*) FROM src", "7");
  esession_close(al);
  esession_close(dba);
  close_engine(eng);
}

static void test_missing_file(void **state)
{
  (void)state;
  engine_t *eng = open_with_dirs("missing", g_allowed);
  esession_t *s = en_test_session(eng, "dba");
  fill(s);
  en_result_t r = {0};
  assert_int_equal(en_run(s, sql_at("COPY src FROM '%s'", g_allowed, "nothing.txt"), &r), CZ_ERR);
  assert_string_equal(r.rr_err.er_sqlstate, "58P01");
  assert_non_null(strstr(r.rr_err.er_msg, "nothing.txt"));
  assert_non_null(strstr(r.rr_err.er_msg, "No such file"));
  en_result_free(&r);
  /* a missing folder inside the allowed one, both ways */
  en_expect_error(s, sql_at("COPY src FROM '%s'", g_allowed, "no/such.txt"), "58P01");
  en_expect_error(s, sql_at("COPY src TO '%s'", g_allowed, "no/such.txt"), "58P01");
  /* the session goes on */
  expect_rows(s, "SELECT count(*) FROM src", "7");
  esession_close(s);
  close_engine(eng);
}

/* DirsAllowed holding the database's folder must still not reach the
 * engine's files, under any spelling (issue 7, defect 6). */
static void test_own_files_refused(void **state)
{
  (void)state;
  engine_t *eng = open_with_dirs("own", cz_test_tmpdir());
  esession_t *s = en_test_session(eng, "dba");
  fill(s);
  const char *names[] = {"own.db", "own.trx", "allowed/../own.db", "./own.trx"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    char *p = cz_test_path(names[i]);
    struct stat before, after;
    assert_int_equal(stat(p, &before), 0);
    en_expect_error(s, sql_at("COPY src TO '%s'", cz_test_tmpdir(), names[i]), "42501");
    en_expect_error(s, sql_at("COPY src FROM '%s'", cz_test_tmpdir(), names[i]), "42501");
    assert_int_equal(stat(p, &after), 0);
    assert_int_equal(before.st_size, after.st_size);
    free(p);
  }
  /* a hard link in an allowed folder is the same file */
  char *db = cz_test_path("own.db");
  char *hard = cz_test_path("allowed/hard-own.db");
  assert_int_equal(link(db, hard), 0);
  en_expect_error(s, sql_at("COPY src TO '%s'", g_allowed, "hard-own.db"), "42501");
  unlink(hard);
  free(db);
  free(hard);
  expect_rows(s, "SELECT count(*) FROM src", "7");
  esession_close(s);
  close_engine(eng);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trip_text),
      cmocka_unit_test(test_round_trip_csv_header),
      cmocka_unit_test(test_dirs_allowed),
      cmocka_unit_test(test_superuser_only),
      cmocka_unit_test(test_missing_file),
      cmocka_unit_test(test_own_files_refused),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
