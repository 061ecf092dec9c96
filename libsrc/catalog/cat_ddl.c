/* cat_ddl — transactional DDL: the DDL lock, system table writes through
 * the caller's transaction, the pending snapshot and its publication at
 * commit.
 *
 * Design notes (catalog/README.md, "DDL"):
 * - cat_ddl_begin takes the DDL lock: a row lock on the name "ddl" in
 *   sys.meta, held until the transaction ends. A second DDL transaction
 *   waits there (deadlocks with row locks are detected by txn/).
 * - After its writes each DDL function rebuilds the transaction's pending
 *   snapshot from the system tables as the transaction sees them.
 * - At the end (txn_on_end, before the locks are released) a commit
 *   publishes the pending snapshot, a rollback drops it. The next DDL
 *   transaction takes the lock only after that, so it builds on the
 *   published state.
 * - A DDL function that fails may leave system table writes behind: the
 *   caller rolls the transaction back (as for any failed statement).
 */
#include <stdio.h>
#include <string.h>

#include "catalog/cat_int.h"

static void cat_on_end(void *ctx, txn_t *tx, bool committed)
{
  (void)tx;
  cat_t *c = ctx;
  cat_snapshot_t *p = c->c_pending;
  c->c_pending = NULL;
  if (committed && p) {
    mutex_lock(&c->c_mx);
    cat_snapshot_t *old = c->c_cur;
    c->c_cur = p;
    atomic_store(&c->c_version, p->cs_version);
    mutex_unlock(&c->c_mx);
    cat_snapshot_release(old);
  } else {
    cat_snapshot_release(p);
  }
  atomic_store(&c->c_ddl_tx, NULL);
}

/* ROLLBACK TO a savepoint undid system table writes: the pending snapshot
 * is rebuilt from the tables as the transaction now sees them (the state
 * at the mark). The DDL lock stays (txn keeps locks taken after a mark). */
static int cat_on_rollback_to(void *ctx, txn_t *tx, err_t *e)
{
  cat_t *c = ctx;
  if (atomic_load(&c->c_ddl_tx) != tx || !c->c_pending)
    return CZ_OK;
  return cat_ddl_end(c, tx, e);
}

int cat_ddl_begin(cat_t *c, txn_t *tx, const cat_snapshot_t **snap, err_t *e)
{
  /* A bulk transaction takes no locks (no DDL lock either) and cannot
   * roll back: DDL is done in an ordinary transaction before the load. */
  if (txn_is_bulk(tx))
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED, "DDL is not supported in a bulk-load transaction");
  if (atomic_load(&c->c_ddl_tx) != tx) {
    if (txn_lock(tx, c->c_sys[CAT_SYS_META], "ddl", 3, NULL, NULL, e) != CZ_OK)
      return CZ_ERR;
    /* c_ddl_tx says tx has it until it ends: a ROLLBACK TO must not drop it */
    txn_lock_hold(tx, c->c_sys[CAT_SYS_META], "ddl", 3);
    atomic_store(&c->c_ddl_tx, tx);
    txn_on_end(tx, cat_on_end, c);
    txn_on_rollback_to(tx, cat_on_rollback_to, c);
  }
  /* c_cur cannot change while tx holds the DDL lock. */
  *snap = c->c_pending ? c->c_pending : c->c_cur;
  return CZ_OK;
}

int cat_lock_ddl(cat_t *c, txn_t *tx, err_t *e)
{
  const cat_snapshot_t *s;
  return cat_ddl_begin(c, tx, &s, e);
}

int cat_ddl_end(cat_t *c, txn_t *tx, err_t *e)
{
  cat_snapshot_t *s;
  if (cat_load(c, tx, c->c_next_version++, &s, e) != CZ_OK)
    return CZ_ERR;
  cat_snapshot_t *old = c->c_pending;
  c->c_pending = s;
  cat_snapshot_release(old);
  return CZ_OK;
}

int cat_next_oid(cat_t *c, txn_t *tx, cat_oid_t *out, err_t *e)
{
  uint8_t v[16];
  size_t vl = 0;
  bool found;
  bt_tree_t *meta = c->c_sys[CAT_SYS_META];
  if (txn_lock_read(tx, meta, "next_oid", 8, v, sizeof v, &vl, &found, NULL, e) != CZ_OK)
    return CZ_ERR;
  if (!found || vl != 4)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "the catalog has no OID counter");
  cat_rbuf_t r = { v, vl, 0, false };
  *out = cat_r_u32(&r);
  uint8_t nv[4];
  cat_wbuf_t w = { nv, 0, sizeof nv, false };
  cat_w_u32(&w, *out + 1);
  return cat_sys_put(c, tx, CAT_SYS_META, (const uint8_t *)"next_oid", 8, &w, true, e);
}

