/* db_dir — named trees: the directory B-tree (name -> tree id, root page,
 * flags) and its in-memory cache of open handles by name, id and root page,
 * and the public db_create_tree / db_open_tree / db_drop_tree.
 *
 * Design notes:
 * - The cache mirrors the directory exactly (loaded at open), plus hidden
 *   entries: trees dropped by a transaction that has not yet committed. A
 *   hidden tree has no directory entry and is invisible by name, but keeps
 *   its pages and handle so that a rollback can bring it back; its pages
 *   are freed only after the DROP is durable (or at once in bulk mode).
 * - Create and drop are logged by tree id (TXN_OP_CREATE, TXN_OP_DROP), not
 *   as rows of the directory: replay re-creates the tree under the same id,
 *   and later records name it by that id whatever root page it gets.
 * - db_dir_mx guards the cache only; it is never held across a B-tree call.
 *   Two transactions creating one name race on the directory's unique
 *   insert, which refuses the second (23505).
 */
#include <stdlib.h>
#include <string.h>

#include "txn/txn_int.h"

#define DB_DIR_VAL_SIZE 16 /* u64 id, u32 root, u32 flags */

/* ---- the cache --------------------------------------------------------- */

static size_t db_hash_name(const char *name, size_t len)
{
  return (size_t)hash64(name, len, 0);
}

int db_dir_cache_init(db_dir_cache_t *c, err_t *e)
{
  c->dc_n_buckets = 64;
  c->dc_count = 0;
  c->dc_by_name = calloc(c->dc_n_buckets, sizeof(db_tree_t *));
  c->dc_by_id = calloc(c->dc_n_buckets, sizeof(db_tree_t *));
  c->dc_by_root = calloc(c->dc_n_buckets, sizeof(db_tree_t *));
  if (!c->dc_by_name || !c->dc_by_id || !c->dc_by_root) {
    db_dir_cache_free(c);
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory for the tree cache");
  }
  return CZ_OK;
}

/* Frees every entry, closing its handle, and the buckets. */
void db_dir_cache_free(db_dir_cache_t *c)
{
  if (c->dc_by_id) {
    for (size_t i = 0; i < c->dc_n_buckets; i++) {
      db_tree_t *dt = c->dc_by_id[i];
      while (dt) {
        db_tree_t *next = dt->dt_next_id;
        bt_close(dt->dt_bt);
        free(dt->dt_name);
        free(dt);
        dt = next;
      }
    }
  }
  free(c->dc_by_name);
  free(c->dc_by_id);
  free(c->dc_by_root);
  memset(c, 0, sizeof *c);
}

static void db_cache_link(db_dir_cache_t *c, db_tree_t *dt)
{
  size_t m = c->dc_n_buckets - 1;
  size_t hn = db_hash_name(dt->dt_name, strlen(dt->dt_name)) & m;
  size_t hi = hash64_int(dt->dt_id) & m;
  size_t hr = hash64_int(dt->dt_root) & m;
  dt->dt_next_name = c->dc_by_name[hn];
  c->dc_by_name[hn] = dt;
  dt->dt_next_id = c->dc_by_id[hi];
  c->dc_by_id[hi] = dt;
  dt->dt_next_root = c->dc_by_root[hr];
  c->dc_by_root[hr] = dt;
}

/* Doubles the buckets when the cache gets crowded; keeps the old table when
 * memory is short (chains just get longer). */
static void db_cache_grow(db_dir_cache_t *c)
{
  db_dir_cache_t n = { 0 };
  n.dc_n_buckets = c->dc_n_buckets * 2;
  n.dc_by_name = calloc(n.dc_n_buckets, sizeof(db_tree_t *));
  n.dc_by_id = calloc(n.dc_n_buckets, sizeof(db_tree_t *));
  n.dc_by_root = calloc(n.dc_n_buckets, sizeof(db_tree_t *));
  if (!n.dc_by_name || !n.dc_by_id || !n.dc_by_root) {
    free(n.dc_by_name);
    free(n.dc_by_id);
    free(n.dc_by_root);
    return;
  }
  for (size_t i = 0; i < c->dc_n_buckets; i++) {
    db_tree_t *dt = c->dc_by_id[i];
    while (dt) {
      db_tree_t *next = dt->dt_next_id;
      db_cache_link(&n, dt);
      dt = next;
    }
  }
  n.dc_count = c->dc_count;
  free(c->dc_by_name);
  free(c->dc_by_id);
  free(c->dc_by_root);
  *c = n;
}

