/* cat_open — creating the catalog of a new database, loading it, the
 * committed snapshot and its references, row ids.
 *
 * Design notes:
 * - Readers: cat_snapshot takes c_mx for the pointer and the reference;
 *   sessions avoid even that with cat_snapshot_refresh, which compares
 *   one atomic version number with the snapshot they hold.
 * - Publishing (a DDL transaction's commit, see cat_ddl.c) swaps c_cur
 *   under c_mx and then bumps c_version; the old snapshot lives on while
 *   anybody holds a reference.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/cat_int.h"

db_t *cat_db(const cat_t *c)
{
  return c->c_db;
}

/* ---- bootstrap ---------------------------------------------------------- */

/* public gets PostgreSQL 15's access list: USAGE for PUBLIC (CREATE only
 * for its owner); the others the default (the owner alone). */
static int cat_boot_schema(cat_t *c, txn_t *tx, cat_oid_t oid, const char *name, err_t *e)
{
  static const cat_acl_item_t public_usage = {CAT_OID_PUBLIC_ROLE, CAT_OID_BOOTSTRAP_SUPERUSER,
                                              CAT_PRIV_USAGE};
  cat_schema_t sc = {.cs_oid = oid, .cs_name = name, .cs_owner = CAT_OID_BOOTSTRAP_SUPERUSER};
  if (oid == CAT_OID_PUBLIC)
    sc = (cat_schema_t){.cs_oid = oid, .cs_name = name, .cs_owner = CAT_OID_BOOTSTRAP_SUPERUSER,
                        .cs_acl_set = true, .cs_nacl = 1, .cs_acl = &public_usage};
  return cat_schema_put(c, tx, &sc, false, e);
}

int cat_bootstrap(db_t *db, const char *superuser, const char *verifier, err_t *e)
{
  bt_tree_t *probe;
  if (db_open_tree(db, cat_sys_names[CAT_SYS_META], &probe, e) == CZ_OK)
    return err_set(e, SQLSTATE_DUPLICATE_OBJECT, "the database already has a catalog");
  txn_t *tx = txn_begin(db, 0, e);
  if (!tx)
    return CZ_ERR;
  cat_t tmp;
  memset(&tmp, 0, sizeof tmp);
  tmp.c_db = db;
  int rc = CZ_OK;
  for (int i = 0; i < CAT_SYS_N && rc == CZ_OK; i++)
    rc = db_create_tree(tx, cat_sys_names[i], BT_UNIQUE, &tmp.c_sys[i], e);
  if (rc == CZ_OK) {
    uint8_t v[4];
    cat_wbuf_t w = { v, 0, sizeof v, false };
    cat_w_u32(&w, CAT_FORMAT_VERSION);
    rc = cat_sys_put(&tmp, tx, CAT_SYS_META, (const uint8_t *)"format", 6, &w, false, e);
  }
  if (rc == CZ_OK) {
    uint8_t v[4];
    cat_wbuf_t w = { v, 0, sizeof v, false };
    cat_w_u32(&w, CAT_FIRST_USER_OID);
    rc = cat_sys_put(&tmp, tx, CAT_SYS_META, (const uint8_t *)"next_oid", 8, &w, false, e);
  }
  if (rc == CZ_OK)
    rc = cat_boot_schema(&tmp, tx, CAT_OID_PG_CATALOG, "pg_catalog", e);
  if (rc == CZ_OK)
    rc = cat_boot_schema(&tmp, tx, CAT_OID_PUBLIC, "public", e);
  if (rc == CZ_OK)
    rc = cat_boot_schema(&tmp, tx, CAT_OID_INFORMATION_SCHEMA, "information_schema", e);
  if (rc == CZ_OK) {
    uint8_t k[4], buf[1024];
    cat_wbuf_t w = { buf, 0, sizeof buf, false };
    cat_w_str(&w, superuser);
    cat_w_u8(&w, 1 | 2 | 4 | 8);
    cat_w_str(&w, verifier);
    rc = cat_sys_put(&tmp, tx, CAT_SYS_ROLES, k, cat_key_oid(k, CAT_OID_BOOTSTRAP_SUPERUSER), &w, false, e);
  }
  if (rc != CZ_OK) {
    err_t e2;
    txn_rollback(tx, &e2);
    return err_prefix(e, "create the catalog");
  }
  return txn_commit(tx, e);
}

