/* bt_col_write.c — changes to column trees: single-row insert, update and
 * delete, sorted batches, and dropping the runs with the tree.
 *
 * Design notes (README "Column leaves"): every change decodes the affected
 * segment whole, changes the rows and re-encodes it onto new run pages
 * (copy-on-write), then changes the segment entries through the row
 * layout's own entry calls on t->t_seg (rule C2) and frees the old runs
 * (C4). Writers of one tree serialize on its writer mutex (C1), so the
 * segment a writer decoded cannot change under it; readers take no mutex.
 * Order of entry changes, so that a reader clipping a segment's rows at
 * the next entry's key sees the state before or after, never a mix: a
 * split inserts the new right entries before it shrinks the left one; a
 * merge grows the left one before it deletes the right entry.
 */
#include <pthread.h>
#include <string.h>

#include "btree/bt_col_int.h"

/* C1: one mutex per tree, striped by root page number. */
#define BTC_WRITER_STRIPES 64
static pthread_mutex_t btc_writers[BTC_WRITER_STRIPES] = {
#define M PTHREAD_MUTEX_INITIALIZER
    M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
    M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M, M,
#undef M
};

static pthread_mutex_t *writer_mutex(const bt_tree_t *t)
{
  return &btc_writers[(t->t_root * 2654435761u) >> 26];
}

static int check_row(const void *key, size_t klen, const void *val, size_t vlen, err_t *e)
{
  if (klen > BT_MAX_KEY)
    return err_set(e, SQLSTATE_PROGRAM_LIMIT, "btree: key of %zu bytes is longer than %d", klen, BT_MAX_KEY);
  if (vlen > BTC_MAX_CROW)
    return err_set(e, SQLSTATE_PROGRAM_LIMIT, "column tree: row of %zu bytes is longer than %d", vlen,
                   BTC_MAX_CROW);
  ty_phys_t k[BTC_MAX_COLS];
  datum_t v[BTC_MAX_COLS];
  int n;
  (void)key;
  return bt_crow_parse(val, vlen, BTC_MAX_COLS - 1, k, v, &n, e);
}

/* Position of key among rs's rows: the first row >= key; *eq if equal. */
static int rows_find(const btc_rows_t *rs, const void *key, size_t klen, bool *eq)
{
  int lo = 0, hi = rs->rs_n;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (bt_keycmp(rs->rs_key[mid], rs->rs_klen[mid], key, klen) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  *eq = lo < rs->rs_n && bt_keycmp(rs->rs_key[lo], rs->rs_klen[lo], key, klen) == 0;
  return lo;
}

/* The first segment's entry key (C-I5): the empty key, below every key,
 * so that no row lies below its segment's entry key and a split of the
 * first segment cannot give its right half an entry that sorts before
 * the left half's. */
static uint8_t first_entry_key[1];

/* Moves the first segment's entry to the empty key (trees written before
 * C-I5, or whose first segment was emptied and deleted, so that the next
 * became first): an entry of the same descriptor at the empty key, then
 * the old entry goes. In between both name the same runs, and a reader
 * of the new entry clips its rows at the old entry's key, so readers see
 * every row once at every instant. */
static int first_entry_lower(bt_tree_t *t, btc_pos_t *pos, err_t *e)
{
  if (bt_insert(t->t_seg, first_entry_key, 0, pos->sp_desc, pos->sp_dlen, e) != CZ_OK)
    return CZ_ERR;
  if (bt_delete(t->t_seg, pos->sp_key, pos->sp_klen, NULL, 0, NULL, 0, NULL, e) != CZ_OK) {
    err_t e2;
    bt_delete(t->t_seg, first_entry_key, 0, NULL, 0, NULL, 0, NULL, &e2);
    return CZ_ERR;
  }
  pos->sp_key = first_entry_key;
  pos->sp_klen = 0;
  return CZ_OK;
}

/* The segment of key, decoded: *pos and *d name it, rs holds its rows
 * (empty when the tree is). The first segment's entry is moved to the
 * empty key first when it is not there (C-I5). */
static int seg_open(bt_tree_t *t, const void *key, size_t klen, arena_t *a, btc_pos_t *pos, btc_desc_t *d,
                    btc_rows_t *rs, err_t *e)
{
  btc_rows_init(rs);
  if (btc_locate(t, key, klen, a, pos, d, NULL, NULL, NULL, NULL, e) != CZ_OK)
    return CZ_ERR;
  if (!pos->sp_found)
    return CZ_OK;
  if (pos->sp_first && pos->sp_klen > 0 && first_entry_lower(t, pos, e) != CZ_OK)
    return CZ_ERR;
  if (btc_seg_decode(t, d, a, rs, e) != CZ_OK)
    return CZ_ERR;
  if (rs->rs_n != (int)d->sd_rows)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "column tree %u: segment decoded to %d rows, says %u",
                   (unsigned)t->t_root, rs->rs_n, d->sd_rows);
  return CZ_OK;
}

