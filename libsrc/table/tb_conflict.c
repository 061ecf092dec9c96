/* tb_conflict — INSERT … ON CONFLICT: which proposed rows conflict with a
 * stored row on the arbiter index, and inserting or updating each as
 * PostgreSQL does under read committed.
 *
 * Design notes (table/README.md, "ON CONFLICT"):
 * - Per batch, one vectored probe finds the rows the proposals conflict
 *   with as the transaction sees them now: for the primary key one
 *   tbl_lookup of every key; for a unique secondary index one cursor seeks
 *   each value (first visible entry with that prefix gives the primary
 *   key) and one tbl_lookup fetches those rows. DO UPDATE's SET and WHERE
 *   are then evaluated by the caller for all of them at once (eval).
 * - The probe takes no lock, so each proposal is then settled in order
 *   under locks. A row the probe found is locked and read again
 *   (txn_lock_read): when its version still matches the locator the
 *   evaluation holds and the row is updated (or, WHERE false, left
 *   locked), else it goes the slow way. A row the probe did not find is
 *   inserted once the arbiter value's lock is held and it is still absent
 *   (the value lock is the name tb_write's inserters lock: primary key, or
 *   the encoded index columns); if a row appeared meanwhile (another
 *   session committed it) it goes the slow way.
 * - The slow way locks the arbiter value, then the row holding it, and
 *   reads that row as it is now (nobody else can change it while both
 *   locks are held), evaluates for that row alone and updates it; when no
 *   row holds the value any more, it inserts. So no update is lost and a
 *   concurrent inserter of the same value never causes 23505: its row is
 *   waited for and then updated (or skipped) instead.
 * - A statement must not change one row twice (21000, as PostgreSQL): the
 *   arbiter values of the rows this statement inserted or updated (their
 *   new values) are kept in a hash set; a proposal whose value is in it
 *   is an error. DO NOTHING keeps no set: a repeated value just finds the
 *   row inserted before and is skipped.
 * - A value with a NULL conflicts with nothing (NULLs are never equal).
 */
#include <string.h>

#include "table/tb_int.h"

#define TB_CF_SEEN_MIN 64

struct tbl_conflict_s {
  txn_t *cf_tx;
  const cat_table_t *cf_t;
  int cf_index;                 /* arbiter: ct_indexes[cf_index]; -1 every unique one */
  tbl_cf_eval_t cf_eval;        /* DO UPDATE's evaluation; NULL = DO NOTHING */
  void *cf_ctx;
  const bool *cf_set;           /* the columns SET gives */
  arena_t *cf_a;                /* the statement's: the set of written values */
  /* open addressing set of encoded arbiter values written by the statement */
  str_t *cf_seen;
  uint64_t *cf_seen_hash;
  int64_t cf_nseen, cf_seen_cap;
};

/* ---- the set of values written ------------------------------------------ */

static bool seen_find(const tbl_conflict_t *c, const uint8_t *k, size_t len, uint64_t h)
{
  if (c->cf_seen_cap == 0)
    return false;
  for (int64_t i = (int64_t)(h & (uint64_t)(c->cf_seen_cap - 1));; i = (i + 1) & (c->cf_seen_cap - 1)) {
    if (!c->cf_seen[i].s_ptr)
      return false;
    if (c->cf_seen_hash[i] == h && c->cf_seen[i].s_len == len &&
        memcmp(c->cf_seen[i].s_ptr, k, len) == 0)
      return true;
  }
}

static void seen_put(str_t *slots, uint64_t *hashes, int64_t cap, str_t k, uint64_t h)
{
  int64_t i = (int64_t)(h & (uint64_t)(cap - 1));
  while (slots[i].s_ptr)
    i = (i + 1) & (cap - 1);
  slots[i] = k;
  hashes[i] = h;
}

