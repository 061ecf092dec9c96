/* tb_long — out-of-line (long) values: string values too long for a row
 * are stored in the table's long-values tree in chunks, and the row holds
 * a reference (value id, total length).
 *
 * Design notes (table/README.md, "Long values"):
 * - Chunk entries: key = value id (8 bytes BE) ‖ chunk number (4 bytes
 *   BE), value = up to TB_LONG_CHUNK bytes; a value's chunks are
 *   consecutive keys, read with one cursor.
 * - Writes go through the row's transaction (txn_insert / txn_delete), so
 *   the log, rollback and recovery cover chunks exactly as rows.
 * - Ids come from cat_next_long_id: never reused within a run, so a
 *   reference a reader holds can never name another value's chunks. A
 *   replaced or deleted value's chunks are deleted by the same transaction;
 *   txn/ applies those deletes at commit, so until then readers holding
 *   the pre-image find them. A reader that comes after the commit finds a
 *   chunk missing and reads the row again (tb_scan.c).
 * - An UPDATE that passes an unchanged long value back (the executor
 *   always passes whole rows) keeps its reference: the new value is
 *   compared with the stored chunks (a read) instead of written again.
 */
#include <stdatomic.h>
#include <string.h>

#include "table/tb_int.h"

static _Atomic uint64_t tb_stat_stored, tb_stat_fetched, tb_stat_chunks, tb_stat_rereads;

void tb_long_note_reread(void)
{
  atomic_fetch_add(&tb_stat_rereads, 1);
}

void tbl_get_stats(tbl_stats_t *out)
{
  out->ts_long_stored = atomic_load(&tb_stat_stored);
  out->ts_long_fetched = atomic_load(&tb_stat_fetched);
  out->ts_long_chunks = atomic_load(&tb_stat_chunks);
  out->ts_long_rereads = atomic_load(&tb_stat_rereads);
}

static void tb_chunk_key(uint8_t *k, uint64_t id, uint32_t no)
{
  for (int i = 0; i < 8; i++)
    k[i] = (uint8_t)(id >> (56 - 8 * i));
  for (int i = 0; i < 4; i++)
    k[8 + i] = (uint8_t)(no >> (24 - 8 * i));
}

static uint64_t tb_chunk_id(const uint8_t *k)
{
  uint64_t id = 0;
  for (int i = 0; i < 8; i++)
    id = (id << 8) | k[i];
  return id;
}

static uint32_t tb_chunk_no(const uint8_t *k)
{
  return (uint32_t)k[8] << 24 | (uint32_t)k[9] << 16 | (uint32_t)k[10] << 8 | k[11];
}

static uint32_t tb_nchunks(uint64_t len)
{
  return (uint32_t)((len + TB_LONG_CHUNK - 1) / TB_LONG_CHUNK);
}

/* ---- reading ------------------------------------------------------------- */

typedef void (*tb_chunk_fn)(void *ctx, uint64_t off, const void *p, size_t n);

/* Calls fn for each chunk of r in order, as tx sees it at cmd. *missing
 * when the chunks do not add up to the value (a deleter committed). */
static int tb_long_walk(const txn_t *tx, uint32_t cmd, const cat_table_t *t, const tb_ref_t *r,
                        arena_t *a, tb_chunk_fn fn, void *ctx, bool *missing, err_t *e)
{
  *missing = false;
  uint8_t key[TB_LONG_KEY];
  tb_chunk_key(key, r->lr_id, 0);
  bt_cursor_t *c;
  if (bt_cursor_open(t->ct_long_tree, &c, e) != CZ_OK)
    return CZ_ERR;
  int rc = bt_seek(c, key, sizeof key, BT_FORWARD, e);
  uint64_t off = 0;
  uint32_t no = 0;
  while (rc == CZ_OK && off < r->lr_len) {
    const void *k, *v;
    size_t kl, vl;
    rc = bt_next(c, &k, &kl, &v, &vl, e);
    if (rc == BT_END) {
      rc = CZ_OK;
      break;
    }
    if (rc != CZ_OK)
      break;
    if (kl != TB_LONG_KEY || tb_chunk_id(k) != r->lr_id || tb_chunk_no(k) != no)
      break;
    if (txn_read_version_at(tx, cmd, t->ct_long_dtree, k, kl, a, &v, &vl) == TXN_VIS_ABSENT)
      break;
    if (vl == 0 || off + vl > r->lr_len)
      break;
    fn(ctx, off, v, vl);
    atomic_fetch_add(&tb_stat_chunks, 1);
    off += vl;
    no++;
  }
  bt_cursor_close(c);
  if (rc != CZ_OK)
    return CZ_ERR;
  *missing = off != r->lr_len;
  return CZ_OK;
}

