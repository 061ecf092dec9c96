/* test_rdf_datasets — the N-Triples reader over two real data sets
 * (LUBM(10), BSBM 1M, both gzip) counted against an independent count of
 * their statement lines; skipped when ../shared/data is absent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "rdf/rdf.h"

typedef struct count_s {
  uint64_t n;
} count_t;

static int count_quads(void *ctx, const rdf_quad_t *q, size_t n, err_t *e)
{
  (void)q;
  (void)e;
  ((count_t *)ctx)->n += n;
  return 0;
}

/* An independent count (zlib and the C library, not serd): lines of the
 * gzip file that are not blank or comments (each N-Triples statement is
 * one line). */
static uint64_t count_lines(const char *path)
{
  gzFile f = gzopen(path, "rb");
  assert_non_null(f);
  gzbuffer(f, 1 << 20);
  static char line[1 << 20];
  uint64_t n = 0;
  while (gzgets(f, line, sizeof(line))) {
    size_t len = strlen(line);
    assert_true(len > 0 && (line[len - 1] == '\n' || gzeof(f))); /* no line longer than the buffer */
    size_t i = strspn(line, " \t\r");
    if (line[i] != '\n' && line[i] != '\0' && line[i] != '#')
      n++;
  }
  gzclose(f);
  return n;
}

static void check_data_set(const char *rel)
{
  char path[4096];
  snprintf(path, sizeof(path), "%s/../shared/data/%s", CZ_SRCDIR, rel);
  if (access(path, R_OK) != 0) {
    fprintf(stderr, "%s not present: skipped\n", path);
    skip();
  }
  uint64_t want = count_lines(path);
  count_t c = {0};
  rdf_progress_t p = {0};
  err_t e;
  err_clear(&e);
  rdf_read_opts_t o = {.ro_fn = count_quads, .ro_ctx = &c, .ro_progress = &p};
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int rc = rdf_read_file(path, &o, &e);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (rc != CZ_OK)
    fprintf(stderr, "%s\n", e.er_msg);
  assert_int_equal(rc, CZ_OK);
  assert_int_equal(p.rp_errors, 0);
  assert_int_equal(c.n, want);
  assert_int_equal(p.rp_statements, want);
  assert_int_equal(p.rp_bytes_in, p.rp_file_size);
  double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  fprintf(stderr, "%s: %llu statements (line count %llu) in %.2f s\n", rel,
          (unsigned long long)c.n, (unsigned long long)want, s);
}

static void test_lubm10_count(void **state)
{
  (void)state;
  check_data_set("lubm10/lubm10.nt.gz");
}

static void test_bsbm_1m_count(void **state)
{
  (void)state;
  check_data_set("bsbm/bsbm_1m.nt.gz");
}


int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lubm10_count),
      cmocka_unit_test(test_bsbm_1m_count),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
