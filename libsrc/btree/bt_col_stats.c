/* bt_col_stats.c — estimates and samples for the optimizer on column
 * trees: bt_estimate and bt_sample count and pick index rows, not
 * segment entries.
 *
 * Design notes:
 * - Estimate: when both ends fall in one segment its key run is decoded
 *   and the rows counted exactly (one segment read, as the row layout is
 *   exact on one leaf); otherwise the row layout's estimate of segment
 *   entries in the range (two descents, no leaf scan) times the mean rows
 *   per segment of 16 segments picked by random descents (descriptors
 *   only: their row counts, no run read).
 * - Sample: segment entries are picked by the row layout's random
 *   descents over the range (widened down to the entry of lo's segment),
 *   then a random row of each picked segment inside the range; the
 *   callback runs under that segment's leaf latch, as bt_sample's does.
 *   Segments hold about equal row counts (cut in the middle, merged
 *   under a quarter), so rows are picked about uniformly.
 * - Non-unique trees: the ends are the keys' lowest pairs
 *   (bt_col_pair.c); rows are handed out with their keys.
 */
#include <string.h>

#include "btree/bt_col_int.h"

#define BTC_MEAN_SAMPLES 16

typedef struct st_keys_s {
  arena_t *sk_a;
  int sk_n, sk_cap;
  bt_key_t *sk_keys;
  uint64_t sk_rows;      /* rows of the descriptors seen */
  int sk_desc;           /* descriptors seen */
} st_keys_t;

static void st_collect(void *ctx, const void *key, size_t klen, const void *val, size_t vlen)
{
  st_keys_t *k = ctx;
  if (vlen >= BTC_DESC_HEAD) {
    uint32_t rows;
    memcpy(&rows, (const uint8_t *)val + 4, 4);
    k->sk_rows += rows;
    k->sk_desc++;
  }
  if (k->sk_n < k->sk_cap) {
    uint8_t *c = arena_try_alloc(k->sk_a, klen ? klen : 1);
    if (!c)
      return;
    memcpy(c, key, klen);
    k->sk_keys[k->sk_n++] = (bt_key_t){c, (uint32_t)klen};
  }
}

/* Ends of a range as the segment layer's keys (pairs' lowest forms in a
 * non-unique tree). */
typedef struct st_range_s {
  const uint8_t *r_lo, *r_hi;
  uint32_t r_lo_len, r_hi_len;
  uint8_t r_lob[BT_MAX_KEY + 2], r_hib[BT_MAX_KEY + 2];
} st_range_t;

static void st_range(const bt_tree_t *t, st_range_t *r, const void *lo, size_t lo_len, const void *hi,
                     size_t hi_len)
{
  if (lo_len > BT_MAX_KEY + 1)
    lo_len = BT_MAX_KEY + 1;
  if (hi_len > BT_MAX_KEY + 1)
    hi_len = BT_MAX_KEY + 1;
  r->r_lo = lo;
  r->r_hi = hi;
  r->r_lo_len = (uint32_t)lo_len;
  r->r_hi_len = (uint32_t)hi_len;
  if (!t->t_unique) {
    if (lo) {
      r->r_lo_len = btc_pair_bound(lo, lo_len, r->r_lob);
      r->r_lo = r->r_lob;
    }
    if (hi) {
      r->r_hi_len = btc_pair_bound(hi, hi_len, r->r_hib);
      r->r_hi = r->r_hib;
    }
  }
}

/* Rows of segment s (decoded) inside [lo, hi) and below its next entry. */
static void st_rows_in(const look_seg_t *s, const st_range_t *r, uint32_t *r0, uint32_t *r1)
{
  const str_t *ks = s->ls_vec[0].v_str;
  uint32_t n = s->ls_desc.sd_rows;
  const uint8_t *ends[2] = {r->r_lo, r->r_hi};
  uint32_t lens[2] = {r->r_lo_len, r->r_hi_len};
  uint32_t at[2] = {0, n};
  for (int i = 0; i < 2; i++) {
    if (!ends[i])
      continue;
    uint32_t a = 0, b = n;
    while (a < b) {
      uint32_t m = (a + b) / 2;
      if (bt_keycmp((const uint8_t *)ks[m].s_ptr, ks[m].s_len, ends[i], lens[i]) < 0)
        a = m + 1;
      else
        b = m;
    }
    at[i] = a;
  }
  if (s->ls_pos.sp_has_next) {
    uint32_t a = at[0], b = at[1];
    while (a < b) {
      uint32_t m = (a + b) / 2;
      if (bt_keycmp((const uint8_t *)ks[m].s_ptr, ks[m].s_len, s->ls_pos.sp_next, s->ls_pos.sp_nlen) < 0)
        a = m + 1;
      else
        b = m;
    }
    at[1] = a;
  }
  *r0 = at[0];
  *r1 = at[1] > at[0] ? at[1] : at[0];
}