static void seen_add(tbl_conflict_t *c, const uint8_t *k, size_t len, uint64_t h)
{
  if (seen_find(c, k, len, h))
    return;
  if ((c->cf_nseen + 1) * 2 > c->cf_seen_cap) {
    int64_t cap = c->cf_seen_cap ? c->cf_seen_cap * 2 : TB_CF_SEEN_MIN;
    str_t *slots = arena_zalloc(c->cf_a, sizeof *slots * (size_t)cap);
    uint64_t *hashes = arena_alloc(c->cf_a, sizeof *hashes * (size_t)cap);
    for (int64_t i = 0; i < c->cf_seen_cap; i++)
      if (c->cf_seen[i].s_ptr)
        seen_put(slots, hashes, cap, c->cf_seen[i], c->cf_seen_hash[i]);
    c->cf_seen = slots;
    c->cf_seen_hash = hashes;
    c->cf_seen_cap = cap;
  }
  uint8_t *copy = arena_alloc(c->cf_a, len ? len : 1);
  memcpy(copy, k, len);
  seen_put(c->cf_seen, c->cf_seen_hash, c->cf_seen_cap,
           (str_t){(const char *)copy, (uint32_t)len}, h);
  c->cf_nseen++;
}

/* ---- arbiter values ------------------------------------------------------- */

/* The lock name of row vals's value in index ix: the encoded primary key
 * (primary tree) or the encoded index columns (what tb_write locks).
 * *has_null: a column is NULL (no conflict possible). */
static int cf_value(const cat_table_t *t, const cat_index_t *ix, const datum_t *vals, uint8_t *out,
                    size_t *len, bool *has_null, err_t *e)
{
  *has_null = false;
  if (ix->ci_no == 0) {
    for (int i = 0; i < t->ct_npk; i++)
      *has_null |= vals[t->ct_pk[i]].d_null;
    return *has_null ? CZ_OK : tb_pk_encode(t, vals, 0, out, BT_MAX_KEY, len, e);
  }
  size_t off = 0;
  for (int i = 0; i < ix->ci_nkeys; i++) {
    int col = ix->ci_keys[i];
    *has_null |= vals[col].d_null && !ix->ci_nulls_nd;  /* NULLS NOT DISTINCT: a value */
    off += tbl_key_put(out + CZ_MIN(off, BT_MAX_KEY), off < BT_MAX_KEY ? BT_MAX_KEY - off : 0,
                       t->ct_cols[col].cc_type, &vals[col]);
  }
  *len = off;
  if (off > BT_MAX_KEY)
    *has_null = true;  /* longer than any stored key: it cannot conflict */
  return CZ_OK;
}

/* Row values of row r of b (the table's columns). */
static void cf_row(const cat_table_t *t, const batch_t *b, int r, datum_t *vals)
{
  for (int c = 0; c < t->ct_ncols; c++)
    vec_get(&b->b_cols[c], r, &vals[c]);
}

static void cf_copy_row(const batch_t *from, int fr, batch_t *to, int tr, int ncols)
{
  for (int c = 0; c < ncols; c++) {
    datum_t d;
    vec_get(&from->b_cols[c], fr, &d);
    vec_set(&to->b_cols[c], tr, &d);
  }
}

/* Fetches (tbl_lookup, one call) the rows of the encoded primary keys
 * pks[0..m) into rows at[0..m) of ex (every column and the locator);
 * got[i]: key i's row is there. */
static int cf_fetch(tbl_conflict_t *c, uint8_t **pks, const size_t *pk_lens, int m, const int *at,
                    batch_t *ex, bool *got, arena_t *a, err_t *e)
{
  const cat_table_t *t = c->cf_t;
  int npk;
  const ty_t *pt = tb_pk_types(t, &npk);
  const datum_t **keys = arena_alloc(a, sizeof *keys * (size_t)(m + 1));
  for (int i = 0; i < m; i++) {
    datum_t *k = arena_alloc(a, sizeof *k * (size_t)npk);
    if (tbl_key_decode(pt, npk, pks[i], pk_lens[i], a, k, NULL, e) != CZ_OK)
      return CZ_ERR;
    keys[i] = k;
  }
  int *cols = arena_alloc(a, sizeof *cols * (size_t)(t->ct_ncols + 1));
  ty_t *types = arena_alloc(a, sizeof *types * (size_t)(t->ct_ncols + 2));
  for (int i = 0; i < t->ct_ncols; i++) {
    cols[i] = i;
    types[i] = t->ct_cols[i].cc_type;
  }
  types[t->ct_ncols] = ty_plain(TY_BYTEA);
  batch_t *tmp = batch_create(a, t->ct_ncols + 1, types, m ? m : 1, e);
  if (!tmp || tbl_lookup(c->cf_tx, t, keys, m, cols, t->ct_ncols, true, tmp, got, a, e) != CZ_OK)
    return CZ_ERR;
  for (int i = 0; i < m; i++) {
    if (got[i])
      cf_copy_row(tmp, i, ex, at[i], t->ct_ncols + 1);
  }
  return CZ_OK;
}

