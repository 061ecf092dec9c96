/* column_bench — per codec and distribution: compressed bytes per value,
 * encode MB/s, decode values/s (whole segments into a vector) and
 * predicate-evaluation values/s (a range selecting about a tenth of the
 * rows, on the compressed form) over a column of 10 M values cut into
 * segments of 4096 rows, as the column leaves will hold them.
 * Times are the thread's CPU time (the machine is shared). Figures are
 * printed, never asserted.
 * Usage: column_bench [-n values] [-s segment_rows]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "column/column.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void)
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

enum { D_SORTED, D_LOWCARD, D_RAND20, D_TIMESTAMP, D_SHORTSTR, D_COUNT };
static const char *const dist_names[] = {"sorted keys", "low-cardinality", "random 20-bit", "timestamps",
                                         "short strings"};

static void fill(vec_t *v, int n, int dist, arena_t *a, ce_pred_t *p, double *raw_bytes)
{
  memset(p, 0, sizeof(*p));
  p->p_op = CE_RANGE;
  p->p_lo_incl = true;
  p->p_hi_incl = false;
  *raw_bytes = 8.0 * n;
  switch (dist) {
  case D_SORTED: {
    int64_t k = 1;
    for (int i = 0; i < n; i++) {
      k += (next_rand() % 50) == 0 ? 2 : 1; /* keys with a few gaps */
      v->v_i64[i] = k;
    }
    p->p_val.d_i64 = k / 2;
    p->p_hi.d_i64 = k / 2 + k / 10;
    break;
  }
  case D_LOWCARD:
    for (int i = 0; i < n; i++)
      v->v_i64[i] = (int64_t)(next_rand() % 10) * 1000;
    p->p_val.d_i64 = 3000;
    p->p_hi.d_i64 = 3001;
    break;
  case D_RAND20:
    for (int i = 0; i < n; i++)
      v->v_i64[i] = (int64_t)(next_rand() & 0xfffff);
    p->p_val.d_i64 = 100000;
    p->p_hi.d_i64 = 100000 + 104858;
    break;
  case D_TIMESTAMP: {
    /* microseconds, one event a second with occasional jitter */
    int64_t t = 820000000000000ll;
    for (int i = 0; i < n; i++) {
      t += 1000000 + ((next_rand() % 20) == 0 ? (int64_t)(next_rand() % 1000) : 0);
      v->v_i64[i] = t;
    }
    p->p_val.d_i64 = v->v_i64[n / 2];
    p->p_hi.d_i64 = v->v_i64[n / 2 + n / 10 - 1];
    break;
  }
  case D_SHORTSTR: {
    static char words[1000][16];
    static int made;
    if (!made) {
      for (int w = 0; w < 1000; w++) {
        int len = 4 + (int)(next_rand() % 9);
        for (int j = 0; j < len; j++)
          words[w][j] = (char)('a' + next_rand() % 26);
        words[w][len] = 0;
      }
      made = 1;
    }
    *raw_bytes = 0;
    for (int i = 0; i < n; i++) {
      const char *w = words[next_rand() % 1000];
      v->v_str[i].s_ptr = w;
      v->v_str[i].s_len = (uint32_t)strlen(w);
      *raw_bytes += v->v_str[i].s_len;
    }
    p->p_val.d_str.s_ptr = "a";
    p->p_val.d_str.s_len = 1;
    p->p_hi.d_str.s_ptr = "c";
    p->p_hi.d_str.s_len = 1;
    break;
  }
  }
  (void)a;
}

