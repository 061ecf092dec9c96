/* test_bp_concurrency — several threads fixing random pages shared and
 * exclusive through a pool much smaller than the pages, with the
 * background writer and read-ahead running: no torn page is ever seen, and
 * every increment made under an exclusive latch is on disk at the end.
 */
#include "bp_test.h"
#include "thread/thread.h"

#define POOL 48
#define N_PAGES 400
#define N_THREADS 4
#define N_OPS 50000

/* Each page holds a counter twice, far apart; an exclusive fixer changes
 * the first, then the second, so a reader without the latch could see
 * them differ. */
#define CT_A 64
#define CT_B 6000

typedef struct ct_shared_s {
  bpt_t c_t;
  pg_no_t c_pages[N_PAGES];
} ct_shared_t;

typedef struct ct_worker_s {
  ct_shared_t *w_sh;
  unsigned w_seed;
  uint32_t w_incs[N_PAGES]; /* increments this thread made per page */
  int w_failures;           /* torn pages or errors seen */
  int w_nowait_misses;
} ct_worker_t;

static uint64_t ct_get(const uint8_t *p, int off)
{
  uint64_t v;
  memcpy(&v, p + off, 8);
  return v;
}

static void ct_put(uint8_t *p, int off, uint64_t v)
{
  memcpy(p + off, &v, 8);
}

static void ct_one_op(ct_worker_t *w)
{
  ct_shared_t *sh = w->w_sh;
  int i = rand_r(&w->w_seed) % N_PAGES;
  int kind = rand_r(&w->w_seed) % 10;
  bp_latch_t mode = kind < 3 ? BP_EXCL : BP_SHARED;
  int flags = kind == 9 ? BP_NOWAIT : (kind == 8 ? BP_SCAN : 0);
  err_t e;
  buf_t *b = bp_fix(sh->c_t.t_bp, sh->c_pages[i], mode, flags, &e);

  if (!b) {
    if (flags & BP_NOWAIT && strcmp(e.er_sqlstate, "00000") == 0)
      w->w_nowait_misses++;
    else
      w->w_failures++;
    return;
  }
  uint8_t *p = bp_page(b);
  if (bp_page_no(b) != sh->c_pages[i] || ct_get(p, CT_A) != ct_get(p, CT_B))
    w->w_failures++;
  if (mode == BP_EXCL) {
    uint64_t v = ct_get(p, CT_A) + 1;
    ct_put(p, CT_A, v);
    for (int k = CT_A + 8; k < CT_A + 512; k++)
      p[k] = (uint8_t)v; /* time for a reader to catch a torn page */
    ct_put(p, CT_B, v);
    bp_set_dirty(sh->c_t.t_bp, b);
    w->w_incs[i]++;
  }
  bp_unfix(sh->c_t.t_bp, b);
}

static void *ct_worker_main(void *arg)
{
  ct_worker_t *w = arg;
  for (int n = 0; n < N_OPS; n++)
    ct_one_op(w);
  return NULL;
}

static void ct_random_fixes(int ra_window_ms)
{
  ct_shared_t *sh = calloc(1, sizeof(*sh));
  ct_worker_t *w = calloc(N_THREADS, sizeof(*w));
  cz_thread_t th[N_THREADS];
  bp_config_t cfg = bpt_config(POOL);
  err_t e;

  cfg.bc_max_dirty = POOL / 2;
  cfg.bc_bg_writer = true;
  cfg.bc_read_ahead = true;
  cfg.bc_ra_window_ms = ra_window_ms;
  bpt_open(&sh->c_t, "conc.db", &cfg);
  for (int i = 0; i < N_PAGES; i++) {
    buf_t *b = bp_fix_new(sh->c_t.t_bp, 1 + (uint64_t)(i % 3), PG_NONE, &e);
    assert_non_null(b);
    sh->c_pages[i] = bp_page_no(b);
    ((pg_head_t *)bp_page(b))->ph_type = PG_T_TEST;
    bp_unfix(sh->c_t.t_bp, b);
  }
  bpt_cold(&sh->c_t);

  for (int k = 0; k < N_THREADS; k++) {
    w[k].w_sh = sh;
    w[k].w_seed = (unsigned)cz_test_seed() + (unsigned)k * 7919;
    BPT_OK(thread_start(&th[k], ct_worker_main, &w[k], &e), &e);
  }
  for (int k = 0; k < N_THREADS; k++)
    thread_join(&th[k]);

  for (int k = 0; k < N_THREADS; k++)
    assert_int_equal(w[k].w_failures, 0);
  bp_stats_t s = bpt_stats(&sh->c_t);
  print_message("%llu misses, %llu read-ahead requests, %llu dirty evictions\n",
                (unsigned long long)s.bs_misses, (unsigned long long)s.bs_ra_requests,
                (unsigned long long)s.bs_dirty_evictions);
  bpt_cold(&sh->c_t);
  assert_int_equal(bpt_stats(&sh->c_t).bs_n_used, 0);
  for (int i = 0; i < N_PAGES; i++) {
    uint64_t want = 0;
    for (int k = 0; k < N_THREADS; k++)
      want += w[k].w_incs[i];
    buf_t *b = bp_fix(sh->c_t.t_bp, sh->c_pages[i], BP_SHARED, 0, &e);
    assert_non_null(b);
    assert_int_equal(ct_get(bp_page(b), CT_A), want);
    assert_int_equal(ct_get(bp_page(b), CT_B), want);
    bp_unfix(sh->c_t.t_bp, b);
  }
  bpt_close(&sh->c_t);
  free(w);
  free(sh);
}

static void test_random_fixes_keep_pages_whole(void **state)
{
  ct_random_fixes(1000);
}