static void free_new(bt_tree_t *t, const uint8_t *desc, size_t len)
{
  btc_desc_t d;
  err_t e2;
  if (desc && btc_desc_parse(desc, len, &d, &e2) == CZ_OK)
    btc_desc_free_runs(t, &d, &e2);
}

/* Rewrites the segment named by pos (old descriptor old) with rows
 * rs[0 .. n): one segment when they fit, else cut into several (full ones
 * when append, even ones otherwise); an empty rs deletes the entry. For a
 * new tree (pos not found) the first entry gets the empty key (C-I5). */
static int seg_store(bt_tree_t *t, const btc_pos_t *pos, const btc_desc_t *old, const btc_rows_t *rs,
                     bool append, arena_t *a, err_t *e)
{
  int n = rs->rs_n;
  if (n == 0) {
    if (pos->sp_found) {
      if (bt_delete(t->t_seg, pos->sp_key, pos->sp_klen, NULL, 0, NULL, 0, NULL, e) != CZ_OK)
        return CZ_ERR;
      return btc_desc_free_runs(t, old, e);
    }
    return CZ_OK;
  }
  int pieces = (n + BTC_SEG_ROWS - 1) / BTC_SEG_ROWS;
  int *cut = arena_try_alloc(a, sizeof *cut * (size_t)(pieces + 1));
  uint8_t **desc = arena_try_zalloc(a, sizeof *desc * (size_t)pieces);
  size_t *dlen = arena_try_zalloc(a, sizeof *dlen * (size_t)pieces);
  bt_row_t *ents = arena_try_zalloc(a, sizeof *ents * (size_t)pieces);
  if (!cut || !desc || !dlen || !ents)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "column tree: segment pieces");
  for (int i = 0; i <= pieces; i++)
    cut[i] = append ? (i * BTC_SEG_ROWS < n ? i * BTC_SEG_ROWS : n) : (int)((int64_t)n * i / pieces);
  const uint8_t *k0 = pos->sp_found ? pos->sp_key : first_entry_key;
  uint32_t k0len = pos->sp_found ? pos->sp_klen : 0;
  int done = 0, rc = CZ_ERR;
  for (; done < pieces; done++) {
    uint32_t eklen = done == 0 ? k0len : rs->rs_klen[cut[done]];
    if (btc_seg_encode(t, rs, cut[done], cut[done + 1], eklen, a, &desc[done], &dlen[done], e) != CZ_OK)
      goto fail;
  }
  /* Right pieces first (a reader clips the old left one at them). */
  for (int i = 1; i < pieces; i++) {
    ents[i].r_key = rs->rs_key[cut[i]];
    ents[i].r_key_len = rs->rs_klen[cut[i]];
    ents[i].r_val = desc[i];
    ents[i].r_val_len = (uint32_t)dlen[i];
  }
  if (pieces > 1) {
    int ins = 0;
    if (bt_insert_batch(t->t_seg, ents + 1, pieces - 1, &ins, e) != CZ_OK) {
      /* Take back the entries that went in, then the runs. */
      err_t e2;
      for (int i = 1; i <= ins; i++)
        bt_delete(t->t_seg, ents[i].r_key, ents[i].r_key_len, NULL, 0, NULL, 0, NULL, &e2);
      goto fail;
    }
  }
  if (pos->sp_found) {
    if (bt_update(t->t_seg, k0, k0len, desc[0], dlen[0], NULL, 0, NULL, e) != CZ_OK)
      goto fail_after; /* entries of the right pieces stay: their rows are correct */
  } else if (bt_insert(t->t_seg, k0, k0len, desc[0], dlen[0], e) != CZ_OK) {
    goto fail_after;
  }
  if (pos->sp_found)
    return btc_desc_free_runs(t, old, e);
  return CZ_OK;