int btc_estimate(bt_tree_t *t, const void *lo, size_t lo_len, const void *hi, size_t hi_len, double *out,
                 err_t *e)
{
  *out = 0;
  st_range_t r;
  st_range(t, &r, lo, lo_len, hi, hi_len);
  if (r.r_lo && r.r_hi && bt_keycmp(r.r_lo, r.r_lo_len, r.r_hi, r.r_hi_len) >= 0)
    return CZ_OK;
  arena_t *a = arena_create(NULL, "btc_estimate");
  if (!a)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "column tree: estimate");
  int rc = CZ_ERR;
  btc_pos_t pos;
  btc_desc_t d;
  if (btc_locate(t, r.r_lo, r.r_lo_len, a, &pos, &d, NULL, NULL, NULL, NULL, e) != CZ_OK)
    goto out;
  if (!pos.sp_found) {
    rc = CZ_OK;
    goto out;
  }
  if (r.r_hi && (!pos.sp_has_next || bt_keycmp(r.r_hi, r.r_hi_len, pos.sp_next, pos.sp_nlen) <= 0)) {
    /* Both ends in one segment: count its rows in range exactly. */
    look_seg_t *s = arena_try_zalloc(a, sizeof *s);
    if (!s) {
      err_set(e, SQLSTATE_OUT_OF_MEMORY, "column tree: estimate");
      goto out;
    }
    if (btc_seg_load(t, pos.sp_key, pos.sp_klen, a, s, NULL, e) != CZ_OK)
      goto out;
    uint32_t r0 = 0, r1 = 0;
    if (s->ls_pos.sp_found)
      st_rows_in(s, &r, &r0, &r1);
    *out = r1 - r0;
    rc = CZ_OK;
    goto out;
  }
  /* Segments from lo's on, times the mean rows per segment. */
  double segs;
  if (bt_estimate(t->t_seg, pos.sp_key, pos.sp_klen, r.r_hi, r.r_hi_len, &segs, e) != CZ_OK)
    goto out;
  st_keys_t k = {a, 0, 0, NULL, 0, 0};
  if (bt_sample(t->t_seg, NULL, 0, NULL, 0, BTC_MEAN_SAMPLES, (uint64_t)t->t_root * 0x9e3779b97f4a7c15ull,
                st_collect, &k, e) != CZ_OK)
    goto out;
  double mean = k.sk_desc ? (double)k.sk_rows / k.sk_desc : BTC_SEG_ROWS / 2.0;
  /* lo's segment counts from lo on and hi's up to hi: about half of
   * each when that end is given. */
  double cut = (r.r_lo ? 0.5 : 0) + (r.r_hi ? 0.5 : 0);
  *out = (segs > cut ? segs - cut : 0.5 * segs) * mean;
  rc = CZ_OK;
out:
  arena_destroy(a);
  return rc;
}

static uint64_t st_rand(uint64_t *s)
{
  uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ull;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  *s = x;
  return x;
}

int btc_sample(bt_tree_t *t, const void *lo, size_t lo_len, const void *hi, size_t hi_len, int n,
               uint64_t seed, bt_sample_cb_t cb, void *ctx, err_t *e)
{
  if (n <= 0)
    return CZ_OK;
  st_range_t r;
  st_range(t, &r, lo, lo_len, hi, hi_len);
  arena_t *a = arena_create(NULL, "btc_sample");
  arena_t *sa = arena_create(NULL, "btc_sample_seg");
  int rc = CZ_ERR;
  buf_t *held = NULL;
  if (!a || !sa) {
    err_set(e, SQLSTATE_OUT_OF_MEMORY, "column tree: sample");
    goto out;
  }
  /* The entries: from the one of lo's segment (its rows from lo on count). */
  btc_pos_t pos;
  btc_desc_t d;
  if (btc_locate(t, r.r_lo, r.r_lo_len, a, &pos, &d, NULL, NULL, NULL, NULL, e) != CZ_OK)
    goto out;
  if (!pos.sp_found) {
    rc = CZ_OK;
    goto out;
  }
  st_keys_t k = {a, 0, n, arena_try_alloc(a, sizeof(bt_key_t) * (size_t)n), 0, 0};
  if (!k.sk_keys) {
    err_set(e, SQLSTATE_OUT_OF_MEMORY, "column tree: sample");
    goto out;
  }
  if (bt_sample(t->t_seg, r.r_lo ? pos.sp_key : NULL, pos.sp_klen, r.r_hi, r.r_hi_len, n, seed, st_collect, &k,
                e) != CZ_OK)
    goto out;
  for (int i = 0; i < k.sk_n; i++) {
    arena_reset(sa);
    look_seg_t *s = arena_try_zalloc(sa, sizeof *s);
    if (!s) {
      err_set(e, SQLSTATE_OUT_OF_MEMORY, "column tree: sample");
      goto out;
    }
    if (btc_seg_load(t, k.sk_keys[i].k_data, k.sk_keys[i].k_len, sa, s, &held, e) != CZ_OK)
      goto out;
    uint32_t r0 = 0, r1 = 0;
    if (s->ls_pos.sp_found)
      st_rows_in(s, &r, &r0, &r1);
    if (r1 > r0) {
      int row = (int)(r0 + st_rand(&seed) % (r1 - r0));
      uint8_t *val;
      size_t vlen;
      if (btc_seg_row(s, row, sa, &val, &vlen, e) != CZ_OK)
        goto out;
      const str_t *ks = &s->ls_vec[0].v_str[row];
      uint8_t kb[BT_MAX_KEY];
      const uint8_t *key = (const uint8_t *)ks->s_ptr;
      uint32_t klen = ks->s_len;
      if (!t->t_unique) {
        const uint8_t *pv;
        uint32_t pvl;
        if (btc_pair_split(key, klen, kb, &klen, &pv, &pvl) != CZ_OK) {
          err_set(e, SQLSTATE_DATA_CORRUPTED, "column tree %u: a row's key is not a (key, value) pair",
                  (unsigned)t->t_root);
          goto out;
        }
        key = kb;
      }
      cb(ctx, key, klen, val, vlen);
    }
    if (held) {
      bp_unfix(t->t_bp, held);
      held = NULL;
    }
  }
  rc = CZ_OK;
out:
  if (held)
    bp_unfix(t->t_bp, held);
  if (a)
    arena_destroy(a);
  if (sa)
    arena_destroy(sa);
  return rc;
}