int cat_sys_put(cat_t *c, txn_t *tx, int sys, const uint8_t *key, size_t kl, const cat_wbuf_t *w,
                bool replace, err_t *e)
{
  if (w->w_over || kl + w->w_len > BT_MAX_ROW)
    return err_set(e, SQLSTATE_PROGRAM_LIMIT, "catalog record too long (%zu bytes)", w->w_len);
  int rc = replace ? txn_update(tx, c->c_sys[sys], key, kl, w->w_p, w->w_len, e)
                   : txn_insert(tx, c->c_sys[sys], key, kl, w->w_p, w->w_len, e);
  if (rc == BT_NOT_FOUND)
    rc = txn_insert(tx, c->c_sys[sys], key, kl, w->w_p, w->w_len, e);
  return rc;
}

int cat_sys_del(cat_t *c, txn_t *tx, int sys, const uint8_t *key, size_t kl, err_t *e)
{
  int rc = txn_delete(tx, c->c_sys[sys], key, kl, NULL, 0, e);
  return rc == BT_NOT_FOUND ? CZ_OK : rc;
}

/* ---- tables -------------------------------------------------------------- */

int cat_name_check(const char *what, const char *name, err_t *e)
{
  if (!name || !*name)
    return err_set(e, SQLSTATE_INVALID_NAME, "zero-length %s name", what);
  if (strlen(name) > CAT_MAX_NAME)
    return err_set(e, SQLSTATE_NAME_TOO_LONG, "%s name \"%s\" is too long (at most %d bytes)", what, name, CAT_MAX_NAME);
  return CZ_OK;
}

static const cat_schema_t *cat_schema_of(const cat_snapshot_t *s, const char *name, err_t *e)
{
  const cat_schema_t *sch = cat_find_schema(s, name ? name : "public");
  if (!sch)
    err_set(e, SQLSTATE_INVALID_SCHEMA, "schema \"%s\" does not exist", name);
  return sch;
}

int cat_rel_free(const cat_snapshot_t *s, cat_oid_t schema, const char *name, err_t *e)
{
  if (cat_find_rel(s, schema, name, NULL))
    return err_set(e, SQLSTATE_DUPLICATE_TABLE, "relation \"%s\" already exists", name);
  return CZ_OK;
}

int cat_put_table(cat_t *c, txn_t *tx, cat_oid_t oid, cat_oid_t schema, cat_oid_t owner,
                  const char *name, int ncols, int npk, const int *pk, cat_oid_t pk_oid,
                  const char *pk_name, uint32_t gen, cat_layout_t layout, bool replace, err_t *e)
{
  uint8_t k[4], buf[BT_MAX_ROW];
  cat_wbuf_t w = { buf, 0, sizeof buf, false };
  cat_w_u32(&w, schema);
  cat_w_u32(&w, owner);
  cat_w_str(&w, name);
  cat_w_u32(&w, (uint32_t)ncols);
  cat_w_u32(&w, (uint32_t)npk);
  for (int i = 0; i < npk; i++)
    cat_w_u32(&w, (uint32_t)pk[i]);
  cat_w_u32(&w, pk_oid);
  cat_w_str(&w, pk_name);
  cat_w_u32(&w, gen);
  cat_w_u8(&w, (uint8_t)layout);  /* missing from older records (row) */
  return cat_sys_put(c, tx, CAT_SYS_TABLES, k, cat_key_oid(k, oid), &w, replace, e);
}

int cat_put_column(cat_t *c, txn_t *tx, cat_oid_t table, int num, const cat_column_def_t *cd,
                          bool not_null, char identity, bool replace, err_t *e)
{
  uint8_t k[8], buf[BT_MAX_ROW];
  cat_wbuf_t w = { buf, 0, sizeof buf, false };
  cat_w_str(&w, cd->cd_name);
  cat_w_u32(&w, (uint32_t)cd->cd_type.t_id);
  cat_w_u32(&w, (uint32_t)cd->cd_type.t_len);
  cat_w_u32(&w, (uint32_t)(int32_t)cd->cd_type.t_prec);
  cat_w_u32(&w, (uint32_t)(int32_t)cd->cd_type.t_scale);
  cat_w_u8(&w, not_null ? 1 : 0);
  cat_w_str(&w, cd->cd_default);
  cat_w_u8(&w, (uint8_t)identity);
  return cat_sys_put(c, tx, CAT_SYS_COLUMNS, k, cat_key_oid2(k, table, (uint32_t)num), &w, replace,
                     e);
}