fail_after:
  /* The right pieces are in the tree and hold their rows; the left one
   * keeps its old runs, clipped at them by readers. Only piece 0's runs
   * are unreachable. */
  free_new(t, desc[0], dlen[0]);
  return CZ_ERR;
fail:
  for (int i = 0; i < done; i++)
    free_new(t, desc[i], dlen[i]);
  return rc;
}

static int rows_insert_at(btc_rows_t *rs, arena_t *a, int at, const void *key, size_t klen, const void *val,
                          size_t vlen, err_t *e)
{
  if (btc_rows_reserve(rs, a, rs->rs_n + 1, e) != CZ_OK)
    return CZ_ERR;
  int tail = rs->rs_n - at;
  memmove(rs->rs_key + at + 1, rs->rs_key + at, sizeof *rs->rs_key * (size_t)tail);
  memmove(rs->rs_klen + at + 1, rs->rs_klen + at, sizeof *rs->rs_klen * (size_t)tail);
  memmove(rs->rs_val + at + 1, rs->rs_val + at, sizeof *rs->rs_val * (size_t)tail);
  memmove(rs->rs_vlen + at + 1, rs->rs_vlen + at, sizeof *rs->rs_vlen * (size_t)tail);
  rs->rs_key[at] = key;
  rs->rs_klen[at] = (uint32_t)klen;
  rs->rs_val[at] = val;
  rs->rs_vlen[at] = (uint32_t)vlen;
  rs->rs_n++;
  return CZ_OK;
}

static void rows_remove_at(btc_rows_t *rs, int at)
{
  int tail = rs->rs_n - at - 1;
  memmove(rs->rs_key + at, rs->rs_key + at + 1, sizeof *rs->rs_key * (size_t)tail);
  memmove(rs->rs_klen + at, rs->rs_klen + at + 1, sizeof *rs->rs_klen * (size_t)tail);
  memmove(rs->rs_val + at, rs->rs_val + at + 1, sizeof *rs->rs_val * (size_t)tail);
  memmove(rs->rs_vlen + at, rs->rs_vlen + at + 1, sizeof *rs->rs_vlen * (size_t)tail);
  rs->rs_n--;
}

static void copy_old(const btc_rows_t *rs, int at, void *old_val, size_t old_cap, size_t *old_len)
{
  if (old_val)
    memcpy(old_val, rs->rs_val[at], rs->rs_vlen[at] < old_cap ? rs->rs_vlen[at] : old_cap);
  if (old_len)
    *old_len = rs->rs_vlen[at];
}

/* Runs fn under the tree's writer mutex with a fresh arena. */
typedef struct wctx_s {
  bt_tree_t *w_t;
  arena_t *w_a;
} wctx_t;

static int writer_begin(bt_tree_t *t, wctx_t *w, err_t *e)
{
  w->w_t = t;
  if (!(w->w_a = arena_create(NULL, "btc_write")))
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "column tree: write arena");
  pthread_mutex_lock(writer_mutex(t));
  return CZ_OK;
}

static int writer_end(wctx_t *w, int rc)
{
  pthread_mutex_unlock(writer_mutex(w->w_t));
  arena_destroy(w->w_a);
  return rc;
}