/* The probe: found[r] and row r of ex for each proposal r of sel that
 * conflicts (on any unique index when cf_index is -1) with a row tx sees. */
static int cf_probe(tbl_conflict_t *c, const batch_t *b, const int *sel, int n, batch_t *ex,
                    bool *found, arena_t *a, err_t *e)
{
  const cat_table_t *t = c->cf_t;
  datum_t *vals = arena_alloc(a, sizeof *vals * (size_t)(t->ct_ncols + 1));
  uint8_t **pks = arena_alloc(a, sizeof *pks * (size_t)(n + 1));
  size_t *pk_lens = arena_alloc(a, sizeof *pk_lens * (size_t)(n + 1));
  int *at = arena_alloc(a, sizeof *at * (size_t)(n + 1));
  for (int i = 0; i < t->ct_nindexes; i++) {
    const cat_index_t *ix = t->ct_indexes[i];
    if (c->cf_index >= 0 ? i != c->cf_index
                         : ix->ci_hidden || !(ix->ci_unique || ix->ci_primary) || ix->ci_nkeys == 0)
      continue;
    bt_cursor_t *cur = NULL;
    if (i > 0 && bt_cursor_open(ix->ci_tree, &cur, e) != CZ_OK)
      return CZ_ERR;
    int m = 0, rc = CZ_OK;
    for (int j = 0; j < n && rc == CZ_OK; j++) {
      int r = sel ? sel[j] : j;
      if (found[r])
        continue;  /* (several indexes: one conflict is enough) */
      uint8_t v[BT_MAX_KEY];
      size_t vl = 0;
      bool has_null, hit = true;
      cf_row(t, b, r, vals);
      rc = cf_value(t, ix, vals, v, &vl, &has_null, e);
      if (rc != CZ_OK || has_null)
        continue;
      uint8_t pk[BT_MAX_KEY];
      size_t pl = vl;
      if (i == 0)
        memcpy(pk, v, vl);
      else
        rc = tb_index_find(c->cf_tx, cur, ix, v, vl, pk, &pl, &hit, e);
      if (rc != CZ_OK || !hit)
        continue;
      pks[m] = arena_alloc(a, pl ? pl : 1);
      memcpy(pks[m], pk, pl);
      pk_lens[m] = pl;
      at[m++] = r;
    }
    if (cur)
      bt_cursor_close(cur);
    bool *got = arena_alloc(a, (size_t)m + 1);
    if (rc != CZ_OK || (m > 0 && cf_fetch(c, pks, pk_lens, m, at, ex, got, a, e) != CZ_OK))
      return CZ_ERR;
    for (int k = 0; k < m; k++)
      found[at[k]] = got[k];
  }
  return CZ_OK;
}

/* ---- settling one proposal under locks ----------------------------------- */

/* Under a snapshot (REPEATABLE READ, SERIALIZABLE) the row a proposal
 * conflicts with must be the version the snapshot sees: one a later
 * commit inserted, changed or deleted is 40001, as PostgreSQL's. */
static int cf_snapshot_check(tbl_conflict_t *c, const void *pk, size_t pk_len, err_t *e)
{
  if (txn_snapshot_changed(c->cf_tx, c->cf_t->ct_indexes[0]->ci_dtree, pk, pk_len))
    return err_set(e, SQLSTATE_SERIALIZATION, "could not serialize access due to concurrent update");
  return CZ_OK;
}