static void db_cache_add(db_dir_cache_t *c, db_tree_t *dt)
{
  if (c->dc_count >= c->dc_n_buckets)
    db_cache_grow(c);
  db_cache_link(c, dt);
  c->dc_count++;
}

static void db_cache_unlink(db_tree_t **head, db_tree_t *dt, size_t next_off)
{
  while (*head != dt)
    head = (db_tree_t **)((char *)*head + next_off);
  *head = *(db_tree_t **)((char *)dt + next_off);
}

static void db_cache_remove(db_dir_cache_t *c, db_tree_t *dt)
{
  size_t m = c->dc_n_buckets - 1;
  db_cache_unlink(&c->dc_by_name[db_hash_name(dt->dt_name, strlen(dt->dt_name)) & m], dt,
                  offsetof(db_tree_t, dt_next_name));
  db_cache_unlink(&c->dc_by_id[hash64_int(dt->dt_id) & m], dt, offsetof(db_tree_t, dt_next_id));
  db_cache_unlink(&c->dc_by_root[hash64_int(dt->dt_root) & m], dt, offsetof(db_tree_t, dt_next_root));
  c->dc_count--;
}

/* The visible (not hidden) tree of that name; db_dir_mx held. */
static db_tree_t *db_cache_find_name(db_dir_cache_t *c, const char *name, size_t len)
{
  db_tree_t *dt = c->dc_by_name[db_hash_name(name, len) & (c->dc_n_buckets - 1)];
  for (; dt; dt = dt->dt_next_name)
    if (!dt->dt_hidden && strlen(dt->dt_name) == len && memcmp(dt->dt_name, name, len) == 0)
      return dt;
  return NULL;
}

db_tree_t *db_dir_find_id(db_t *db, uint64_t id)
{
  mutex_lock(&db->db_dir_mx);
  db_tree_t *dt = db->db_cache.dc_by_id[hash64_int(id) & (db->db_cache.dc_n_buckets - 1)];
  while (dt && dt->dt_id != id)
    dt = dt->dt_next_id;
  mutex_unlock(&db->db_dir_mx);
  return dt;
}

db_tree_t *db_dir_find_bt(db_t *db, bt_tree_t *bt)
{
  pg_no_t root = bt_root(bt);
  mutex_lock(&db->db_dir_mx);
  db_tree_t *dt = db->db_cache.dc_by_root[hash64_int(root) & (db->db_cache.dc_n_buckets - 1)];
  while (dt && dt->dt_root != root)
    dt = dt->dt_next_root;
  mutex_unlock(&db->db_dir_mx);
  return dt;
}

/* ---- the directory tree ------------------------------------------------ */

static void db_dir_value(const db_tree_t *dt, uint8_t out[DB_DIR_VAL_SIZE])
{
  wal_put_u64(out, dt->dt_id);
  wal_put_u32(out + 8, dt->dt_root);
  wal_put_u32(out + 12, dt->dt_flags);
}

static int db_dir_entry_new(db_t *db, const char *name, size_t name_len, uint64_t id, pg_no_t root,
                            uint32_t flags, db_tree_t **out, err_t *e)
{
  db_tree_t *dt = calloc(1, sizeof *dt);
  char *nm = malloc(name_len + 1);
  if (!dt || !nm) {
    free(dt);
    free(nm);
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory for a tree entry");
  }
  memcpy(nm, name, name_len);
  nm[name_len] = 0;
  dt->dt_name = nm;
  dt->dt_id = id;
  dt->dt_root = root;
  dt->dt_flags = flags;
  dt->dt_db = db;
  if (bt_open(db->db_bp, root, &dt->dt_bt, e) != CZ_OK) {
    err_prefix(e, "open tree %s", nm);
    free(nm);
    free(dt);
    return CZ_ERR;
  }
  *out = dt;
  return CZ_OK;
}

static void db_next_id_at_least(db_t *db, uint64_t next)
{
  uint64_t cur = atomic_load(&db->db_next_tree_id);
  while (cur < next && !atomic_compare_exchange_weak(&db->db_next_tree_id, &cur, next))
    ;
}