/* A window of 1 ms makes read-ahead start over and over, racing with
 * demand reads, evictions and writes of the same pages: no update is lost
 * and no stale page is installed. */
static void test_random_fixes_with_frequent_read_ahead(void **state)
{
  ct_random_fixes(1);
}

/* Many threads missing on the same few pages at once read each page once:
 * the later fixers wait for the read in progress. */
#define SAME_THREADS 8
#define SAME_PAGES 8

typedef struct ct_same_s {
  bpt_t *s_t;
  pg_no_t *s_pages;
  int s_fail;
} ct_same_t;

static void *ct_same_main(void *arg)
{
  ct_same_t *s = arg;
  err_t e;
  for (int i = 0; i < SAME_PAGES; i++) {
    buf_t *b = bp_fix(s->s_t->t_bp, s->s_pages[i], BP_SHARED, 0, &e);
    if (!b || !bpt_check(bp_page(b), s->s_pages[i], 0))
      s->s_fail++;
    if (b)
      bp_unfix(s->s_t->t_bp, b);
  }
  return NULL;
}

static void test_one_read_per_page(void **state)
{
  bp_config_t cfg = bpt_config(64);
  bpt_t t;
  pg_no_t pages[SAME_PAGES];
  cz_thread_t th[SAME_THREADS];
  ct_same_t s[SAME_THREADS];
  err_t e;

  bpt_open(&t, "same.db", &cfg);
  bpt_make_pages(&t, 1, SAME_PAGES, pages);
  for (int round = 0; round < 20; round++) {
    bpt_cold(&t);
    bp_reset_stats(t.t_bp);
    for (int k = 0; k < SAME_THREADS; k++) {
      s[k] = (ct_same_t){&t, pages, 0};
      BPT_OK(thread_start(&th[k], ct_same_main, &s[k], &e), &e);
    }
    for (int k = 0; k < SAME_THREADS; k++) {
      thread_join(&th[k]);
      assert_int_equal(s[k].s_fail, 0);
    }
    bp_stats_t st = bpt_stats(&t);
    assert_int_equal(st.bs_misses, SAME_PAGES);
    assert_int_equal(st.bs_hits, SAME_PAGES * (SAME_THREADS - 1));
    assert_int_equal(st.bs_n_used, SAME_PAGES);
  }
  bpt_close(&t);
}

/* Threads creating, checking and freeing their own pages while the pool
 * evicts them: a page number freed and allocated again never shows
 * another page's contents. */
#define CH_THREADS 4
#define CH_LIVE 30
#define CH_OPS 3000

typedef struct ct_churn_s {
  bpt_t *h_t;
  uint64_t h_owner;
  unsigned h_seed;
  int h_fail;
  int h_freed;
} ct_churn_t;

static void *ct_churn_main(void *arg)
{
  ct_churn_t *h = arg;
  bpool_t *bp = h->h_t->t_bp;
  pg_no_t live[CH_LIVE];
  uint32_t ver[CH_LIVE];
  int n = 0;
  err_t e;

  for (int op = 0; op < CH_OPS; op++) {
    int r = rand_r(&h->h_seed) % 10;
    if (n < CH_LIVE && (n == 0 || r < 3)) {
      buf_t *b = bp_fix_new(bp, h->h_owner, PG_NONE, &e);
      if (!b) {
        h->h_fail++;
        continue;
      }
      live[n] = bp_page_no(b);
      ver[n] = (uint32_t)op;
      bpt_fill(bp_page(b), live[n], ver[n]);
      bp_unfix(bp, b);
      n++;
      continue;
    }
    int i = rand_r(&h->h_seed) % n;
    buf_t *b = bp_fix(bp, live[i], r < 5 ? BP_EXCL : BP_SHARED, 0, &e);
    if (!b || !bpt_check(bp_page(b), live[i], ver[i])) {
      h->h_fail++;
      if (b)
        bp_unfix(bp, b);
      continue;
    }
    if (r == 3) {
      bp_free_page(bp, b);
      live[i] = live[--n];
      ver[i] = ver[n];
      h->h_freed++;
    } else if (r == 4) {
      ver[i] = (uint32_t)op;
      bpt_fill(bp_page(b), live[i], ver[i]);
      bp_set_dirty(bp, b);
      bp_unfix(bp, b);
    } else {
      bp_unfix(bp, b);
    }
  }
  return NULL;
}

static void test_alloc_free_churn(void **state)
{
  bp_config_t cfg = bpt_config(32);
  bpt_t t;
  cz_thread_t th[CH_THREADS];
  ct_churn_t h[CH_THREADS];
  err_t e;

  cfg.bc_max_dirty = 16;
  cfg.bc_bg_writer = true;
  cfg.bc_read_ahead = true;
  bpt_open(&t, "churn.db", &cfg);
  for (int k = 0; k < CH_THREADS; k++) {
    h[k] = (ct_churn_t){&t, 100 + (uint64_t)k, (unsigned)cz_test_seed() + (unsigned)k, 0, 0};
    BPT_OK(thread_start(&th[k], ct_churn_main, &h[k], &e), &e);
  }
  for (int k = 0; k < CH_THREADS; k++) {
    thread_join(&th[k]);
    assert_int_equal(h[k].h_fail, 0);
    assert_true(h[k].h_freed > 0);
  }
  bpt_cold(&t);
  assert_int_equal(bpt_stats(&t).bs_n_dirty, 0);
  bpt_close(&t);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_random_fixes_keep_pages_whole),
    cmocka_unit_test(test_random_fixes_with_frequent_read_ahead),
    cmocka_unit_test(test_one_read_per_page),
    cmocka_unit_test(test_alloc_free_churn),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