uint32_t cat_tree_flags(cat_layout_t layout)
{
  return BT_UNIQUE | (layout == CAT_LAYOUT_COLUMN ? BT_COLUMN : 0);
}

const char *cat_layout_name(cat_layout_t l)
{
  return l == CAT_LAYOUT_COLUMN ? "column" : "row";
}

int cat_layout_check(const cat_column_def_t *cols, int ncols, err_t *e)
{
  if (ncols > BTC_MAX_COLS - 1)
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED,
                   "column layout supports at most %d columns", BTC_MAX_COLS - 1);
  for (int i = 0; i < ncols; i++)
    if (ty_phys(cols[i].cd_type.t_id) == TP_IV)
      return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED,
                     "column layout does not support type interval (column \"%s\")",
                     cols[i].cd_name);
  return CZ_OK;
}

int cat_check_pk(const cat_column_def_t *cols, int ncols, const int *pk, int npk, err_t *e)
{
  if (npk < 0 || npk > CAT_MAX_INDEX_KEYS)
    return err_set(e, SQLSTATE_INVALID_TABLE_DEF, "primary key of %d columns", npk);
  for (int i = 0; i < npk; i++) {
    if (pk[i] < 0 || pk[i] >= ncols)
      return err_set(e, SQLSTATE_UNDEFINED_COLUMN, "primary key column %d does not exist", pk[i]);
    for (int j = 0; j < i; j++)
      if (pk[i] == pk[j])
        return err_set(e, SQLSTATE_DUPLICATE_COLUMN, "column \"%s\" appears twice in primary key constraint",
                       cols[pk[i]].cd_name);
  }
  return CZ_OK;
}

int cat_create_table(cat_t *c, txn_t *tx, const cat_table_def_t *def, cat_oid_t *oid, err_t *e)
{
  const cat_snapshot_t *s;
  if (cat_ddl_begin(c, tx, &s, e) != CZ_OK || cat_name_check("table", def->td_name, e) != CZ_OK)
    return CZ_ERR;
  const cat_schema_t *sch = cat_schema_of(s, def->td_schema, e);
  if (!sch || cat_rel_free(s, sch->cs_oid, def->td_name, e) != CZ_OK)
    return CZ_ERR;
  if (def->td_ncols < 0 || def->td_ncols > CAT_MAX_COLUMNS)
    return err_set(e, SQLSTATE_TOO_MANY_COLUMNS, "tables can have at most %d columns", CAT_MAX_COLUMNS);
  for (int i = 0; i < def->td_ncols; i++) {
    if (cat_name_check("column", def->td_cols[i].cd_name, e) != CZ_OK)
      return CZ_ERR;
    if (def->td_cols[i].cd_type.t_id <= TY_UNKNOWN || def->td_cols[i].cd_type.t_id >= TY_COUNT_)
      return err_set(e, SQLSTATE_DATATYPE_MISMATCH, "column \"%s\" has no storable type", def->td_cols[i].cd_name);
    for (int j = 0; j < i; j++)
      if (strcmp(def->td_cols[i].cd_name, def->td_cols[j].cd_name) == 0)
        return err_set(e, SQLSTATE_DUPLICATE_COLUMN, "column \"%s\" specified more than once",
                       def->td_cols[i].cd_name);
  }
  if (cat_check_pk(def->td_cols, def->td_ncols, def->td_pk, def->td_npk, e) != CZ_OK)
    return CZ_ERR;
  if (def->td_layout == CAT_LAYOUT_COLUMN &&
      cat_layout_check(def->td_cols, def->td_ncols, e) != CZ_OK)
    return CZ_ERR;
  char pk_name[CAT_MAX_NAME * 2 + 8];
  if (def->td_npk > 0) {
    if (def->td_pk_name)
      snprintf(pk_name, sizeof pk_name, "%s", def->td_pk_name);
    else
      snprintf(pk_name, sizeof pk_name, "%.58s_pkey", def->td_name);
    if (cat_rel_free(s, sch->cs_oid, pk_name, e) != CZ_OK || strcmp(pk_name, def->td_name) == 0)
      return err_set(e, SQLSTATE_DUPLICATE_TABLE, "relation \"%s\" already exists", pk_name);
  }
  cat_oid_t toid, pkoid = 0;
  if (cat_next_oid(c, tx, &toid, e) != CZ_OK || (def->td_npk > 0 && cat_next_oid(c, tx, &pkoid, e) != CZ_OK))
    return CZ_ERR;
  char tree[32];
  snprintf(tree, sizeof tree, "t%u", (unsigned)toid);
  bt_tree_t *bt;
  char ltree[40];
  cat_long_tree_name(toid, 0, ltree, sizeof ltree);
  bt_tree_t *lbt;
  if (db_create_tree(tx, tree, cat_tree_flags(def->td_layout), &bt, e) != CZ_OK ||
      db_create_tree(tx, ltree, BT_UNIQUE, &lbt, e) != CZ_OK ||
      cat_put_table(c, tx, toid, sch->cs_oid, def->td_owner, def->td_name, def->td_ncols, def->td_npk,
                    def->td_pk, pkoid, def->td_npk > 0 ? pk_name : NULL, 0, def->td_layout, false,
                    e) != CZ_OK)
    return CZ_ERR;
  for (int i = 0; i < def->td_ncols; i++) {
    bool nn = def->td_cols[i].cd_not_null;
    for (int j = 0; j < def->td_npk; j++)
      nn = nn || def->td_pk[j] == i;
    char ident = def->td_identity ? def->td_identity[i] : 0;
    if (cat_put_column(c, tx, toid, i, &def->td_cols[i], nn, ident, false, e) != CZ_OK)
      return CZ_ERR;
  }
  if (cat_ddl_end(c, tx, e) != CZ_OK)
    return CZ_ERR;
  if (oid)
    *oid = toid;
  return CZ_OK;
}