int db_dir_load(db_t *db, err_t *e)
{
  bt_cursor_t *c;
  if (bt_cursor_open(db->db_dir, &c, e) != CZ_OK)
    return CZ_ERR;
  int rc = bt_seek(c, NULL, 0, BT_FORWARD, e);
  const void *k, *v;
  size_t kl, vl;
  while (rc == CZ_OK && (rc = bt_next(c, &k, &kl, &v, &vl, e)) == CZ_OK) {
    if (vl != DB_DIR_VAL_SIZE || kl == 0 || kl > DB_MAX_TREE_NAME) {
      rc = err_set(e, SQLSTATE_DATA_CORRUPTED, "directory entry with a %zu-byte name and %zu-byte value", kl, vl);
      break;
    }
    const uint8_t *b = v;
    db_tree_t *dt;
    rc = db_dir_entry_new(db, k, kl, wal_get_u64(b), wal_get_u32(b + 8), wal_get_u32(b + 12), &dt, e);
    if (rc != CZ_OK)
      break;
    db_next_id_at_least(db, dt->dt_id + 1);
    mutex_lock(&db->db_dir_mx);
    db_cache_add(&db->db_cache, dt);
    mutex_unlock(&db->db_dir_mx);
  }
  bt_cursor_close(c);
  return rc == BT_END ? CZ_OK : CZ_ERR;
}

int db_dir_create(db_t *db, const char *name, size_t name_len, uint64_t id, uint32_t flags,
                  db_tree_t **out, err_t *e)
{
  if (name_len == 0 || name_len > DB_MAX_TREE_NAME)
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "tree name of %zu bytes (1 to %d)", name_len, DB_MAX_TREE_NAME);
  mutex_lock(&db->db_dir_mx);
  bool exists = db_cache_find_name(&db->db_cache, name, name_len) != NULL;
  mutex_unlock(&db->db_dir_mx);
  if (exists)
    return err_set(e, SQLSTATE_UNIQUE_VIOLATION, "tree %.*s already exists", (int)name_len, name);
  pg_no_t root;
  if (bt_create(db->db_bp, flags, &root, e) != CZ_OK)
    return CZ_ERR;
  db_tree_t *dt;
  if (db_dir_entry_new(db, name, name_len, id, root, flags, &dt, e) != CZ_OK)
    return CZ_ERR; /* an I/O error on the page just made: its empty root page is lost */
  uint8_t val[DB_DIR_VAL_SIZE];
  db_dir_value(dt, val);
  if (bt_insert(db->db_dir, name, name_len, val, sizeof val, e) != CZ_OK) {
    err_t e2;
    bt_drop(dt->dt_bt, &e2);
    free(dt->dt_name);
    free(dt);
    return CZ_ERR;
  }
  db_next_id_at_least(db, id + 1);
  mutex_lock(&db->db_dir_mx);
  db_cache_add(&db->db_cache, dt);
  mutex_unlock(&db->db_dir_mx);
  *out = dt;
  return CZ_OK;
}

int db_dir_hide(db_t *db, db_tree_t *dt, err_t *e)
{
  int rc = bt_delete(db->db_dir, dt->dt_name, strlen(dt->dt_name), NULL, 0, NULL, 0, NULL, e);
  if (rc == BT_NOT_FOUND)
    return err_set(e, SQLSTATE_INTERNAL, "tree %s has no directory entry", dt->dt_name);
  if (rc != CZ_OK)
    return CZ_ERR;
  mutex_lock(&db->db_dir_mx);
  dt->dt_hidden = true;
  mutex_unlock(&db->db_dir_mx);
  return CZ_OK;
}

int db_dir_unhide(db_t *db, db_tree_t *dt, err_t *e)
{
  uint8_t val[DB_DIR_VAL_SIZE];
  db_dir_value(dt, val);
  if (bt_insert(db->db_dir, dt->dt_name, strlen(dt->dt_name), val, sizeof val, e) != CZ_OK)
    return CZ_ERR;
  mutex_lock(&db->db_dir_mx);
  dt->dt_hidden = false;
  dt->dt_hider = NULL;
  mutex_unlock(&db->db_dir_mx);
  return CZ_OK;
}

int db_dir_destroy(db_t *db, db_tree_t *dt, err_t *e)
{
  mutex_lock(&db->db_dir_mx);
  db_cache_remove(&db->db_cache, dt);
  mutex_unlock(&db->db_dir_mx);
  int rc = bt_drop(dt->dt_bt, e);
  if (rc != CZ_OK)
    err_prefix(e, "drop tree %s", dt->dt_name);
  free(dt->dt_name);
  free(dt);
  return rc;
}

