/* rdf_parse_bench — reading speed of libsrc/rdf's parser: statements per
 * second over one RDF file (plain or gzip), quads counted and dropped.
 * Usage: rdf_parse_bench FILE [FILE...]   (prints figures, asserts nothing)
 */
#include <stdio.h>
#include <time.h>

#include "rdf/rdf.h"

static int rdf_bench_count(void *ctx, const rdf_quad_t *q, size_t n, err_t *e)
{
  (void)q;
  (void)e;
  *(uint64_t *)ctx += n;
  return 0;
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE [FILE...]\n", argv[0]);
    return 2;
  }
  for (int i = 1; i < argc; i++) {
    uint64_t n = 0;
    rdf_progress_t p = {0};
    rdf_read_opts_t o = {.ro_fn = rdf_bench_count, .ro_ctx = &n, .ro_progress = &p};
    err_t e;
    err_clear(&e);
    /* CPU time as well as wall time: the machine may be shared */
    struct timespec t0, t1, c0, c1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    int rc = rdf_read_file(argv[i], &o, &e);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    double cs = (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) / 1e9;
    if (rc != CZ_OK) {
      fprintf(stderr, "%s: %s\n", argv[i], e.er_msg);
      return 1;
    }
    printf("%s: %llu statements, %llu bytes in; wall %.2f s (%.0f statements/s), "
           "cpu %.2f s (%.0f statements/s)\n",
           argv[i], (unsigned long long)n, (unsigned long long)p.rp_bytes_in, s, (double)n / s,
           cs, (double)n / cs);
  }
  return 0;
}