static void tb_copy_chunk(void *ctx, uint64_t off, const void *p, size_t n)
{
  memcpy((char *)ctx + off, p, n);
}

int tb_long_fetch(const txn_t *tx, uint32_t cmd, const cat_table_t *t, const tb_ref_t *r,
                  arena_t *a, str_t *out, bool *missing, err_t *e)
{
  if (r->lr_len > TB_LONG_MAX)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "out-of-line value of %s has length %llu", t->ct_name,
                   (unsigned long long)r->lr_len);
  char *buf = arena_alloc(a, r->lr_len ? r->lr_len : 1);
  if (tb_long_walk(tx, cmd, t, r, a, tb_copy_chunk, buf, missing, e) != CZ_OK)
    return CZ_ERR;
  out->s_ptr = buf;
  out->s_len = (uint32_t)r->lr_len;
  if (!*missing)
    atomic_fetch_add(&tb_stat_fetched, 1);
  return CZ_OK;
}

typedef struct tb_cmp_s {
  const char *c_val;
  bool c_eq;
} tb_cmp_t;

static void tb_cmp_chunk(void *ctx, uint64_t off, const void *p, size_t n)
{
  tb_cmp_t *c = ctx;
  if (c->c_eq && memcmp(c->c_val + off, p, n) != 0)
    c->c_eq = false;
}

/* Whether the stored value r equals s (same length checked by the caller). */
static int tb_long_equal(txn_t *tx, const cat_table_t *t, const tb_ref_t *r, const str_t *s,
                         bool *eq, err_t *e)
{
  tb_cmp_t c = { s->s_ptr, true };
  bool missing;
  if (tb_long_walk(tx, 0, t, r, txn_arena(tx), tb_cmp_chunk, &c, &missing, e) != CZ_OK)
    return CZ_ERR;
  if (missing)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "out-of-line value %llu of %s lacks chunks",
                   (unsigned long long)r->lr_id, t->ct_name);
  *eq = c.c_eq;
  return CZ_OK;
}

int tb_row_decode_full(txn_t *tx, const cat_table_t *t, const uint8_t *p, size_t len,
                       const bool *need, datum_t *out, arena_t **tmp, err_t *e)
{
  int n = t->ct_ncols;
  if (!tb_row_has_refs(p, len)) {
    int stack[64];
    int *cols = n > 64 ? arena_alloc(txn_arena(tx), sizeof(int) * (size_t)n) : stack;
    for (int i = 0; i < n; i++)
      cols[i] = i;
    return tbl_row_decode(t->ct_types, n, p, len, cols, n, NULL, out, e);
  }
  if (!*tmp)
    *tmp = arena_create(NULL, "tb_row_decode_full");
  arena_t *a = *tmp;
  int *cols = arena_alloc(a, sizeof(int) * (size_t)n);
  tb_ref_t *refs = arena_alloc(a, sizeof(tb_ref_t) * (size_t)n);
  for (int i = 0; i < n; i++)
    cols[i] = i;
  if (tb_row_decode_refs(t->ct_types, n, p, len, cols, n, NULL, out, refs, e) != CZ_OK)
    return CZ_ERR;
  for (int i = 0; i < n; i++) {
    if (!refs[i].lr_on || (need && !need[i]))
      continue;
    bool missing;
    if (tb_long_fetch(tx, 0, t, &refs[i], a, &out[i].d_str, &missing, e) != CZ_OK)
      return CZ_ERR;
    if (missing)
      return err_set(e, SQLSTATE_DATA_CORRUPTED, "out-of-line value %llu of %s lacks chunks",
                     (unsigned long long)refs[i].lr_id, t->ct_name);
  }
  return CZ_OK;
}

/* ---- writing ------------------------------------------------------------- */