int cat_drop_index_rows(cat_t *c, txn_t *tx, const cat_index_t *ix, err_t *e)
{
  uint8_t k[4];
  if (cat_sys_del(c, tx, CAT_SYS_INDEXES, k, cat_key_oid(k, ix->ci_oid), e) != CZ_OK)
    return CZ_ERR;
  int rc = db_drop_tree(tx, ix->ci_tree_name, e);
  return rc == BT_NOT_FOUND ? CZ_OK : rc;
}

int cat_drop_table(cat_t *c, txn_t *tx, cat_oid_t table, err_t *e)
{
  const cat_snapshot_t *s;
  if (cat_ddl_begin(c, tx, &s, e) != CZ_OK)
    return CZ_ERR;
  const cat_table_t *t = cat_table_by_oid(s, table);
  if (!t)
    return err_set(e, SQLSTATE_UNDEFINED_TABLE, "table with OID %u does not exist", (unsigned)table);
  if (cat_drop_table_constraints(c, tx, t, e) != CZ_OK)
    return CZ_ERR;
  uint8_t k[8];
  for (int i = 1; i < t->ct_nindexes; i++)
    if (cat_drop_index_rows(c, tx, t->ct_indexes[i], e) != CZ_OK)
      return CZ_ERR;
  for (int i = 0; i < t->ct_ncols; i++)
    if (cat_sys_del(c, tx, CAT_SYS_COLUMNS, k, cat_key_oid2(k, table, (uint32_t)i), e) != CZ_OK)
      return CZ_ERR;
  for (int i = 0; i < s->cs_ngrants; i++)
    if (s->cs_grants[i].cg_table == table &&
        cat_sys_del(c, tx, CAT_SYS_GRANTS, k, cat_key_oid2(k, table, s->cs_grants[i].cg_grantee), e) != CZ_OK)
      return CZ_ERR;
  if (cat_sys_del(c, tx, CAT_SYS_TABLES, k, cat_key_oid(k, table), e) != CZ_OK ||
      cat_drop_owned_sequences(c, tx, s, table, e) != CZ_OK)
    return CZ_ERR;
  int rc = db_drop_tree(tx, t->ct_indexes[0]->ci_tree_name, e);
  if (rc != CZ_OK && rc != BT_NOT_FOUND)
    return CZ_ERR;
  rc = db_drop_tree(tx, t->ct_long_tree_name, e);
  if (rc != CZ_OK && rc != BT_NOT_FOUND)
    return CZ_ERR;
  return cat_ddl_end(c, tx, e);
}