/* Whether a commit after the snapshot changed the row the probe found in
 * it (row r of ex): then it is settled as it is now, under locks
 * (inserted when deleted since, 40001 when there). */
static bool cf_snapshot_stale(tbl_conflict_t *c, const batch_t *ex, int r)
{
  const vec_t *lv = &ex->b_cols[c->cf_t->ct_ncols];
  str_t loc = lv->v_str[r];
  if (lv->v_null[r] || loc.s_len <= TBL_LOC_HASH)
    return false;
  return txn_snapshot_changed(c->cf_tx, c->cf_t->ct_indexes[0]->ci_dtree, loc.s_ptr,
                              loc.s_len - TBL_LOC_HASH);
}

/* Locks the row loc names (row r of ex) and tells whether it is still the
 * version the probe read. */
static int cf_lock_current(tbl_conflict_t *c, const batch_t *ex, int r, bool *current, err_t *e)
{
  const vec_t *lv = &ex->b_cols[c->cf_t->ct_ncols];
  str_t loc = lv->v_str[r];
  *current = false;
  if (lv->v_null[r] || loc.s_len <= TBL_LOC_HASH)
    return CZ_OK;
  size_t pk_len = loc.s_len - TBL_LOC_HASH;
  uint64_t want = 0;
  for (int i = 0; i < TBL_LOC_HASH; i++)
    want |= (uint64_t)(uint8_t)loc.s_ptr[pk_len + (size_t)i] << (8 * i);
  uint8_t row[BT_MAX_ROW];
  size_t len;
  bool found, changed;
  if (txn_lock_read(c->cf_tx, c->cf_t->ct_indexes[0]->ci_tree, loc.s_ptr, pk_len, row, BT_MAX_ROW,
                    &len, &found, &changed, e) != CZ_OK)
    return CZ_ERR;
  if (found && len <= BT_MAX_ROW && tb_is_column(c->cf_t) &&
      tb_col_row_inplace(c->cf_t, row, sizeof row, &len, e) != CZ_OK)
    return CZ_ERR;
  *current = found && len <= BT_MAX_ROW && tb_row_hash(row, len) == want;
  return CZ_OK;
}

/* Locks the arbiter value(s) of vals and tells whether a row tx sees holds
 * one; for the one arbiter, fetches that row (locked too) into row r of
 * ex. */
static int cf_lock_value(tbl_conflict_t *c, const datum_t *vals, batch_t *ex, int r, bool *taken,
                         arena_t *a, err_t *e)
{
  const cat_table_t *t = c->cf_t;
  *taken = false;
  for (int i = 0; i < t->ct_nindexes && !*taken; i++) {
    const cat_index_t *ix = t->ct_indexes[i];
    if (c->cf_index >= 0 ? i != c->cf_index
                         : ix->ci_hidden || !(ix->ci_unique || ix->ci_primary) || ix->ci_nkeys == 0)
      continue;
    uint8_t v[BT_MAX_KEY], *pk = arena_alloc(a, BT_MAX_KEY);
    size_t vl = 0, pk_len = 0;
    bool has_null;
    if (cf_value(t, ix, vals, v, &vl, &has_null, e) != CZ_OK)
      return CZ_ERR;
    if (has_null)
      continue;
    if (i == 0) {
      /* lock and look in one descent: most proposals that get here are new */
      uint8_t row[BT_MAX_ROW];
      size_t len;
      bool there, changed;
      if (txn_lock_read(c->cf_tx, ix->ci_tree, v, vl, row, BT_MAX_ROW, &len, &there, &changed,
                        e) != CZ_OK)
        return CZ_ERR;
      if (!there)
        continue;
      memcpy(pk, v, pk_len = vl);
    } else {
      if (txn_lock(c->cf_tx, ix->ci_tree, v, vl, NULL, NULL, e) != CZ_OK)
        return CZ_ERR;
      bt_cursor_t *cur;
      bool hit;
      if (bt_cursor_open(ix->ci_tree, &cur, e) != CZ_OK)
        return CZ_ERR;
      int rc = tb_index_find(c->cf_tx, cur, ix, v, vl, pk, &pk_len, &hit, e);
      bt_cursor_close(cur);
      if (rc != CZ_OK)
        return CZ_ERR;
      if (!hit)
        continue;
      /* the row: nobody can move it off the value while we hold the value */
      if (txn_lock(c->cf_tx, t->ct_indexes[0]->ci_tree, pk, pk_len, NULL, NULL, e) != CZ_OK)
        return CZ_ERR;
    }
    if (cf_snapshot_check(c, pk, pk_len, e) != CZ_OK)
      return CZ_ERR;
    bool found = false;
    int at = r;
    if (cf_fetch(c, &pk, &pk_len, 1, &at, ex, &found, a, e) != CZ_OK)
      return CZ_ERR;
    *taken = found;
  }
  return CZ_OK;
}