static int tb_long_write(txn_t *tx, const cat_table_t *t, const str_t *s, tb_ref_t *r, err_t *e)
{
  if (!t->ct_long_tree)
    return err_set(e, SQLSTATE_PROGRAM_LIMIT, "table %s cannot store out-of-line values", t->ct_name);
  uint64_t id;
  if (cat_next_long_id(t, &id, e) != CZ_OK)
    return CZ_ERR;
  r->lr_on = true;
  r->lr_id = id;
  r->lr_len = s->s_len;
  uint32_t n = tb_nchunks(s->s_len);
  for (uint32_t no = 0; no < n; no++) {
    uint8_t key[TB_LONG_KEY];
    tb_chunk_key(key, id, no);
    size_t off = (size_t)no * TB_LONG_CHUNK;
    size_t cl = CZ_MIN((size_t)TB_LONG_CHUNK, (size_t)s->s_len - off);
    if (txn_insert(tx, t->ct_long_tree, key, sizeof key, s->s_ptr + off, cl, e) != CZ_OK)
      return err_prefix(e, "store an out-of-line value of %s", t->ct_name);
  }
  atomic_fetch_add(&tb_stat_stored, 1);
  return CZ_OK;
}

static int tb_long_delete(txn_t *tx, const cat_table_t *t, const tb_ref_t *r, err_t *e)
{
  uint32_t n = tb_nchunks(r->lr_len);
  for (uint32_t no = 0; no < n; no++) {
    uint8_t key[TB_LONG_KEY];
    tb_chunk_key(key, r->lr_id, no);
    int rc = txn_delete(tx, t->ct_long_tree, key, sizeof key, NULL, 0, e);
    if (rc == BT_NOT_FOUND)
      return err_set(e, SQLSTATE_DATA_CORRUPTED, "out-of-line value %llu of %s lacks chunk %u",
                     (unsigned long long)r->lr_id, t->ct_name, (unsigned)no);
    if (rc != CZ_OK)
      return CZ_ERR;
  }
  return CZ_OK;
}

/* The stored size of the row with the columns refs marks as references
 * (a column table's: its column row). */
static size_t tb_row_size(const cat_table_t *t, const datum_t *vals, const tb_ref_t *refs)
{
  if (tb_is_column(t))
    return tb_col_size(t, vals, refs);
  size_t len;
  err_t scratch;
  uint8_t none[1];
  tb_row_encode_refs(t->ct_types, t->ct_ncols, vals, refs, none, 0, &len, &scratch);
  return len;
}

static bool tb_is_str(const cat_table_t *t, const datum_t *vals, int i)
{
  return !vals[i].d_null && ty_phys(t->ct_types[i].t_id) == TP_STR;
}