int cat_set_column_default(cat_t *c, txn_t *tx, cat_oid_t table, int col, const char *def,
                           char identity, err_t *e)
{
  const cat_snapshot_t *s;
  if (cat_ddl_begin(c, tx, &s, e) != CZ_OK)
    return CZ_ERR;
  const cat_table_t *t = cat_table_by_oid(s, table);
  if (!t || col < 0 || col >= t->ct_ncols)
    return err_set(e, SQLSTATE_UNDEFINED_COLUMN, "column %d of table %u does not exist", col,
                   (unsigned)table);
  const cat_column_t *cc = &t->ct_cols[col];
  cat_column_def_t cd = {.cd_name = cc->cc_name, .cd_type = cc->cc_type,
                         .cd_not_null = cc->cc_not_null, .cd_default = def};
  if (cat_put_column(c, tx, table, col, &cd, cc->cc_not_null, identity, true, e) != CZ_OK)
    return CZ_ERR;
  return cat_ddl_end(c, tx, e);
}

/* ---- indexes ------------------------------------------------------------- */

/* PostgreSQL's default: <table>_<col>..._idx (or _key when unique), with a
 * number appended while the name is taken. */
void cat_index_name(const cat_snapshot_t *s, const cat_table_t *t, const cat_index_def_t *def,
                           char *out, size_t cap)
{
  char base[256];
  int n = snprintf(base, sizeof base, "%s", t->ct_name);
  for (int i = 0; i < def->id_nkeys && n < (int)sizeof base - 1; i++)
    n += snprintf(base + n, sizeof base - (size_t)n, "_%s", t->ct_cols[def->id_keys[i]].cc_name);
  const char *suffix = def->id_unique ? "key" : "idx";
  snprintf(out, cap, "%.*s_%s", CAT_MAX_NAME - 4, base, suffix);
  for (int k = 1; cat_find_rel(s, t->ct_schema, out, NULL); k++)
    snprintf(out, cap, "%.*s_%s%d", CAT_MAX_NAME - 8, base, suffix, k);
}

int cat_put_index(cat_t *c, txn_t *tx, cat_oid_t oid, cat_oid_t table, const char *name,
                  const cat_index_def_t *def, uint32_t gen, bool replace, err_t *e)
{
  uint8_t k[4], buf[BT_MAX_ROW];
  cat_wbuf_t w = { buf, 0, sizeof buf, false };
  cat_w_u32(&w, table);
  cat_w_str(&w, name);
  cat_w_u8(&w, def->id_unique ? 1 : 0);
  cat_w_u32(&w, (uint32_t)def->id_nkeys);
  for (int i = 0; i < def->id_nkeys; i++)
    cat_w_u32(&w, (uint32_t)def->id_keys[i]);
  cat_w_u32(&w, (uint32_t)def->id_ninclude);
  for (int i = 0; i < def->id_ninclude; i++)
    cat_w_u32(&w, (uint32_t)def->id_include[i]);
  /* each field below is missing from older records (read as 0) */
  cat_w_u8(&w, def->id_constraint ? 1 : 0);
  cat_w_u32(&w, gen);
  cat_w_u8(&w, def->id_nulls_nd ? 1 : 0);
  cat_w_u8(&w, (uint8_t)def->id_layout);
  return cat_sys_put(c, tx, CAT_SYS_INDEXES, k, cat_key_oid(k, oid), &w, replace, e);
}

