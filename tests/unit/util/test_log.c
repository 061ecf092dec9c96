/* test_log — line format, level filter, file output, whole lines under threads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cz_test.h"
#include "util/util.h"

/* Reads the whole file into a malloc'd string. */
static char *slurp(const char *path)
{
  FILE *f = fopen(path, "rb");
  char *buf;
  long n;
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  buf = malloc((size_t)n + 1);
  assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

static void test_log_line_format(void **state)
{
  char *path = cz_test_path("format.log");
  err_t e;
  regex_t re;
  char *text;
  (void)state;
  assert_int_equal(log_open_file(path, &e), CZ_OK);
  log_info("hello %d", 42);
  log_close_file();
  text = slurp(path);
  assert_int_equal(regcomp(&re,
                           "^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3} "
                           "INFO hello 42\n$",
                           REG_EXTENDED),
                   0);
  if (regexec(&re, text, 0, NULL, 0) != 0)
    fail_msg("unexpected log line: '%s'", text);
  regfree(&re);
  free(text);
  free(path);
}

static void test_log_level_filters(void **state)
{
  char *path = cz_test_path("level.log");
  err_t e;
  char *text;
  (void)state;
  log_open_file(path, &e);
  log_set_level(LOG_WARN);
  assert_int_equal(log_get_level(), LOG_WARN);
  log_error("e-line");
  log_warn("w-line");
  log_info("i-line");
  log_debug("d-line");
  log_set_level(LOG_DEBUG);
  log_debug("d2-line");
  log_set_level(LOG_INFO);
  log_close_file();
  text = slurp(path);
  assert_non_null(strstr(text, " ERROR e-line\n"));
  assert_non_null(strstr(text, " WARN w-line\n"));
  assert_null(strstr(text, "i-line"));
  assert_null(strstr(text, " d-line"));
  assert_non_null(strstr(text, " DEBUG d2-line\n"));
  free(text);
  free(path);
}

static void test_log_appends_and_close_stops(void **state)
{
  char *path = cz_test_path("append.log");
  err_t e;
  char *text;
  (void)state;
  log_open_file(path, &e);
  log_info("first");
  log_close_file();
  log_info("while closed");
  log_open_file(path, &e);
  log_info("second");
  log_close_file();
  text = slurp(path);
  assert_non_null(strstr(text, "first"));
  assert_non_null(strstr(text, "second"));
  assert_null(strstr(text, "while closed"));
  free(text);
  free(path);
}

static void test_log_open_failure_reports_io_error(void **state)
{
  err_t e;
  (void)state;
  assert_int_equal(log_open_file("/nonexistent/dir/x.log", &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_IO_ERROR));
}

static void test_log_very_long_message_is_one_line(void **state)
{
  char *path = cz_test_path("long.log");
  char *big = malloc(20000);
  err_t e;
  char *text;
  (void)state;
  memset(big, 'z', 19999);
  big[19999] = '\0';
  log_open_file(path, &e);
  log_warn("%s", big);
  log_close_file();
  text = slurp(path);
  assert_non_null(strchr(text, '\n'));
  assert_int_equal(strchr(text, '\n')[1], '\0');
  free(text);
  free(big);
  free(path);
}

#define LOG_THREADS 4
#define LOG_LINES 500

static void *log_thread(void *arg)
{
  int id = (int)(intptr_t)arg;
  for (int i = 0; i < LOG_LINES; i++)
    log_info("thread %d line %d payload-payload-payload-payload-end", id, i);
  return NULL;
}

/* Lines from concurrent threads never interleave. */
static void test_log_concurrent_lines_stay_whole(void **state)
{
  char *path = cz_test_path("threads.log");
  pthread_t th[LOG_THREADS];
  err_t e;
  char *text, *line, *save;
  int n = 0;
  (void)state;
  log_open_file(path, &e);
  for (int i = 0; i < LOG_THREADS; i++)
    pthread_create(&th[i], NULL, log_thread, (void *)(intptr_t)i);
  for (int i = 0; i < LOG_THREADS; i++)
    pthread_join(th[i], NULL);
  log_close_file();
  text = slurp(path);
  for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    int id, no;
    char tail[64];
    const char *msg = strstr(line, " INFO ");
    assert_non_null(msg);
    assert_int_equal(sscanf(msg, " INFO thread %d line %d %63s", &id, &no, tail), 3);
    assert_string_equal(tail, "payload-payload-payload-payload-end");
    n++;
  }
  assert_int_equal(n, LOG_THREADS * LOG_LINES);
  free(text);
  free(path);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_log_line_format),
      cmocka_unit_test(test_log_level_filters),
      cmocka_unit_test(test_log_appends_and_close_stops),
      cmocka_unit_test(test_log_open_failure_reports_io_error),
      cmocka_unit_test(test_log_very_long_message_is_one_line),
      cmocka_unit_test(test_log_concurrent_lines_stay_whole),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