int btc_insert(bt_tree_t *t, const void *key, size_t klen, const void *val, size_t vlen, err_t *e)
{
  uint8_t pair[BT_MAX_KEY];
  if (!t->t_unique) { /* the pair is the key (bt_col_pair.c): 23505 for the same pair */
    uint32_t plen;
    if (btc_pair_make(key, klen, val, vlen, pair, &plen, e) != CZ_OK)
      return CZ_ERR;
    key = pair;
    klen = plen;
  }
  if (check_row(key, klen, val, vlen, e) != CZ_OK)
    return CZ_ERR;
  wctx_t w;
  if (writer_begin(t, &w, e) != CZ_OK)
    return CZ_ERR;
  btc_pos_t pos;
  btc_desc_t d;
  btc_rows_t rs;
  if (seg_open(t, key, klen, w.w_a, &pos, &d, &rs, e) != CZ_OK)
    return writer_end(&w, CZ_ERR);
  bool eq;
  int at = rows_find(&rs, key, klen, &eq);
  if (eq)
    return writer_end(&w, err_set(e, SQLSTATE_UNIQUE_VIOLATION, "btree: duplicate key"));
  if (rows_insert_at(&rs, w.w_a, at, key, klen, val, vlen, e) != CZ_OK)
    return writer_end(&w, CZ_ERR);
  /* A row appended to the last segment fills it before a new one starts
   * (ascending inserts leave full segments); elsewhere a split halves. */
  bool append = at == rs.rs_n - 1 && !pos.sp_has_next;
  return writer_end(&w, seg_store(t, &pos, &d, &rs, append, w.w_a, e));
}

int btc_update(bt_tree_t *t, const void *key, size_t klen, const void *val, size_t vlen, void *old_val,
               size_t old_cap, size_t *old_len, err_t *e)
{
  if (!t->t_unique)
    return err_set(e, SQLSTATE_INTERNAL, "bt_update: tree %u is not unique", (unsigned)t->t_root);
  if (check_row(key, klen, val, vlen, e) != CZ_OK)
    return CZ_ERR;
  wctx_t w;
  if (writer_begin(t, &w, e) != CZ_OK)
    return CZ_ERR;
  btc_pos_t pos;
  btc_desc_t d;
  btc_rows_t rs;
  if (seg_open(t, key, klen, w.w_a, &pos, &d, &rs, e) != CZ_OK)
    return writer_end(&w, CZ_ERR);
  bool eq;
  int at = rows_find(&rs, key, klen, &eq);
  if (!eq)
    return writer_end(&w, BT_NOT_FOUND);
  copy_old(&rs, at, old_val, old_cap, old_len);
  rs.rs_val[at] = val;
  rs.rs_vlen[at] = (uint32_t)vlen;
  return writer_end(&w, seg_store(t, &pos, &d, &rs, false, w.w_a, e));
}

int btc_delete(bt_tree_t *t, const void *key, size_t klen, const void *val, size_t vlen, void *old_val,
               size_t old_cap, size_t *old_len, err_t *e)
{
  wctx_t w;
  uint8_t pair[BT_MAX_KEY];
  if (!t->t_unique) {
    uint32_t plen;
    err_t e2;
    if (btc_pair_make(key, klen, val, vlen, pair, &plen, &e2) != CZ_OK)
      return BT_NOT_FOUND; /* no pair that long is stored */
    key = pair;
    klen = plen;
  }
  if (klen > BT_MAX_KEY)
    return BT_NOT_FOUND;
  if (writer_begin(t, &w, e) != CZ_OK)
    return CZ_ERR;
  btc_pos_t pos;
  btc_desc_t d;
  btc_rows_t rs;
  if (seg_open(t, key, klen, w.w_a, &pos, &d, &rs, e) != CZ_OK)
    return writer_end(&w, CZ_ERR);
  bool eq;
  int at = rows_find(&rs, key, klen, &eq);
  if (!eq)
    return writer_end(&w, BT_NOT_FOUND);
  copy_old(&rs, at, old_val, old_cap, old_len);
  rows_remove_at(&rs, at);
  if (rs.rs_n > 0 && rs.rs_n < BTC_MERGE_ROWS && pos.sp_has_next) {
    /* Merge with the right neighbour when both fit one segment: grow this
     * one first, then delete the neighbour's entry (see the file note). */
    btc_pos_t npos;
    btc_desc_t nd;
    btc_rows_t nrs;
    if (seg_open(t, pos.sp_next, pos.sp_nlen, w.w_a, &npos, &nd, &nrs, e) != CZ_OK)
      return writer_end(&w, CZ_ERR);
    if (npos.sp_found && npos.sp_klen == pos.sp_nlen && memcmp(npos.sp_key, pos.sp_next, pos.sp_nlen) == 0 &&
        rs.rs_n + nrs.rs_n <= BTC_SEG_ROWS) {
      if (btc_rows_reserve(&rs, w.w_a, rs.rs_n + nrs.rs_n, e) != CZ_OK)
        return writer_end(&w, CZ_ERR);
      for (int i = 0; i < nrs.rs_n; i++) {
        rs.rs_key[rs.rs_n] = nrs.rs_key[i];
        rs.rs_klen[rs.rs_n] = nrs.rs_klen[i];
        rs.rs_val[rs.rs_n] = nrs.rs_val[i];
        rs.rs_vlen[rs.rs_n] = nrs.rs_vlen[i];
        rs.rs_n++;
      }
      if (seg_store(t, &pos, &d, &rs, false, w.w_a, e) != CZ_OK)
        return writer_end(&w, CZ_ERR);
      if (bt_delete(t->t_seg, npos.sp_key, npos.sp_klen, NULL, 0, NULL, 0, NULL, e) != CZ_OK)
        return writer_end(&w, CZ_ERR);
      return writer_end(&w, btc_desc_free_runs(t, &nd, e));
    }
  }
  return writer_end(&w, seg_store(t, &pos, &d, &rs, false, w.w_a, e));
}