int cat_create_index(cat_t *c, txn_t *tx, const cat_index_def_t *def, cat_oid_t *oid, err_t *e)
{
  const cat_snapshot_t *s;
  if (cat_ddl_begin(c, tx, &s, e) != CZ_OK)
    return CZ_ERR;
  const cat_table_t *t = cat_table_by_oid(s, def->id_table);
  if (!t)
    return err_set(e, SQLSTATE_UNDEFINED_TABLE, "table with OID %u does not exist", (unsigned)def->id_table);
  if (def->id_nkeys < 1 || def->id_nkeys > CAT_MAX_INDEX_KEYS || def->id_ninclude < 0 ||
      def->id_ninclude > CAT_MAX_INDEX_KEYS)
    return err_set(e, SQLSTATE_TOO_MANY_COLUMNS, "an index has 1 to %d key columns", CAT_MAX_INDEX_KEYS);
  for (int i = 0; i < def->id_nkeys; i++)
    if (def->id_keys[i] < 0 || def->id_keys[i] >= t->ct_ncols)
      return err_set(e, SQLSTATE_UNDEFINED_COLUMN, "index column %d does not exist", def->id_keys[i]);
  for (int i = 0; i < def->id_ninclude; i++)
    if (def->id_include[i] < 0 || def->id_include[i] >= t->ct_ncols)
      return err_set(e, SQLSTATE_UNDEFINED_COLUMN, "included column %d does not exist", def->id_include[i]);
  /* a column index holds its INCLUDE columns as column rows (keys are
   * bytes): the table's rule for what has a column form */
  for (int i = 0; def->id_layout == CAT_LAYOUT_COLUMN && i < def->id_ninclude; i++)
    if (ty_phys(t->ct_cols[def->id_include[i]].cc_type.t_id) == TP_IV)
      return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED,
                     "column layout does not support type interval (column \"%s\")",
                     t->ct_cols[def->id_include[i]].cc_name);
  char name[CAT_MAX_NAME + 16];
  if (def->id_name) {
    if (cat_name_check("index", def->id_name, e) != CZ_OK ||
        cat_rel_free(s, t->ct_schema, def->id_name, e) != CZ_OK)
      return CZ_ERR;
    snprintf(name, sizeof name, "%s", def->id_name);
  } else {
    cat_index_name(s, t, def, name, sizeof name);
  }
  cat_oid_t ioid;
  if (cat_next_oid(c, tx, &ioid, e) != CZ_OK)
    return CZ_ERR;
  char tree[32];
  snprintf(tree, sizeof tree, "i%u", (unsigned)ioid);
  bt_tree_t *bt;
  if (db_create_tree(tx, tree, cat_tree_flags(def->id_layout), &bt, e) != CZ_OK)
    return CZ_ERR;
  if (cat_put_index(c, tx, ioid, t->ct_oid, name, def, 0, false, e) != CZ_OK ||
      cat_ddl_end(c, tx, e) != CZ_OK)
    return CZ_ERR;
  if (oid)
    *oid = ioid;
  return CZ_OK;
}

int cat_drop_index(cat_t *c, txn_t *tx, cat_oid_t index, err_t *e)
{
  const cat_snapshot_t *s;
  if (cat_ddl_begin(c, tx, &s, e) != CZ_OK)
    return CZ_ERR;
  const cat_index_t *ix = cat_index_by_oid(s, index);
  if (!ix)
    return err_set(e, SQLSTATE_UNDEFINED_OBJECT, "index with OID %u does not exist", (unsigned)index);
  if (ix->ci_primary)
    return err_set(e, SQLSTATE_DEPENDENT_OBJECTS,
                   "cannot drop index %s because constraint %s on table %s requires it", ix->ci_name,
                   ix->ci_name, ix->ci_table->ct_name);
  if (ix->ci_constraint)
    return err_set(e, SQLSTATE_DEPENDENT_OBJECTS,
                   "cannot drop index %s because constraint %s on table %s requires it", ix->ci_name,
                   ix->ci_name, ix->ci_table->ct_name);
  for (int i = 0; i < s->cs_nconstraints; i++) {
    const cat_constraint_t *co = s->cs_constraints[i];
    if (co->co_type == 'f' && co->co_ref_index == ix)
      return err_set(e, SQLSTATE_DEPENDENT_OBJECTS,
                     "cannot drop index %s because constraint %s on table %s requires it",
                     ix->ci_name, co->co_name, co->co_table->ct_name);
  }
  if (cat_drop_index_rows(c, tx, ix, e) != CZ_OK)
    return CZ_ERR;
  return cat_ddl_end(c, tx, e);
}

/* ---- schemas --------------------------------------------------------------- */

/* ---- roles --------------------------------------------------------------- */

static int cat_put_role(cat_t *c, txn_t *tx, cat_oid_t oid, const cat_role_def_t *def, bool replace,
                        err_t *e)
{
  uint8_t k[4], buf[1024];
  cat_wbuf_t w = { buf, 0, sizeof buf, false };
  cat_w_str(&w, def->rd_name);
  cat_w_u8(&w, (uint8_t)((def->rd_superuser ? 1 : 0) | (def->rd_login ? 2 : 0) |
                         (def->rd_createdb ? 4 : 0) | (def->rd_createrole ? 8 : 0)));
  cat_w_str(&w, def->rd_verifier);
  cat_w_str(&w, def->rd_digest); /* added later: a record without it has none (cat_load.c) */
  return cat_sys_put(c, tx, CAT_SYS_ROLES, k, cat_key_oid(k, oid), &w, replace, e);
}