/* ---- open and close ---------------------------------------------------- */

/* Databases written before long values existed have tables without a
 * long-values tree: create the missing ones (one transaction) so that
 * every table has one (catalog/README.md, invariant on trees). */
static int cat_long_trees(cat_t *c, err_t *e)
{
  txn_t *tx = NULL;
  bt_cursor_t *cur;
  if (bt_cursor_open(c->c_sys[CAT_SYS_TABLES], &cur, e) != CZ_OK)
    return CZ_ERR;
  int rc = bt_seek(cur, NULL, 0, BT_FORWARD, e);
  while (rc == CZ_OK) {
    const void *k, *v;
    size_t kl, vl;
    rc = bt_next(cur, &k, &kl, &v, &vl, e);
    if (rc != CZ_OK)
      break;
    if (kl != 4) {
      rc = err_set(e, SQLSTATE_DATA_CORRUPTED, "malformed table key in the catalog");
      break;
    }
    char name[40];
    cat_long_tree_name(cat_key_get(k, 0), cat_table_rec_gen(v, vl), name, sizeof name);
    bt_tree_t *bt;
    int orc = db_open_tree(c->c_db, name, &bt, e);
    if (orc == CZ_OK)
      continue;
    if (orc != BT_NOT_FOUND) {
      rc = CZ_ERR;
      break;
    }
    /* The cursor is released while the tree is created (no latch held
     * across another tree's change); it re-finds its place by key. */
    bt_cursor_release(cur);
    if (!tx && !(tx = txn_begin(c->c_db, 0, e))) {
      rc = CZ_ERR;
      break;
    }
    rc = db_create_tree(tx, name, BT_UNIQUE, &bt, e);
  }
  bt_cursor_close(cur);
  if (rc == BT_END)
    rc = CZ_OK;
  if (!tx)
    return rc;
  if (rc != CZ_OK) {
    err_t e2;
    txn_rollback(tx, &e2);
    return CZ_ERR;
  }
  return txn_commit(tx, e);
}

/* System tables added since a database was written (sequences): created
 * empty, in one transaction, before the first snapshot is loaded. */
static int cat_missing_sys(cat_t *c, err_t *e)
{
  txn_t *tx = NULL;
  int rc = CZ_OK;
  for (int i = CAT_SYS_FIRST_OPTIONAL; i < CAT_SYS_N && rc == CZ_OK; i++) {
    if (c->c_sys[i])
      continue;
    if (!tx && !(tx = txn_begin(c->c_db, 0, e)))
      return CZ_ERR;
    rc = db_create_tree(tx, cat_sys_names[i], BT_UNIQUE, &c->c_sys[i], e);
  }
  if (!tx)
    return rc;
  if (rc != CZ_OK) {
    err_t e2;
    txn_rollback(tx, &e2);
    return CZ_ERR;
  }
  return txn_commit(tx, e);
}

int cat_open(db_t *db, cat_t **out, err_t *e)
{
  *out = NULL;
  cat_t *c = calloc(1, sizeof *c);
  if (!c)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory for the catalog");
  c->c_db = db;
  mutex_init(&c->c_mx);
  int rc = cat_open_sys(c, e);
  if (rc != CZ_OK) {
    mutex_destroy(&c->c_mx);
    free(c);
    return rc == BT_NOT_FOUND ? 1 : CZ_ERR;
  }
  c->c_next_version = 2;
  if (cat_missing_sys(c, e) != CZ_OK || cat_long_trees(c, e) != CZ_OK ||
      cat_load(c, NULL, 1, &c->c_cur, e) != CZ_OK) {
    cat_close(c);
    return CZ_ERR;
  }
  atomic_store(&c->c_version, 1);
  c->c_opened = true;
  *out = c;
  return CZ_OK;
}