static int insert_batch(bt_tree_t *t, const bt_row_t *rows, int n, int *n_done, err_t *e);

/* A non-unique tree's batch: rows sorted by (key, value), so their pairs
 * are sorted; inserted as a unique batch of pairs, in pieces. */
static int insert_batch_pairs(bt_tree_t *t, const bt_row_t *rows, int n, int *n_done, err_t *e)
{
  enum { PIECE = 4096 };
  arena_t *a = arena_create(NULL, "btc_pairs");
  bt_row_t *pr = a ? arena_try_alloc(a, sizeof *pr * PIECE) : NULL;
  if (!pr) {
    if (a)
      arena_destroy(a);
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "column tree: batch pairs");
  }
  int rc = CZ_OK, done = 0;
  for (int at = 0; at < n && rc == CZ_OK; at += PIECE) {
    int k = n - at < PIECE ? n - at : PIECE;
    arena_reset(a);
    if (!(pr = arena_try_alloc(a, sizeof *pr * PIECE)))
      rc = err_set(e, SQLSTATE_OUT_OF_MEMORY, "column tree: batch pairs");
    for (int i = 0; rc == CZ_OK && i < k; i++) {
      const bt_row_t *r = &rows[at + i];
      uint8_t *p = arena_try_alloc(a, BT_MAX_KEY);
      uint32_t plen;
      if (!p)
        rc = err_set(e, SQLSTATE_OUT_OF_MEMORY, "column tree: batch pairs");
      else if ((rc = btc_pair_make(r->r_key, r->r_key_len, r->r_val, r->r_val_len, p, &plen, e)) == CZ_OK)
        pr[i] = (bt_row_t){p, plen, r->r_val, r->r_val_len};
    }
    int in = 0;
    if (rc == CZ_OK)
      rc = insert_batch(t, pr, k, &in, e);
    done += in;
  }
  arena_destroy(a);
  if (n_done)
    *n_done = done;
  return rc;
}

int btc_insert_batch(bt_tree_t *t, const bt_row_t *rows, int n, int *n_done, err_t *e)
{
  if (!t->t_unique)
    return insert_batch_pairs(t, rows, n, n_done, e);
  return insert_batch(t, rows, n, n_done, e);
}