int cat_create_role(cat_t *c, txn_t *tx, const cat_role_def_t *def, cat_oid_t *oid, err_t *e)
{
  const cat_snapshot_t *s;
  if (cat_ddl_begin(c, tx, &s, e) != CZ_OK || cat_name_check("role", def->rd_name, e) != CZ_OK)
    return CZ_ERR;
  if (cat_find_role(s, def->rd_name) || strcmp(def->rd_name, "public") == 0)
    return err_set(e, SQLSTATE_DUPLICATE_OBJECT, "role \"%s\" already exists", def->rd_name);
  cat_oid_t ro;
  if (cat_next_oid(c, tx, &ro, e) != CZ_OK || cat_put_role(c, tx, ro, def, false, e) != CZ_OK ||
      cat_ddl_end(c, tx, e) != CZ_OK)
    return CZ_ERR;
  if (oid)
    *oid = ro;
  return CZ_OK;
}

int cat_alter_role(cat_t *c, txn_t *tx, cat_oid_t role, const cat_role_def_t *def, err_t *e)
{
  const cat_snapshot_t *s;
  if (cat_ddl_begin(c, tx, &s, e) != CZ_OK || cat_name_check("role", def->rd_name, e) != CZ_OK)
    return CZ_ERR;
  const cat_role_t *r = cat_role_by_oid(s, role);
  if (!r)
    return err_set(e, SQLSTATE_UNDEFINED_OBJECT, "role with OID %u does not exist", (unsigned)role);
  const cat_role_t *other = cat_find_role(s, def->rd_name);
  if (other && other->cr_oid != role)
    return err_set(e, SQLSTATE_DUPLICATE_OBJECT, "role \"%s\" already exists", def->rd_name);
  if (cat_put_role(c, tx, role, def, true, e) != CZ_OK)
    return CZ_ERR;
  return cat_ddl_end(c, tx, e);
}

int cat_drop_role(cat_t *c, txn_t *tx, cat_oid_t role, err_t *e)
{
  const cat_snapshot_t *s;
  if (cat_ddl_begin(c, tx, &s, e) != CZ_OK)
    return CZ_ERR;
  const cat_role_t *r = cat_role_by_oid(s, role);
  if (!r)
    return err_set(e, SQLSTATE_UNDEFINED_OBJECT, "role with OID %u does not exist", (unsigned)role);
  bool used = role == CAT_OID_BOOTSTRAP_SUPERUSER;
  for (int i = 0; i < s->cs_ntables && !used; i++)
    used = s->cs_tables[i]->ct_owner == role;
  for (int i = 0; i < s->cs_nsequences && !used; i++)
    used = s->cs_sequences[i]->sq_owner == role;
  for (int i = 0; i < s->cs_nviews && !used; i++)
    used = s->cs_views[i]->cw_owner == role;  /* its privileges read the view's tables */
  for (int i = 0; i < s->cs_nschemas && !used; i++)
    used = s->cs_schemas[i].cs_owner == role && s->cs_schemas[i].cs_oid >= CAT_FIRST_USER_OID;
  for (int i = 0; i < s->cs_ngrants && !used; i++)
    used = s->cs_grants[i].cg_grantee == role;
  if (used)
    return err_set(e, SQLSTATE_DEPENDENT_OBJECTS,
                   "role \"%s\" cannot be dropped because some objects depend on it", r->cr_name);
  uint8_t k[8];
  for (int i = 0; i < s->cs_nmembers; i++) {
    const cat_member_t *m = &s->cs_members[i];
    if ((m->cm_role == role || m->cm_member == role) &&
        cat_sys_del(c, tx, CAT_SYS_MEMBERS, k, cat_key_oid2(k, m->cm_role, m->cm_member), e) != CZ_OK)
      return CZ_ERR;
  }
  if (cat_sys_del(c, tx, CAT_SYS_ROLES, k, cat_key_oid(k, role), e) != CZ_OK)
    return CZ_ERR;
  return cat_ddl_end(c, tx, e);
}