void cat_close(cat_t *c)
{
  if (!c)
    return;
  cat_stats_close(c);
  if (c->c_cur)
    cat_snapshot_release(c->c_cur);
  if (c->c_pending)
    cat_snapshot_release(c->c_pending);
  for (cat_table_rt_t *rt = c->c_rts, *next; rt; rt = next) {
    next = rt->rt_next;
    mutex_destroy(&rt->rt_mx);
    free(rt);
  }
  for (cat_seq_rt_t *sr = c->c_seqrts, *next; sr; sr = next) {
    next = sr->sr_next;
    mutex_destroy(&sr->sr_mx);
    free(sr);
  }
  mutex_destroy(&c->c_mx);
  free(c);
}

/* ---- snapshots ---------------------------------------------------------- */

static cat_snapshot_t *cat_ref(cat_snapshot_t *s)
{
  atomic_fetch_add(&s->cs_int->si_refs, 1);
  return s;
}

cat_snapshot_t *cat_snapshot(cat_t *c)
{
  mutex_lock(&c->c_mx);
  cat_snapshot_t *s = cat_ref(c->c_cur);
  mutex_unlock(&c->c_mx);
  return s;
}

cat_snapshot_t *cat_snapshot_tx(cat_t *c, const txn_t *tx)
{
  /* Only tx itself sets or clears c_ddl_tx to tx, so a match is stable. */
  if (tx && atomic_load(&c->c_ddl_tx) == tx && c->c_pending)
    return cat_ref(c->c_pending);
  return cat_snapshot(c);
}

cat_snapshot_t *cat_snapshot_hold(cat_snapshot_t *s)
{
  return cat_ref(s);
}

void cat_snapshot_release(cat_snapshot_t *s)
{
  if (!s)
    return;
  if (atomic_fetch_sub(&s->cs_int->si_refs, 1) == 1)
    arena_destroy(s->cs_int->si_arena);
}

uint64_t cat_version(const cat_t *c)
{
  return atomic_load(&((cat_t *)c)->c_version);
}

void cat_snapshot_refresh(cat_t *c, const txn_t *tx, cat_snapshot_t **held)
{
  if (tx && atomic_load(&c->c_ddl_tx) == tx && c->c_pending) {
    if (*held == c->c_pending)
      return;
  } else if (*held && (*held)->cs_version == atomic_load(&c->c_version)) {
    return;
  }
  cat_snapshot_t *s = cat_snapshot_tx(c, tx);
  cat_snapshot_release(*held);
  *held = s;
}

/* ---- row ids ------------------------------------------------------------ */

/* The 8 big-endian bytes at off of the last key of tree; *found is false
 * (and *out 0) when the tree is empty or that key's length is outside
 * [min_len, max_len]. Both id counters start above the last key. */
/* A column tree reads forward only (btree/README.md "Column leaves:
 * state"): its last key is found by a scan of its key column — once per
 * table and server run, reading the keys' runs only. */
static int cat_last_key_col(bt_tree_t *tree, uint8_t *last, size_t *last_len, bool *found,
                            err_t *e)
{
  arena_t *a = arena_create(NULL, "cat_last_key_col");
  vec_t v;
  int col = 0;
  bt_col_scan_t *s = NULL;
  int rc = vec_init(&v, a, ty_plain(TY_BYTEA), 4096, e);
  if (rc == CZ_OK)
    rc = bt_col_scan_open(tree, NULL, 0, NULL, 0, &col, 1, NULL, 0, &s, e);
  while (rc == CZ_OK) {
    int n = 0;
    rc = bt_col_scan_next(s, &v, v.v_cap, &n, e);
    if (rc == CZ_OK && n > 0 && v.v_str[n - 1].s_len <= BT_MAX_KEY) {
      memcpy(last, v.v_str[n - 1].s_ptr, v.v_str[n - 1].s_len);
      *last_len = v.v_str[n - 1].s_len;
      *found = true;
    }
  }
  if (s)
    bt_col_scan_close(s);
  arena_destroy(a);
  return rc == BT_END ? CZ_OK : rc;
}