int tb_row_store(txn_t *tx, const cat_table_t *t, const datum_t *vals, const bool *set,
                 const uint8_t *old, size_t old_len, uint8_t *out, size_t cap, size_t *len, err_t *e)
{
  /* A column table follows the same rule (its column row holds the
   * references, tb_col.c); old is in the row format (tb_col_row). */
  bool col = tb_is_column(t);
  int n = t->ct_ncols;
  bool any = false;
  for (int i = 0; i < n && !any; i++)
    any = tb_is_str(t, vals, i) && vals[i].d_str.s_len > TB_LONG_MIN;
  bool old_refs = old && tb_row_has_refs(old, old_len);
  if (!any && !old_refs)
    return col ? tb_col_encode(t, vals, NULL, out, cap, len, e)
               : tbl_row_encode(t->ct_types, n, vals, out, cap, len, e);

  tb_ref_t stack_refs[64], stack_old[64];
  datum_t stack_od[64];
  int stack_cols[64];
  tb_ref_t *refs = stack_refs, *orefs = stack_old;
  datum_t *od = stack_od;
  int *cols = stack_cols;
  if (n > 64) {
    refs = arena_alloc(txn_arena(tx), sizeof *refs * (size_t)n);
    orefs = arena_alloc(txn_arena(tx), sizeof *orefs * (size_t)n);
    od = arena_alloc(txn_arena(tx), sizeof *od * (size_t)n);
    cols = arena_alloc(txn_arena(tx), sizeof *cols * (size_t)n);
  }
  memset(refs, 0, sizeof *refs * (size_t)n);
  memset(orefs, 0, sizeof *orefs * (size_t)n);
  if (old_refs) {
    for (int i = 0; i < n; i++)
      cols[i] = i;
    if (tb_row_decode_refs(t->ct_types, n, old, old_len, cols, n, NULL, od, orefs, e) != CZ_OK)
      return CZ_ERR;
  }
  /* 0. Columns the caller does not set keep their stored reference as it
   * is (vals holds no value for them). */
  bool marked = false;
  for (int i = 0; set && i < n; i++)
    if (!set[i] && orefs[i].lr_on) {
      refs[i] = orefs[i];
      orefs[i].lr_on = false;
      marked = true;
    }
  /* 1. Values above the threshold always go out of line. */
  for (int i = 0; i < n; i++) {
    if (refs[i].lr_on || !tb_is_str(t, vals, i) || vals[i].d_str.s_len <= TB_LONG_THRESHOLD)
      continue;
    if (vals[i].d_str.s_len > TB_LONG_MAX)
      return err_set(e, SQLSTATE_PROGRAM_LIMIT, "value of column \"%s\" is %u bytes, maximum is %u",
                     t->ct_cols[i].cc_name, (unsigned)vals[i].d_str.s_len, TB_LONG_MAX);
    refs[i].lr_on = true;
    refs[i].lr_len = vals[i].d_str.s_len;
    marked = true;
  }
  /* Nothing out of line, nothing to replace: the plain row when it fits
   * (the common case costs one encode). */
  bool replacing = false;
  for (int i = 0; i < n && !replacing; i++)
    replacing = orefs[i].lr_on;
  if (!marked && !replacing) {
    err_t scratch;
    if (col ? tb_col_encode(t, vals, NULL, out, cap, len, &scratch) == CZ_OK
            : tbl_row_encode(t->ct_types, n, vals, out, cap, len, &scratch) == CZ_OK)
      return CZ_OK;
  }
  /* 2. Then the largest inline strings while the row does not fit. */
  while (tb_row_size(t, vals, refs) > cap) {
    int best = -1;
    for (int i = 0; i < n; i++)
      if (tb_is_str(t, vals, i) && !refs[i].lr_on && vals[i].d_str.s_len >= TB_LONG_MIN &&
          (best < 0 || vals[i].d_str.s_len > vals[best].d_str.s_len))
        best = i;
    if (best < 0)
      break; /* the encode below reports 54000 */
    refs[best].lr_on = true;
    refs[best].lr_len = vals[best].d_str.s_len;
  }
  /* 3. Values equal to the stored ones keep their reference; the others
   * are written. */
  for (int i = 0; i < n; i++) {
    if (!refs[i].lr_on || refs[i].lr_id != 0)
      continue; /* inline, or a reference kept in step 0 */
    if (orefs[i].lr_on && orefs[i].lr_len == vals[i].d_str.s_len) {
      bool eq = false;
      if (tb_long_equal(tx, t, &orefs[i], &vals[i].d_str, &eq, e) != CZ_OK)
        return CZ_ERR;
      if (eq) {
        refs[i] = orefs[i];
        orefs[i].lr_on = false; /* kept: not deleted below */
        continue;
      }
    }
    if (tb_long_write(tx, t, &vals[i].d_str, &refs[i], e) != CZ_OK)
      return CZ_ERR;
  }
  if (col ? tb_col_encode(t, vals, refs, out, cap, len, e) != CZ_OK
          : tb_row_encode_refs(t->ct_types, n, vals, refs, out, cap, len, e) != CZ_OK)
    return CZ_ERR;
  /* 4. The replaced values' chunks go (at commit, as txn/ applies deletes). */
  for (int i = 0; i < n; i++)
    if (orefs[i].lr_on && tb_long_delete(tx, t, &orefs[i], e) != CZ_OK)
      return CZ_ERR;
  return CZ_OK;
}

int tb_row_drop_longs(txn_t *tx, const cat_table_t *t, const uint8_t *row, size_t len, err_t *e)
{
  if (!tb_row_has_refs(row, len))
    return CZ_OK;
  int n = t->ct_ncols;
  arena_t *a = arena_create(NULL, "tb_row_drop_longs");
  int *cols = arena_alloc(a, sizeof(int) * (size_t)n);
  datum_t *d = arena_alloc(a, sizeof(datum_t) * (size_t)n);
  tb_ref_t *refs = arena_alloc(a, sizeof(tb_ref_t) * (size_t)n);
  for (int i = 0; i < n; i++)
    cols[i] = i;
  int rc = tb_row_decode_refs(t->ct_types, n, row, len, cols, n, NULL, d, refs, e);
  for (int i = 0; i < n && rc == CZ_OK; i++)
    if (refs[i].lr_on)
      rc = tb_long_delete(tx, t, &refs[i], e);
  arena_destroy(a);
  return rc;
}