int cat_grant_role(cat_t *c, txn_t *tx, cat_oid_t role, cat_oid_t member, cat_oid_t grantor,
                   bool admin, err_t *e)
{
  const cat_snapshot_t *s;
  if (cat_ddl_begin(c, tx, &s, e) != CZ_OK)
    return CZ_ERR;
  const cat_role_t *r = cat_role_by_oid(s, role), *m = cat_role_by_oid(s, member);
  if (!r || !m)
    return err_set(e, SQLSTATE_UNDEFINED_OBJECT, "role with OID %u does not exist",
                   (unsigned)(r ? member : role));
  if (cat_role_is_member(s, role, member))
    return err_set(e, SQLSTATE_INVALID_GRANT_OPERATION, "role \"%s\" is a member of role \"%s\"", r->cr_name, m->cr_name);
  uint8_t k[8], buf[16];
  cat_wbuf_t w = { buf, 0, sizeof buf, false };
  cat_w_u32(&w, grantor);
  cat_w_u8(&w, admin ? 1 : 0);
  if (cat_sys_put(c, tx, CAT_SYS_MEMBERS, k, cat_key_oid2(k, role, member), &w, true, e) != CZ_OK)
    return CZ_ERR;
  return cat_ddl_end(c, tx, e);
}

int cat_revoke_role(cat_t *c, txn_t *tx, cat_oid_t role, cat_oid_t member, err_t *e)
{
  const cat_snapshot_t *s;
  if (cat_ddl_begin(c, tx, &s, e) != CZ_OK)
    return CZ_ERR;
  uint8_t k[8];
  if (cat_sys_del(c, tx, CAT_SYS_MEMBERS, k, cat_key_oid2(k, role, member), e) != CZ_OK)
    return CZ_ERR;
  return cat_ddl_end(c, tx, e);
}

/* ---- table privileges ------------------------------------------------------ */

static const cat_grant_t *cat_grant_of(const cat_snapshot_t *s, cat_oid_t table, cat_oid_t grantee)
{
  for (int i = 0; i < s->cs_ngrants; i++)
    if (s->cs_grants[i].cg_table == table && s->cs_grants[i].cg_grantee == grantee)
      return &s->cs_grants[i];
  return NULL;
}

static int cat_put_grant(cat_t *c, txn_t *tx, cat_oid_t table, cat_oid_t grantee, uint32_t privs,
                         cat_oid_t grantor, err_t *e)
{
  uint8_t k[8], buf[16];
  size_t kl = cat_key_oid2(k, table, grantee);
  if (privs == 0)
    return cat_sys_del(c, tx, CAT_SYS_GRANTS, k, kl, e);
  cat_wbuf_t w = { buf, 0, sizeof buf, false };
  cat_w_u32(&w, privs);
  cat_w_u32(&w, grantor);
  return cat_sys_put(c, tx, CAT_SYS_GRANTS, k, kl, &w, true, e);
}

int cat_grant(cat_t *c, txn_t *tx, cat_oid_t table, cat_oid_t grantee, uint32_t privs,
              cat_oid_t grantor, err_t *e)
{
  const cat_snapshot_t *s;
  if (cat_ddl_begin(c, tx, &s, e) != CZ_OK)
    return CZ_ERR;
  if (!cat_table_by_oid(s, table) && !cat_view_by_oid(s, table) &&
      !cat_sequence_by_oid(s, table))  /* a view's and a sequence's grants too */
    return err_set(e, SQLSTATE_UNDEFINED_TABLE, "table with OID %u does not exist", (unsigned)table);
  if (grantee != CAT_OID_PUBLIC_ROLE && !cat_role_by_oid(s, grantee))
    return err_set(e, SQLSTATE_UNDEFINED_OBJECT, "role with OID %u does not exist", (unsigned)grantee);
  const cat_grant_t *g = cat_grant_of(s, table, grantee);
  uint32_t have = g ? g->cg_privs : 0;
  if ((have | privs) == have)
    return CZ_OK;
  const uint32_t rights = CAT_PRIV_ALL | CAT_PRIV_USAGE;  /* USAGE: a sequence's */
  uint32_t keep = rights | rights << CAT_PRIV_GRANT_SHIFT;     /* grant options too */
  if (cat_put_grant(c, tx, table, grantee, (have | privs) & keep, grantor, e) != CZ_OK)
    return CZ_ERR;
  return cat_ddl_end(c, tx, e);
}

int cat_revoke(cat_t *c, txn_t *tx, cat_oid_t table, cat_oid_t grantee, uint32_t privs, err_t *e)
{
  const cat_snapshot_t *s;
  if (cat_ddl_begin(c, tx, &s, e) != CZ_OK)
    return CZ_ERR;
  const cat_grant_t *g = cat_grant_of(s, table, grantee);
  if (!g || !(g->cg_privs & privs))
    return CZ_OK;
  if (cat_put_grant(c, tx, table, grantee, g->cg_privs & ~privs, g->cg_grantor, e) != CZ_OK)
    return CZ_ERR;
  return cat_ddl_end(c, tx, e);
}