static int cf_note_written(tbl_conflict_t *c, const datum_t *vals, err_t *e)
{
  if (!c->cf_eval)
    return CZ_OK;
  uint8_t v[BT_MAX_KEY];
  size_t vl = 0;
  bool has_null;
  if (cf_value(c->cf_t, c->cf_t->ct_indexes[c->cf_index], vals, v, &vl, &has_null, e) != CZ_OK)
    return CZ_ERR;
  if (!has_null)
    seen_add(c, v, vl, hash64(v, vl, 0));
  return CZ_OK;
}

static int cf_twice(err_t *e)
{
  return err_set(e, SQLSTATE_CARDINALITY,
                 "ON CONFLICT DO UPDATE command cannot affect row a second time");
}

/* Updates the row of ex row r to newv row r (the caller holds its lock). */
static int cf_update(tbl_conflict_t *c, const batch_t *ex, batch_t *newv, int r, datum_t *vals,
                     err_t *e)
{
  str_t loc = ex->b_cols[c->cf_t->ct_ncols].v_str[r];
  cf_row(c->cf_t, newv, r, vals);
  if (tbl_update_row_cols(c->cf_tx, c->cf_t, (const uint8_t *)loc.s_ptr, loc.s_len, vals,
                          c->cf_set, e) != CZ_OK)
    return CZ_ERR;
  return cf_note_written(c, vals, e);
}

/* The slow way for proposal r: lock the value, read the row holding it as
 * it is now, evaluate and update it, or insert when there is none. */
static int cf_settle_locked(tbl_conflict_t *c, const batch_t *b, int r, batch_t *ex,
                            batch_t *newv, uint8_t *act, bool *ok, datum_t *vals, arena_t *a,
                            err_t *e)
{
  bool taken;
  cf_row(c->cf_t, b, r, vals);
  if (cf_lock_value(c, vals, ex, r, &taken, a, e) != CZ_OK)
    return CZ_ERR;
  if (!taken) {
    if (tbl_insert_row(c->cf_tx, c->cf_t, vals, e) != CZ_OK)
      return CZ_ERR;
    cf_copy_row(b, r, newv, r, c->cf_t->ct_ncols);
    act[r] = TBL_CF_INSERTED;
    return cf_note_written(c, vals, e);
  }
  act[r] = TBL_CF_SKIPPED;
  if (!c->cf_eval)
    return CZ_OK;
  if (c->cf_eval(c->cf_ctx, ex, b, &r, 1, newv, ok, e) != CZ_OK)  /* (ok[r]: by row) */
    return CZ_ERR;
  if (!ok[r])
    return CZ_OK;
  act[r] = TBL_CF_UPDATED;
  return cf_update(c, ex, newv, r, vals, e);
}