int main(int argc, char **argv)
{
  int n = 10000000, seg = 4096, opt;
  while ((opt = getopt(argc, argv, "n:s:")) != -1) {
    if (opt == 'n')
      n = atoi(optarg);
    else if (opt == 's')
      seg = atoi(optarg);
    else {
      fprintf(stderr, "usage: %s [-n values] [-s segment_rows]\n", argv[0]);
      return 2;
    }
  }
  if (n <= 0 || seg <= 0)
    return 2;
  err_t e;
  arena_t *root = arena_create(NULL, "bench");
  int nseg = (n + seg - 1) / seg;
  uint8_t **bufs = malloc(sizeof(*bufs) * (size_t)nseg);
  size_t *lens = malloc(sizeof(*lens) * (size_t)nseg);
  uint32_t *sel = malloc(sizeof(uint32_t) * (size_t)seg);
  printf("column_bench: %d values, segments of %d rows\n", n, seg);
  printf("%-16s %-9s %9s %10s %14s %14s %9s\n", "distribution", "codec", "bytes/val", "enc MB/s",
         "decode val/s", "pred val/s", "selected");
  for (int dist = 0; dist < D_COUNT; dist++) {
    arena_t *da = arena_create(root, "dist");
    vec_t v, out;
    ty_t t = ty_plain(dist == D_SHORTSTR ? TY_TEXT : TY_INT8);
    if (vec_init(&v, da, t, n, &e) != CZ_OK || vec_init(&out, da, t, seg, &e) != CZ_OK)
      return 1;
    ce_pred_t p;
    double raw;
    fill(&v, n, dist, da, &p, &raw);
    for (int id = CE_AUTO; id < CE_COUNT_; id++) {
      arena_t *enc = arena_create(da, "enc"), *scratch = arena_create(da, "scratch");
      size_t total = 0;
      int fell_back = 0;
      double t0 = now();
      for (int s = 0; s < nseg; s++) {
        int start = s * seg, m = CZ_MIN(seg, n - start);
        if (ce_encode(&v, start, m, id, enc, scratch, &bufs[s], &lens[s], &e) != CZ_OK) {
          fprintf(stderr, "encode: %s\n", e.er_msg);
          return 1;
        }
        ce_info_t info;
        if (ce_info(bufs[s], lens[s], &info, &e) != CZ_OK)
          return 1;
        fell_back += id != CE_AUTO && info.ci_codec != id;
        total += lens[s];
        arena_reset(scratch);
      }
      double t_enc = now() - t0;
      if (fell_back == nseg) {
        printf("%-16s %-9s %9s\n", dist_names[dist], ce_name(id), "n/a");
        arena_destroy(enc);
        arena_destroy(scratch);
        continue;
      }
      t0 = now();
      for (int s = 0; s < nseg; s++) {
        if (ce_decode(bufs[s], lens[s], &out, 0, scratch, &e) != CZ_OK) {
          fprintf(stderr, "decode: %s\n", e.er_msg);
          return 1;
        }
        if ((s & 63) == 63)
          arena_reset(scratch);
      }
      double t_dec = now() - t0;
      arena_reset(scratch);
      uint64_t hits = 0;
      t0 = now();
      for (int s = 0; s < nseg; s++) {
        uint32_t k;
        if (ce_filter(bufs[s], lens[s], &p, NULL, 0, sel, &k, scratch, &e) != CZ_OK) {
          fprintf(stderr, "filter: %s\n", e.er_msg);
          return 1;
        }
        hits += k;
        if ((s & 63) == 63)
          arena_reset(scratch);
      }
      double t_pred = now() - t0;
      char name[32];
      snprintf(name, sizeof(name), "%s%s", ce_name(id), fell_back ? "*" : "");
      printf("%-16s %-9s %9.3f %10.0f %14.3g %14.3g %8.1f%%\n", dist_names[dist], name, (double)total / n,
             raw / 1e6 / t_enc, n / t_dec, n / t_pred, 100.0 * (double)hits / n);
      fflush(stdout);
      arena_destroy(enc);
      arena_destroy(scratch);
    }
    arena_destroy(da);
  }
  printf("auto: the chooser's pick per segment; *: some segments fell back to the chooser "
         "(codec not applicable there)\n");
  free(bufs);
  free(lens);
  free(sel);
  arena_destroy(root);
  return 0;
}