static int insert_batch(bt_tree_t *t, const bt_row_t *rows, int n, int *n_done, err_t *e)
{
  if (n_done)
    *n_done = 0;
  for (int i = 0; i < n; i++) {
    if (check_row(rows[i].r_key, rows[i].r_key_len, rows[i].r_val, rows[i].r_val_len, e) != CZ_OK)
      return CZ_ERR;
    if (i > 0 && bt_keycmp(rows[i - 1].r_key, rows[i - 1].r_key_len, rows[i].r_key, rows[i].r_key_len) > 0)
      return err_set(e, SQLSTATE_INTERNAL, "bt_insert_batch: rows not sorted at %d", i);
  }
  wctx_t w;
  if (writer_begin(t, &w, e) != CZ_OK)
    return CZ_ERR;
  int i = 0;
  while (i < n) {
    arena_reset(w.w_a);
    btc_pos_t pos;
    btc_desc_t d;
    btc_rows_t rs, merged;
    if (seg_open(t, rows[i].r_key, rows[i].r_key_len, w.w_a, &pos, &d, &rs, e) != CZ_OK)
      return writer_end(&w, CZ_ERR);
    /* The batch's rows that fall in this segment: below the next entry. */
    int j = i;
    while (j < n && (!pos.sp_has_next ||
                     bt_keycmp(rows[j].r_key, rows[j].r_key_len, pos.sp_next, pos.sp_nlen) < 0))
      j++;
    /* Merge the two sorted lists; a duplicate ends the group before it. */
    btc_rows_init(&merged);
    if (btc_rows_reserve(&merged, w.w_a, rs.rs_n + (j - i), e) != CZ_OK)
      return writer_end(&w, CZ_ERR);
    int a = 0, b = i;
    bool dup = false, append = true;
    while (a < rs.rs_n || b < j) {
      int c = a >= rs.rs_n ? 1
              : b >= j     ? -1
                           : bt_keycmp(rs.rs_key[a], rs.rs_klen[a], rows[b].r_key, rows[b].r_key_len);
      int m = merged.rs_n;
      if (c == 0 || (c > 0 && m > 0 &&
                     bt_keycmp(merged.rs_key[m - 1], merged.rs_klen[m - 1], rows[b].r_key, rows[b].r_key_len) == 0)) {
        dup = true;
        j = b;
        /* Keep the rows already merged and the segment's remaining rows. */
        for (; a < rs.rs_n; a++, m++) {
          merged.rs_key[m] = rs.rs_key[a];
          merged.rs_klen[m] = rs.rs_klen[a];
          merged.rs_val[m] = rs.rs_val[a];
          merged.rs_vlen[m] = rs.rs_vlen[a];
        }
        merged.rs_n = m;
        break;
      }
      if (c < 0) {
        merged.rs_key[m] = rs.rs_key[a];
        merged.rs_klen[m] = rs.rs_klen[a];
        merged.rs_val[m] = rs.rs_val[a];
        merged.rs_vlen[m] = rs.rs_vlen[a];
        a++;
      } else {
        if (a < rs.rs_n)
          append = false;
        merged.rs_key[m] = rows[b].r_key;
        merged.rs_klen[m] = rows[b].r_key_len;
        merged.rs_val[m] = rows[b].r_val;
        merged.rs_vlen[m] = rows[b].r_val_len;
        b++;
      }
      merged.rs_n = m + 1;
    }
    if (j > i && seg_store(t, &pos, &d, &merged, append && !pos.sp_has_next, w.w_a, e) != CZ_OK)
      return writer_end(&w, CZ_ERR);
    i = j;
    if (n_done)
      *n_done = i;
    if (dup)
      return writer_end(&w, err_set(e, SQLSTATE_UNIQUE_VIOLATION, "btree: duplicate key"));
  }
  return writer_end(&w, CZ_OK);
}

int btc_drop_runs(bt_tree_t *t, err_t *e)
{
  bt_cursor_t *c;
  if (bt_cursor_open(t->t_seg, &c, e) != CZ_OK)
    return CZ_ERR;
  int rc = bt_seek(c, NULL, 0, BT_FORWARD, e);
  while (rc == CZ_OK) {
    const void *k, *v;
    size_t kl, vl;
    btc_desc_t d;
    rc = bt_next(c, &k, &kl, &v, &vl, e);
    if (rc != CZ_OK)
      break;
    if ((rc = btc_desc_parse(v, vl, &d, e)) != CZ_OK || (rc = btc_desc_free_runs(t, &d, e)) != CZ_OK)
      break;
  }
  bt_cursor_close(c);
  return rc == BT_END ? CZ_OK : CZ_ERR;
}
