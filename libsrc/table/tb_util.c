/* tb_util — keys of a table's rows and index entries, vector access, the
 * row-version hash of locators, the visible entry of an index value.
 */
#include <string.h>

#include "table/tb_int.h"

static const ty_t tb_rowid_type = { .t_id = TY_INT8, .t_len = -1, .t_prec = -1, .t_scale = -1 };

const ty_t *tb_pk_types(const cat_table_t *t, int *n)
{
  if (t->ct_npk == 0) {
    *n = 1;
    return &tb_rowid_type;
  }
  *n = t->ct_indexes[0]->ci_nkeys;
  return t->ct_indexes[0]->ci_key_types;
}

int tb_pk_encode(const cat_table_t *t, const datum_t *vals, int64_t rowid, uint8_t *out,
                 size_t cap, size_t *len, err_t *e)
{
  if (t->ct_npk == 0) {
    datum_t d = { .d_null = false, .d_i64 = rowid };
    return tbl_key_encode(&tb_rowid_type, &d, 1, out, cap, len, e);
  }
  size_t off = 0;
  for (int i = 0; i < t->ct_npk; i++) {
    int c = t->ct_pk[i];
    size_t w = tbl_key_put(out + CZ_MIN(off, cap), off < cap ? cap - off : 0, t->ct_cols[c].cc_type,
                           &vals[c]);
    off += w;
  }
  *len = off;
  if (off > cap)
    return err_set(e, SQLSTATE_PROGRAM_LIMIT, "index row size %zu exceeds maximum %zu for index \"%s\"",
                   off, cap, t->ct_indexes[0]->ci_name);
  return CZ_OK;
}

int tb_index_entry(const cat_index_t *ix, const datum_t *vals, const uint8_t *pk, size_t pk_len,
                   uint8_t *key, size_t *key_len, size_t *prefix_len, bool *has_null,
                   uint8_t *val, size_t *val_len, err_t *e)
{
  const cat_table_t *t = ix->ci_table;
  size_t off = 0;
  *has_null = false;
  for (int i = 0; i < ix->ci_nkeys; i++) {
    int c = ix->ci_keys[i];
    if (vals[c].d_null && !ix->ci_nulls_nd)
      *has_null = true;  /* NULLS NOT DISTINCT: a NULL conflicts like a value */
    off += tbl_key_put(key + CZ_MIN(off, BT_MAX_KEY), off < BT_MAX_KEY ? BT_MAX_KEY - off : 0,
                       t->ct_cols[c].cc_type, &vals[c]);
  }
  *prefix_len = off;
  if (off + pk_len > BT_MAX_KEY)
    return err_set(e, SQLSTATE_PROGRAM_LIMIT, "index row size %zu exceeds maximum %d for index \"%s\"",
                   off + pk_len, BT_MAX_KEY, ix->ci_name);
  memcpy(key + off, pk, pk_len);
  *key_len = off + pk_len;
  *val_len = 0;
  if (ix->ci_ninclude == 0 && ix->ci_layout == CAT_LAYOUT_COLUMN && ix->ci_no > 0) {
    /* a column index's value is a column row, of no columns here */
    val[0] = val[1] = 0;
    *val_len = 2;
    return CZ_OK;
  }
  if (ix->ci_ninclude == 0)
    return CZ_OK;
  ty_t types[CAT_MAX_INDEX_KEYS];
  datum_t dv[CAT_MAX_INDEX_KEYS];
  int ni = CZ_MIN(ix->ci_ninclude, CAT_MAX_INDEX_KEYS);
  for (int i = 0; i < ni; i++) {
    types[i] = t->ct_cols[ix->ci_include[i]].cc_type;
    dv[i] = vals[ix->ci_include[i]];
  }
  /* INCLUDE values stay in the entry (never out of line): the row format,
   * or a column row in a column index (no marks: nothing is referenced) */
  if (ix->ci_layout == CAT_LAYOUT_COLUMN) {
    ty_phys_t kinds[CAT_MAX_INDEX_KEYS];
    for (int i = 0; i < ni; i++)
      kinds[i] = ty_phys(types[i].t_id);
    size_t need = bt_crow_size(kinds, dv, ni);
    if (need > BT_MAX_ROW - *key_len)
      return err_set(e, SQLSTATE_PROGRAM_LIMIT,
                     "index row size %zu exceeds maximum %d for index \"%s\"", *key_len + need,
                     BT_MAX_ROW, ix->ci_name);
    return bt_crow_build(kinds, dv, ni, val, BT_MAX_ROW - *key_len, val_len, e);
  }
  if (tbl_row_encode(types, ni, dv, val, BT_MAX_ROW - *key_len, val_len, e) != CZ_OK)
    return err_set(e, SQLSTATE_PROGRAM_LIMIT, "index row size %zu exceeds maximum %d for index \"%s\"",
                   *key_len + *val_len, BT_MAX_ROW, ix->ci_name);
  return CZ_OK;
}

void tb_col_types(const cat_table_t *t, ty_t *out)
{
  for (int i = 0; i < t->ct_ncols; i++)
    out[i] = t->ct_cols[i].cc_type;
}

uint64_t tb_row_hash(const void *val, size_t len)
{
  return hash64(val, len, 0x7b6c0a1d);
}

bool tb_index_covers(const cat_index_t *ix, const cat_table_t *t, const int *cols, int ncols)
{
  for (int k = 0; k < ncols; k++) {
    int c = cols[k];
    bool in = false;
    /* a key gives back only what its encoding keeps (tbl_key_exact) */
    bool exact = tbl_key_exact(t->ct_types[c]);
    for (int i = 0; i < ix->ci_nkeys && !in; i++)
      in = ix->ci_keys[i] == c && exact;
    for (int i = 0; i < ix->ci_ninclude && !in; i++)
      in = ix->ci_include[i] == c;
    for (int i = 0; i < t->ct_npk && !in; i++)
      in = t->ct_pk[i] == c && exact;
    if (!in)
      return false;
  }
  return true;
}

int tb_index_find(txn_t *tx, bt_cursor_t *cur, const cat_index_t *ix, const uint8_t *p, size_t plen,
                  uint8_t *pk, size_t *pk_len, bool *found, err_t *e)
{
  *found = false;
  int rc = bt_seek(cur, p, plen, BT_FORWARD, e);
  while (rc == CZ_OK) {
    const void *k, *v;
    size_t kl, vl;
    rc = bt_next(cur, &k, &kl, &v, &vl, e);
    if (rc != CZ_OK || kl < plen || memcmp(k, p, plen) != 0)
      break;
    if (txn_read_version(tx, ix->ci_dtree, k, kl, txn_arena(tx), &v, &vl) != TXN_VIS_ABSENT) {
      if (pk) {
        *pk_len = kl - plen;
        memcpy(pk, (const uint8_t *)k + plen, *pk_len);
      }
      *found = true;
      break;
    }
  }
  bt_cursor_release(cur);
  return rc == CZ_ERR ? CZ_ERR : CZ_OK;
}