static int cat_last_key_u64(bt_tree_t *tree, size_t off, size_t min_len, size_t max_len,
                            uint64_t *out, bool *found, err_t *e)
{
  *out = 0;
  *found = false;
  if (bt_flags(tree) & BT_COLUMN) {
    uint8_t k[BT_MAX_KEY];
    size_t kl = 0;
    bool any = false;
    if (cat_last_key_col(tree, k, &kl, &any, e) != CZ_OK)
      return CZ_ERR;
    if (any && kl >= min_len && kl <= max_len) {
      uint64_t u = 0;
      for (size_t i = off; i < off + 8; i++)
        u = (u << 8) | k[i];
      *out = u;
      *found = true;
    }
    return CZ_OK;
  }
  bt_cursor_t *c;
  if (bt_cursor_open(tree, &c, e) != CZ_OK)
    return CZ_ERR;
  int rc = bt_seek(c, NULL, 0, BT_BACKWARD, e);
  if (rc == CZ_OK) {
    const void *k, *v;
    size_t kl, vl;
    rc = bt_next(c, &k, &kl, &v, &vl, e);
    if (rc == CZ_OK && kl >= min_len && kl <= max_len) {
      const uint8_t *p = k;
      uint64_t u = 0;
      for (size_t i = off; i < off + 8; i++)
        u = (u << 8) | p[i];
      *out = u;
      *found = true;
    }
    if (rc == BT_END)
      rc = CZ_OK;
  }
  bt_cursor_close(c);
  return rc;
}

/* The largest row id in the tree (committed or not: ids are never reused
 * while rows that carry them may exist). */
static int cat_rowid_max(const cat_table_t *t, int64_t *out, err_t *e)
{
  uint64_t u;
  bool found;
  int rc = cat_last_key_u64(t->ct_indexes[0]->ci_tree, 1, 9, 9, &u, &found, e);
  *out = found ? (int64_t)(u ^ 0x8000000000000000ull) : 0;
  return rc;
}

int cat_next_rowid(const cat_table_t *t, int64_t *out, err_t *e)
{
  cat_table_rt_t *rt = t->ct_rt;
  if (!atomic_load(&rt->rt_init)) {
    mutex_lock(&rt->rt_mx);
    if (!atomic_load(&rt->rt_init)) {
      int64_t max;
      if (cat_rowid_max(t, &max, e) != CZ_OK) {
        mutex_unlock(&rt->rt_mx);
        return CZ_ERR;
      }
      atomic_store(&rt->rt_next_rowid, max + 1);
      atomic_store(&rt->rt_init, true);
    }
    mutex_unlock(&rt->rt_mx);
  }
  *out = atomic_fetch_add(&rt->rt_next_rowid, 1);
  return CZ_OK;
}

/* ---- long-value ids ------------------------------------------------------ */

/* The largest value id in the table's long-values tree (keys begin with
 * the id, 8 bytes big-endian; committed or not, as row ids). */
static int cat_long_id_max(const cat_table_t *t, uint64_t *out, err_t *e)
{
  bool found;
  return cat_last_key_u64(t->ct_long_tree, 0, 8, SIZE_MAX, out, &found, e);
}

int cat_next_long_id(const cat_table_t *t, uint64_t *out, err_t *e)
{
  cat_table_rt_t *rt = t->ct_rt;
  if (!atomic_load(&rt->rt_long_init)) {
    mutex_lock(&rt->rt_mx);
    if (!atomic_load(&rt->rt_long_init)) {
      uint64_t max;
      if (cat_long_id_max(t, &max, e) != CZ_OK) {
        mutex_unlock(&rt->rt_mx);
        return CZ_ERR;
      }
      atomic_store(&rt->rt_next_long_id, max + 1);
      atomic_store(&rt->rt_long_init, true);
    }
    mutex_unlock(&rt->rt_mx);
  }
  *out = atomic_fetch_add(&rt->rt_next_long_id, 1);
  return CZ_OK;
}