int tbl_conflict_open(txn_t *tx, const cat_table_t *t, int index, tbl_cf_eval_t eval, void *ctx,
                      const bool *set, arena_t *a, tbl_conflict_t **out, err_t *e)
{
  if (index >= t->ct_nindexes || (index < 0 && eval) ||
      (index >= 0 && !(t->ct_indexes[index]->ci_unique || t->ct_indexes[index]->ci_primary)) ||
      (index >= 0 && t->ct_indexes[index]->ci_hidden))
    return err_set(e, SQLSTATE_INTERNAL, "no unique index %d on %s for ON CONFLICT", index,
                   t->ct_name);
  tbl_conflict_t *c = arena_zalloc(a, sizeof *c);
  c->cf_tx = tx;
  c->cf_t = t;
  c->cf_index = index;
  c->cf_eval = eval;
  c->cf_ctx = ctx;
  c->cf_set = set;
  c->cf_a = a;
  *out = c;
  return CZ_OK;
}

int tbl_conflict_apply(tbl_conflict_t *c, const batch_t *b, const int *sel, int n, uint8_t *act,
                       batch_t **newv_out, arena_t *a, err_t *e)
{
  const cat_table_t *t = c->cf_t;
  int nc = t->ct_ncols, cap = b->b_n > 0 ? b->b_n : 1;
  ty_t *types = arena_alloc(a, sizeof *types * (size_t)(nc + 2));
  for (int i = 0; i < nc; i++)
    types[i] = t->ct_cols[i].cc_type;
  types[nc] = ty_plain(TY_BYTEA);
  batch_t *ex = batch_create(a, nc + 1, types, cap, e);
  batch_t *newv = ex ? batch_create(a, nc, types, cap, e) : NULL;
  if (!newv)
    return CZ_ERR;
  ex->b_n = newv->b_n = b->b_n;
  bool *found = arena_zalloc(a, (size_t)cap);
  bool *ok = arena_zalloc(a, (size_t)cap);
  datum_t *vals = arena_alloc(a, sizeof *vals * (size_t)(nc + 1));
  *newv_out = newv;
  if (cf_probe(c, b, sel, n, ex, found, a, e) != CZ_OK)
    return CZ_ERR;
  /* DO UPDATE's SET and WHERE for every conflicting row at once */
  if (c->cf_eval) {
    int *hit = arena_alloc(a, sizeof *hit * (size_t)(n + 1));
    int m = 0;
    for (int j = 0; j < n; j++) {
      int r = sel ? sel[j] : j;
      if (found[r])
        hit[m++] = r;
    }
    if (m > 0 && c->cf_eval(c->cf_ctx, ex, b, hit, m, newv, ok, e) != CZ_OK)
      return CZ_ERR;
  }
  for (int j = 0; j < n; j++) {
    int r = sel ? sel[j] : j;
    act[r] = TBL_CF_SKIPPED;
    if (c->cf_eval) {
      uint8_t v[BT_MAX_KEY];
      size_t vl = 0;
      bool has_null;
      cf_row(t, b, r, vals);
      if (cf_value(t, t->ct_indexes[c->cf_index], vals, v, &vl, &has_null, e) != CZ_OK)
        return CZ_ERR;
      if (!has_null && seen_find(c, v, vl, hash64(v, vl, 0)))
        return cf_twice(e);
    }
    if (found[r] && cf_snapshot_stale(c, ex, r)) {
      if (cf_settle_locked(c, b, r, ex, newv, act, ok, vals, a, e) != CZ_OK)
        return CZ_ERR;
      continue;
    }
    if (found[r]) {
      if (!c->cf_eval)
        continue;  /* DO NOTHING: a row is there */
      bool current;
      if (cf_lock_current(c, ex, r, &current, e) != CZ_OK)
        return CZ_ERR;
      if (!current) {
        /* changed or gone since the probe: settle it as it is now */
        if (cf_settle_locked(c, b, r, ex, newv, act, ok, vals, a, e) != CZ_OK)
          return CZ_ERR;
        continue;
      }
      if (!ok[r])
        continue;
      act[r] = TBL_CF_UPDATED;
      if (cf_update(c, ex, newv, r, vals, e) != CZ_OK)
        return CZ_ERR;
      continue;
    }
    if (cf_settle_locked(c, b, r, ex, newv, act, ok, vals, a, e) != CZ_OK)
      return CZ_ERR;
  }
  return CZ_OK;
}