void db_dir_bury(db_t *db, db_tree_t *dt)
{
  mutex_lock(&db->db_dir_mx);
  dt->dt_buried = true;
  dt->dt_hider = NULL;
  dt->dt_next_grave = db->db_graveyard;
  db->db_graveyard = dt;
  mutex_unlock(&db->db_dir_mx);
}

void db_dir_free_buried(db_t *db)
{
  mutex_lock(&db->db_dir_mx);
  db_tree_t *dt = db->db_graveyard;
  db->db_graveyard = NULL;
  mutex_unlock(&db->db_dir_mx);
  while (dt) {
    db_tree_t *next = dt->dt_next_grave;
    err_t e;
    err_clear(&e);
    if (db_dir_destroy(db, dt, &e) != CZ_OK)
      log_warn("a dropped tree left pages behind: %s", e.er_msg);
    dt = next;
  }
}

/* ---- the public functions ---------------------------------------------- */

int db_open_tree(db_t *db, const char *name, bt_tree_t **out, err_t *e)
{
  *out = NULL;
  mutex_lock(&db->db_dir_mx);
  db_tree_t *dt = db_cache_find_name(&db->db_cache, name, strlen(name));
  if (dt)
    *out = dt->dt_bt;
  mutex_unlock(&db->db_dir_mx);
  return dt ? CZ_OK : BT_NOT_FOUND;
}

/* A name whose tree another open transaction dropped stays taken until
 * that transaction ends: were both to commit, the log would hold the new
 * tree's CREATE before the old one's DROP, which replay cannot apply. */
static bool db_name_held_by_other(db_t *db, const txn_t *tx, const char *name, size_t len)
{
  db_dir_cache_t *c = &db->db_cache;
  mutex_lock(&db->db_dir_mx);
  db_tree_t *dt = c->dc_by_name[db_hash_name(name, len) & (c->dc_n_buckets - 1)];
  for (; dt; dt = dt->dt_next_name)
    if (dt->dt_hidden && !dt->dt_buried && dt->dt_hider != tx && strlen(dt->dt_name) == len &&
        memcmp(dt->dt_name, name, len) == 0)
      break;
  mutex_unlock(&db->db_dir_mx);
  return dt != NULL;
}

int db_create_tree(txn_t *tx, const char *name, uint32_t bt_flags, bt_tree_t **out, err_t *e)
{
  db_t *db = tx->tx_db;
  if (db_name_held_by_other(db, tx, name, strlen(name)))
    return err_set(e, SQLSTATE_OBJECT_IN_USE, "tree %s is being dropped by another transaction", name);
  uint64_t id = atomic_fetch_add(&db->db_next_tree_id, 1);
  db_tree_t *dt;
  if (db_dir_create(db, name, strlen(name), id, bt_flags, &dt, e) != CZ_OK)
    return CZ_ERR;
  if (!(tx->tx_flags & TXN_BULK)) {
    dt->dt_creator = tx->tx_id;
    uint8_t flags[4];
    wal_put_u32(flags, bt_flags);
    txn_add_op(tx, TXN_OP_CREATE, dt, name, strlen(name), flags, sizeof flags, NULL, 0);
  }
  *out = dt->dt_bt;
  return CZ_OK;
}

int db_drop_tree(txn_t *tx, const char *name, err_t *e)
{
  db_t *db = tx->tx_db;
  mutex_lock(&db->db_dir_mx);
  db_tree_t *dt = db_cache_find_name(&db->db_cache, name, strlen(name));
  mutex_unlock(&db->db_dir_mx);
  if (!dt)
    return BT_NOT_FOUND;
  if (db_dir_hide(db, dt, e) != CZ_OK)
    return CZ_ERR;
  if (tx->tx_flags & TXN_BULK)
    return db_dir_destroy(db, dt, e);
  mutex_lock(&db->db_dir_mx);
  dt->dt_hider = tx;
  mutex_unlock(&db->db_dir_mx);
  txn_add_op(tx, TXN_OP_DROP, dt, name, strlen(name), NULL, 0, NULL, 0);
  return CZ_OK;
}

db_tree_t *db_tree_of(db_t *db, bt_tree_t *t)
{
  return db_dir_find_bt(db, t);
}

uint64_t db_tree_id(const db_tree_t *dt)
{
  return dt->dt_id;
}
