/* txn_snapshot — snapshots for REPEATABLE READ and SERIALIZABLE: commit
 * timestamps, the live snapshots, the version store of prior committed
 * values, and what a snapshot reader sees of a key.
 *
 * Design notes (txn/README.md, "Snapshots"):
 * - Every commit that wrote something takes the next commit timestamp
 *   (db_commit_ts) after its record is durable and before its locks go.
 *   A snapshot is the timestamp read when it was taken: it sees exactly
 *   the commits numbered up to it.
 * - The version store keeps, per (tree, key), the committed values that
 *   commits replaced while a snapshot older than them may live: version
 *   (ts C, the value before C). A snapshot S sees the value before the
 *   first commit after S, else the latest committed state. Whether any
 *   snapshot may live is one atomic (db_n_snap), read by the committer
 *   after it took its timestamp, and raised by a snapshot before it reads
 *   db_commit_ts (both sequentially consistent): when the committer reads
 *   0, every snapshot taken later sees its commit, so nothing is kept.
 * - Deletes: a committed delete of a key an older snapshot may still read
 *   leaves the entry in the tree, "dead" (its newest version says so):
 *   scans still meet it, so every access path (scans, index scans, point
 *   lookups, probes) sees it through the same per-entry check, and no
 *   path has to merge deleted keys from elsewhere. Read-committed readers
 *   skip dead entries; inserters revive them (TXN_OP_REVIVE); the
 *   collector removes them from the tree once no snapshot needs them.
 * - Collection runs when a transaction ends (its snapshot may have been
 *   the oldest) and at checkpoints (no transaction: everything goes). The
 *   horizon is the oldest live snapshot; versions at or below it are
 *   never read again. A dead entry is removed from its tree under its key
 *   lock (taken without waiting; a held key is retried later).
 * - The bound (MaxVersionMem): a commit that takes the store past it
 *   cancels the oldest live snapshot (tx_snap_too_old, one at a time:
 *   the next only after a collection ran), which the horizon then skips,
 *   so the collection at the end of that commit frees what only it
 *   needed. The cancelled transaction fails with 72000 at its next read
 *   or statement (txn_check_snapshot): a read that overlapped the
 *   collection checks the flag after it, and the flag is set before the
 *   horizon moves (sequentially consistent), so no wrong row escapes.
 * - Trees nobody changed while a snapshot lived cost one atomic load
 *   (dt_nvers; dt_ndead for read-committed readers), as the lock table's
 *   dt_nlocked.
 * - Locking: vs_mx guards the snapshot list, the collection list and the
 *   counters of the store; a shard mutex guards a shard's hash chains and
 *   the versions hanging off them. Order: shard mutex, then vs_mx. A page
 *   latch may be held while taking a shard mutex (readers), never the
 *   other way round; no store mutex is held across a B-tree call.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "txn/txn_int.h"

#define VS_SHARDS 64
#define VS_BUCKETS 1024 /* per shard, power of two */

typedef struct vs_ver_s {
  struct vs_ver_s *vv_next;   /* older */
  uint64_t vv_ts;             /* the commit that replaced this value */
  bool vv_exists;             /* the key had an entry before that commit */
  bool vv_dead;               /* that commit deleted the key and left the entry in the tree */
  uint32_t vv_len;
  uint8_t vv_val[];
} vs_ver_t;

typedef struct vs_key_s {
  struct vs_key_s *vk_next;               /* hash chain (shard mutex) */
  struct vs_key_s *vk_lnext, *vk_lprev;   /* collection list, oldest first (vs_mx) */
  bool vk_listed;                         /* on that list (vs_mx) */
  db_tree_t *vk_tree;
  uint64_t vk_hash;
  _Atomic uint64_t vk_newest;             /* ts of the newest version */
  vs_ver_t *vk_vers;                      /* newest first (commits of one key are ordered by its lock) */
  size_t vk_bytes;                        /* accounted memory */
  uint32_t vk_key_len;
  uint8_t vk_key[];
} vs_key_t;

typedef struct vs_shard_s {
  cz_mutex_t vh_mx;
  vs_key_t *vh_b[VS_BUCKETS];
} vs_shard_t;

typedef struct txn_vstore_s {
  vs_shard_t vs_shards[VS_SHARDS];
  cz_mutex_t vs_mx;
  txn_t *vs_snaps;                        /* live snapshots */
  vs_key_t *vs_head, *vs_tail;            /* collection list */
  _Atomic uint64_t vs_nkeys;
  _Atomic uint64_t vs_bytes;
  _Atomic uint64_t vs_warn_at;            /* the next size that is logged (doubles) */
  _Atomic bool vs_cancelling;             /* a snapshot was cancelled over the bound; no
                                             other until a collection has run */
  cz_mutex_t vs_gc_mx;                    /* one collector at a time */
} txn_vstore_t;

/* The store is logged when it passes 64 MB, 128 MB, …: an old snapshot
 * (a client idle in a REPEATABLE READ transaction) holds every version
 * committed since it began, as PostgreSQL's holds back vacuum. */
#define VS_WARN_FIRST (64ull << 20)

int txn_vstore_create(db_t *db, err_t *e)
{
  txn_vstore_t *vs = calloc(1, sizeof *vs);
  if (!vs)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory for the version store");
  for (int i = 0; i < VS_SHARDS; i++)
    mutex_init(&vs->vs_shards[i].vh_mx);
  mutex_init(&vs->vs_mx);
  mutex_init(&vs->vs_gc_mx);
  atomic_init(&vs->vs_warn_at, VS_WARN_FIRST);
  db->db_vstore = vs;
  return CZ_OK;
}

static void vs_free_key(vs_key_t *k)
{
  for (vs_ver_t *v = k->vk_vers, *n; v; v = n) {
    n = v->vv_next;
    free(v);
  }
  free(k);
}

void txn_vstore_free(db_t *db)
{
  txn_vstore_t *vs = db->db_vstore;
  if (!vs)
    return;
  for (int i = 0; i < VS_SHARDS; i++) {
    for (int b = 0; b < VS_BUCKETS; b++)
      for (vs_key_t *k = vs->vs_shards[i].vh_b[b], *n; k; k = n) {
        n = k->vk_next;
        vs_free_key(k);
      }
    mutex_destroy(&vs->vs_shards[i].vh_mx);
  }
  mutex_destroy(&vs->vs_mx);
  mutex_destroy(&vs->vs_gc_mx);
  free(vs);
  db->db_vstore = NULL;
}

static uint64_t vs_hash(const db_tree_t *dt, const void *key, size_t len)
{
  return hash64(key, len, dt->dt_id * 0xc2b2ae3d27d4eb4full + 1);
}

static vs_shard_t *vs_shard(txn_vstore_t *vs, uint64_t h)
{
  return &vs->vs_shards[h & (VS_SHARDS - 1)];
}

static vs_key_t **vs_bucket(vs_shard_t *sh, uint64_t h)
{
  return &sh->vh_b[(h >> 6) & (VS_BUCKETS - 1)];
}

/* Under the shard mutex. */
static vs_key_t *vs_find(vs_shard_t *sh, uint64_t h, const db_tree_t *dt, const void *key,
                         size_t len)
{
  for (vs_key_t *k = *vs_bucket(sh, h); k; k = k->vk_next)
    if (k->vk_hash == h && k->vk_tree == dt && k->vk_key_len == len &&
        memcmp(k->vk_key, key, len) == 0)
      return k;
  return NULL;
}

/* Under vs_mx. */
static void vs_list_append(txn_vstore_t *vs, vs_key_t *k)
{
  k->vk_lnext = NULL;
  k->vk_lprev = vs->vs_tail;
  if (vs->vs_tail)
    vs->vs_tail->vk_lnext = k;
  else
    vs->vs_head = k;
  vs->vs_tail = k;
  k->vk_listed = true;
}

static void vs_list_unlink(txn_vstore_t *vs, vs_key_t *k)
{
  if (!k->vk_listed)
    return;
  if (k->vk_lprev)
    k->vk_lprev->vk_lnext = k->vk_lnext;
  else
    vs->vs_head = k->vk_lnext;
  if (k->vk_lnext)
    k->vk_lnext->vk_lprev = k->vk_lprev;
  else
    vs->vs_tail = k->vk_lprev;
  k->vk_lnext = k->vk_lprev = NULL;
  k->vk_listed = false;
}

static bool vs_key_dead(const vs_key_t *k)
{
  return k->vk_vers && k->vk_vers->vv_dead;
}

static uint64_t vs_horizon(db_t *db);
static void vs_cancel_oldest(db_t *db, uint64_t bytes);

/* Adds version (ts, the value before) of (dt, key). The key is locked by
 * the committer, so versions of one key arrive in timestamp order. */
static int vs_register(db_t *db, db_tree_t *dt, const uint8_t *key, size_t key_len, uint64_t ts,
                       bool exists, const uint8_t *val, size_t len, bool dead, err_t *e)
{
  txn_vstore_t *vs = db->db_vstore;
  uint64_t h = vs_hash(dt, key, key_len);
  vs_shard_t *sh = vs_shard(vs, h);
  vs_ver_t *v = malloc(sizeof *v + len);
  if (!v)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory for the version store");
  v->vv_ts = ts;
  v->vv_exists = exists;
  v->vv_dead = dead;
  v->vv_len = (uint32_t)len;
  if (len)
    memcpy(v->vv_val, val, len);
  mutex_lock(&sh->vh_mx);
  vs_key_t *k = vs_find(sh, h, dt, key, key_len);
  bool fresh = !k;
  if (fresh) {
    k = calloc(1, sizeof *k + key_len);
    if (!k) {
      mutex_unlock(&sh->vh_mx);
      free(v);
      return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory for the version store");
    }
    k->vk_tree = dt;
    k->vk_hash = h;
    k->vk_key_len = (uint32_t)key_len;
    memcpy(k->vk_key, key, key_len);
    k->vk_bytes = sizeof *k + key_len;
    vs_key_t **b = vs_bucket(sh, h);
    k->vk_next = *b;
    *b = k;
  }
  bool was_dead = vs_key_dead(k);
  v->vv_next = k->vk_vers;
  k->vk_vers = v;
  k->vk_bytes += sizeof *v + len;
  atomic_store(&k->vk_newest, ts);
  if (fresh)
    atomic_fetch_add(&dt->dt_nvers, 1);
  if (dead && !was_dead)
    atomic_fetch_add(&dt->dt_ndead, 1);
  else if (!dead && was_dead)
    atomic_fetch_sub(&dt->dt_ndead, 1);
  mutex_lock(&vs->vs_mx);
  vs_list_unlink(vs, k);
  vs_list_append(vs, k);
  mutex_unlock(&vs->vs_mx);
  mutex_unlock(&sh->vh_mx);
  if (fresh)
    atomic_fetch_add(&vs->vs_nkeys, 1);
  uint64_t bytes = atomic_fetch_add(&vs->vs_bytes, sizeof *v + len + (fresh ? sizeof *k + key_len : 0));
  uint64_t max = db->db_cfg.dc_max_version_bytes;
  if (CZ_UNLIKELY(max > 0 && bytes >= max) && !atomic_load(&vs->vs_cancelling))
    vs_cancel_oldest(db, bytes);
  uint64_t warn = atomic_load(&vs->vs_warn_at);
  if (CZ_UNLIKELY(bytes >= warn) && atomic_compare_exchange_strong(&vs->vs_warn_at, &warn, warn * 2)) {
    uint64_t oldest;
    mutex_lock(&vs->vs_mx);
    oldest = vs_horizon(db);
    mutex_unlock(&vs->vs_mx);
    log_warn("the version store holds %llu MB for snapshots: the oldest live snapshot is %llu "
             "commits old",
             (unsigned long long)(bytes >> 20),
             (unsigned long long)(atomic_load(&db->db_commit_ts) - oldest));
  }
  return CZ_OK;
}

bool txn_snap_dead(db_tree_t *dt, const void *key, size_t key_len)
{
  txn_vstore_t *vs = dt->dt_db->db_vstore;
  uint64_t h = vs_hash(dt, key, key_len);
  vs_shard_t *sh = vs_shard(vs, h);
  mutex_lock(&sh->vh_mx);
  vs_key_t *k = vs_find(sh, h, dt, key, key_len);
  bool dead = k && vs_key_dead(k);
  mutex_unlock(&sh->vh_mx);
  return dead;
}

bool txn_snap_changed(const txn_t *tx, db_tree_t *dt, const void *key, size_t key_len)
{
  if (!tx->tx_has_snap || atomic_load(&dt->dt_nvers) == 0)
    return false;
  txn_vstore_t *vs = dt->dt_db->db_vstore;
  uint64_t h = vs_hash(dt, key, key_len);
  vs_shard_t *sh = vs_shard(vs, h);
  mutex_lock(&sh->vh_mx);
  vs_key_t *k = vs_find(sh, h, dt, key, key_len);
  bool changed = k && atomic_load(&k->vk_newest) > tx->tx_snap_ts;
  mutex_unlock(&sh->vh_mx);
  return changed;
}

txn_vis_t txn_snap_read_store(uint64_t snap, db_tree_t *dt, const void *key, size_t key_len,
                              arena_t *a, const void **val, size_t *val_len, txn_vis_t cand)
{
  if (atomic_load(&dt->dt_nvers) == 0)
    return cand;
  txn_vstore_t *vs = dt->dt_db->db_vstore;
  uint64_t h = vs_hash(dt, key, key_len);
  vs_shard_t *sh = vs_shard(vs, h);
  txn_vis_t r = cand;
  mutex_lock(&sh->vh_mx);
  vs_key_t *k = vs_find(sh, h, dt, key, key_len);
  if (k) {
    const vs_ver_t *first_after = NULL;
    for (const vs_ver_t *v = k->vk_vers; v && v->vv_ts > snap; v = v->vv_next)
      first_after = v;
    if (first_after) {
      if (!first_after->vv_exists) {
        r = TXN_VIS_ABSENT;
      } else {
        uint8_t *c = NULL;
        if (first_after->vv_len) {
          c = arena_alloc(a, first_after->vv_len);
          memcpy(c, first_after->vv_val, first_after->vv_len);
        }
        *val = c;
        *val_len = first_after->vv_len;
        r = TXN_VIS_PREIMAGE;
      }
    } else if (vs_key_dead(k)) {
      r = TXN_VIS_ABSENT;
    }
  }
  mutex_unlock(&sh->vh_mx);
  return r;
}

int txn_tree_lookup(db_tree_t *dt, const void *key, size_t key_len, void *buf, size_t cap,
                    size_t *val_len, bool *dead, err_t *e)
{
  if (dead)
    *dead = false;
  int rc = bt_lookup(dt->dt_bt, key, key_len, buf, cap, val_len, e);
  if (rc == CZ_OK && CZ_UNLIKELY(atomic_load(&dt->dt_ndead) > 0) &&
      txn_snap_dead(dt, key, key_len)) {
    if (dead)
      *dead = true;
    return BT_NOT_FOUND;
  }
  return rc;
}

int txn_snap_revive(txn_t *tx, db_tree_t *dt, const void *key, size_t key_len, const void *val,
                    size_t val_len, err_t *e)
{
  uint8_t old[BT_MAX_ROW];
  size_t old_len = 0;
  int rc = bt_update(dt->dt_bt, key, key_len, val, val_len, old, sizeof old, &old_len, e);
  if (rc == BT_NOT_FOUND)
    return err_set(e, SQLSTATE_INTERNAL, "a dead entry vanished under its lock");
  if (rc != CZ_OK)
    return CZ_ERR;
  txn_add_op(tx, TXN_OP_REVIVE, dt, key, key_len, val, val_len, old, CZ_MIN(old_len, sizeof old));
  return CZ_OK;
}

/* ---- snapshots ----------------------------------------------------------- */

int txn_set_isolation(txn_t *tx, txn_iso_t iso, err_t *e)
{
  if (tx->tx_flags & TXN_BULK)
    return err_set(e, SQLSTATE_INTERNAL, "a bulk transaction has no isolation level");
  if (tx->tx_has_snap || tx->tx_n_ops || tx->tx_locks)
    return err_set(e, SQLSTATE_ACTIVE_TX,
                   "SET TRANSACTION ISOLATION LEVEL must be called before any query");
  tx->tx_iso = (uint8_t)iso;
  if (iso == TXN_ISO_READ_COMMITTED)
    return CZ_OK;
  db_t *db = tx->tx_db;
  txn_vstore_t *vs = db->db_vstore;
  mutex_lock(&vs->vs_mx);
  /* Raised before the timestamp is read: a committer that reads 0 after
   * taking its timestamp numbered itself before this snapshot. */
  atomic_fetch_add(&db->db_n_snap, 1);
  tx->tx_snap_ts = atomic_load(&db->db_commit_ts);
  atomic_store(&tx->tx_snap_too_old, false);
  tx->tx_has_snap = true;
  tx->tx_snap_prev = NULL;
  tx->tx_snap_next = vs->vs_snaps;
  if (vs->vs_snaps)
    vs->vs_snaps->tx_snap_prev = tx;
  vs->vs_snaps = tx;
  mutex_unlock(&vs->vs_mx);
  if (iso == TXN_ISO_SERIALIZABLE)
    return txn_ssi_begin(tx, e);
  return CZ_OK;
}

txn_iso_t txn_isolation(const txn_t *tx)
{
  return (txn_iso_t)tx->tx_iso;
}

/* The oldest live snapshot not cancelled, or the newest timestamp when
 * none lives: versions at or below it are never read again. Under vs_mx. */
static uint64_t vs_horizon(db_t *db)
{
  txn_vstore_t *vs = db->db_vstore;
  uint64_t h = atomic_load(&db->db_commit_ts);
  for (txn_t *t = vs->vs_snaps; t; t = t->tx_snap_next)
    if (t->tx_snap_ts < h && !atomic_load(&t->tx_snap_too_old))
      h = t->tx_snap_ts;
  return h;
}

/* The store passed MaxVersionMem: the oldest live snapshot is cancelled
 * ("snapshot too old"), so that the next collection frees what only it
 * needed. */
static void vs_cancel_oldest(db_t *db, uint64_t bytes)
{
  txn_vstore_t *vs = db->db_vstore;
  bool no = false;
  if (!atomic_compare_exchange_strong(&vs->vs_cancelling, &no, true))
    return;
  mutex_lock(&vs->vs_mx);
  txn_t *oldest = NULL;
  for (txn_t *t = vs->vs_snaps; t; t = t->tx_snap_next)
    if (!atomic_load(&t->tx_snap_too_old) && (!oldest || t->tx_snap_ts < oldest->tx_snap_ts))
      oldest = t;
  if (oldest)
    atomic_store(&oldest->tx_snap_too_old, true);
  uint64_t age = oldest ? atomic_load(&db->db_commit_ts) - oldest->tx_snap_ts : 0;
  mutex_unlock(&vs->vs_mx);
  if (!oldest) {
    atomic_store(&vs->vs_cancelling, false);
    return;
  }
  log_warn("the version store holds %llu MB, past MaxVersionMem: the oldest snapshot (%llu "
           "commits old, transaction %llu) is cancelled (snapshot too old)",
           (unsigned long long)(bytes >> 20), (unsigned long long)age,
           (unsigned long long)oldest->tx_id);
}

int txn_check_snapshot(const txn_t *tx, err_t *e)
{
  if (CZ_LIKELY(!tx || !tx->tx_has_snap) || CZ_LIKELY(!atomic_load(&tx->tx_snap_too_old)))
    return CZ_OK;
  return err_set(e, SQLSTATE_SNAPSHOT_TOO_OLD,
                 "snapshot too old: the version store passed MaxVersionMem while this "
                 "transaction's snapshot was the oldest");
}

/* Frees k (off the list, out of its chain). Under the shard mutex. */
static void vs_drop_key(txn_vstore_t *vs, vs_shard_t *sh, vs_key_t *k)
{
  vs_key_t **pp = vs_bucket(sh, k->vk_hash);
  while (*pp && *pp != k)
    pp = &(*pp)->vk_next;
  if (*pp)
    *pp = k->vk_next;
  if (vs_key_dead(k))
    atomic_fetch_sub(&k->vk_tree->dt_ndead, 1);
  atomic_fetch_sub(&k->vk_tree->dt_nvers, 1);
  atomic_fetch_sub(&vs->vs_nkeys, 1);
  atomic_fetch_sub(&vs->vs_bytes, k->vk_bytes);
  vs_free_key(k);
}

#define VS_GC_BATCH 256

/* Collects the keys whose every version is at or below the horizon. tx
 * (NULL at a checkpoint: nobody else is active) takes the key locks that
 * the removal of dead entries needs, without waiting; the caller
 * releases them. A key whose dead entry cannot be removed now goes back
 * to the list. */
static int vs_collect(db_t *db, txn_t *tx, err_t *e)
{
  txn_vstore_t *vs = db->db_vstore;
  int rc = CZ_OK;
  /* Ending transactions do not queue behind a running collection: what it
   * leaves, a later end or the checkpoint collects. */
  if (tx && !mutex_trylock(&vs->vs_gc_mx))
    return CZ_OK;
  if (!tx)
    mutex_lock(&vs->vs_gc_mx);
  vs_key_t *batch[VS_GC_BATCH];
  /* Keys that went back to the list this round: stop when met again. */
  vs_key_t *requeued_first = NULL;
  for (;;) {
    int n = 0;
    mutex_lock(&vs->vs_mx);
    uint64_t horizon = vs_horizon(db);
    while (n < VS_GC_BATCH && vs->vs_head && vs->vs_head != requeued_first &&
           atomic_load(&vs->vs_head->vk_newest) <= horizon) {
      vs_key_t *k = vs->vs_head;
      vs_list_unlink(vs, k);
      batch[n++] = k;
    }
    mutex_unlock(&vs->vs_mx);
    if (n == 0)
      break;
    for (int i = 0; i < n; i++) {
      vs_key_t *k = batch[i];
      vs_shard_t *sh = vs_shard(vs, k->vk_hash);
      mutex_lock(&sh->vh_mx);
      /* A commit may have added a version (and listed k again) meanwhile. */
      if (k->vk_listed) {
        mutex_unlock(&sh->vh_mx);
        continue;
      }
      if (!vs_key_dead(k)) {
        vs_drop_key(vs, sh, k);
        mutex_unlock(&sh->vh_mx);
        continue;
      }
      db_tree_t *dt = k->vk_tree;
      mutex_unlock(&sh->vh_mx);
      /* A dead entry leaves its tree under its key lock: an inserter
       * reviving it or a reader checking it cannot be in between. A tree
       * being dropped keeps it while the DROP may still roll back; at a
       * checkpoint (nobody active) a hidden tree's DROP has committed and
       * the tree goes whole: only the version leaves. */
      bool hidden = atomic_load(&dt->dt_hidden);
      bool mine = tx ? !hidden && txn_lock_try(tx, dt, k->vk_key, k->vk_key_len) : true;
      if (mine && !hidden) {
        int d = bt_delete(dt->dt_bt, k->vk_key, k->vk_key_len, NULL, 0, NULL, 0, NULL, e);
        if (d == CZ_ERR) {
          rc = CZ_ERR;
          mine = false;
        }
      }
      mutex_lock(&sh->vh_mx);
      if (mine && !k->vk_listed) {
        vs_drop_key(vs, sh, k);
      } else if (!k->vk_listed) {
        mutex_lock(&vs->vs_mx);
        vs_list_append(vs, k);
        if (!requeued_first)
          requeued_first = k;
        mutex_unlock(&vs->vs_mx);
      }
      mutex_unlock(&sh->vh_mx);
    }
    if (rc != CZ_OK)
      break;
  }
  if (atomic_load(&vs->vs_bytes) < VS_WARN_FIRST / 2)
    atomic_store(&vs->vs_warn_at, VS_WARN_FIRST);
  atomic_store(&vs->vs_cancelling, false);  /* the store is what it is now: judge it again */
  mutex_unlock(&vs->vs_gc_mx);
  return rc;
}

void txn_snap_end(txn_t *tx)
{
  db_t *db = tx->tx_db;
  txn_vstore_t *vs = db->db_vstore;
  if (tx->tx_sx)
    txn_ssi_end(tx);
  if (tx->tx_has_snap) {
    mutex_lock(&vs->vs_mx);
    if (tx->tx_snap_prev)
      tx->tx_snap_prev->tx_snap_next = tx->tx_snap_next;
    else
      vs->vs_snaps = tx->tx_snap_next;
    if (tx->tx_snap_next)
      tx->tx_snap_next->tx_snap_prev = tx->tx_snap_prev;
    atomic_fetch_sub(&db->db_n_snap, 1);
    mutex_unlock(&vs->vs_mx);
    tx->tx_has_snap = false;
  }
  if (atomic_load(&vs->vs_nkeys) == 0)
    return;
  err_t e;
  err_clear(&e);
  if (vs_collect(db, tx, &e) != CZ_OK)
    log_warn("version store collection: %s", e.er_msg);
  txn_lock_release_all(tx); /* the key locks the collection took */
}

int txn_snap_purge(db_t *db, err_t *e)
{
  if (!db->db_vstore || atomic_load(&db->db_vstore->vs_nkeys) == 0)
    return CZ_OK;
  return vs_collect(db, NULL, e);
}

/* ---- commit -------------------------------------------------------------- */

int txn_snap_commit(txn_t *tx, bool deletes, err_t *e)
{
  db_t *db = tx->tx_db;
  atomic_store(&tx->tx_commit_ts, TXN_TS_PENDING);
  uint64_t c = atomic_fetch_add(&db->db_commit_ts, 1) + 1;
  atomic_store(&tx->tx_commit_ts, c);
  bool keep = atomic_load(&db->db_n_snap) > 0;
  int rc = CZ_OK;
  /* Read committed alone (no snapshot, an empty store, no delete): the
   * commit costs the two atomics above. */
  if (!keep && !deletes && atomic_load(&db->db_vstore->vs_nkeys) == 0)
    goto done;
  for (txn_lock_t *lk = tx->tx_locks; lk; lk = lk->lk_tx_next) {
    if (lk->lk_cmd == 0 && !lk->lk_deleted)
      continue; /* locked, never changed */
    db_tree_t *dt = lk->lk_tree;
    if (dt->dt_creator == tx->tx_id || (atomic_load(&dt->dt_hidden) && dt->dt_hider == tx))
      continue; /* a tree tx created (nobody older can name it) or dropped */
    bool existed = lk->lk_pre_state == TXN_PRE_VALUE;
    /* Without a snapshot the store still hears of keys it holds: a
     * revived dead entry must stop being dead. */
    bool reg = lk->lk_pre_state != TXN_PRE_NONE && (keep || atomic_load(&dt->dt_nvers) > 0);
    bool leave_dead = reg && keep && lk->lk_deleted && existed;
    if (reg && vs_register(db, dt, lk->lk_key, lk->lk_key_len, c, existed, lk->lk_pre,
                           existed ? lk->lk_pre_len : 0, leave_dead, e) != CZ_OK) {
      rc = CZ_ERR;
      leave_dead = false;
    }
    if (lk->lk_deleted && !leave_dead) {
      int d = bt_delete(dt->dt_bt, lk->lk_key, lk->lk_key_len, NULL, 0, NULL, 0, NULL, e);
      if (d != CZ_OK && rc == CZ_OK)
        rc = d == BT_NOT_FOUND
                 ? err_set(e, SQLSTATE_INTERNAL, "commit: a row deleted by the transaction is gone")
                 : CZ_ERR;
    }
  }
done:
  if (tx->tx_sx && txn_ssi_commit(tx, e) != CZ_OK && rc == CZ_OK)
    rc = CZ_ERR;
  return rc;
}

void txn_snap_stats(db_t *db, db_stats_t *out)
{
  txn_vstore_t *vs = db->db_vstore;
  if (!vs)
    return;
  out->ds_versions = atomic_load(&vs->vs_nkeys);
  out->ds_version_bytes = atomic_load(&vs->vs_bytes);
  out->ds_snapshots = atomic_load(&db->db_n_snap);
}

bool txn_tree_plain(const txn_t *self, const db_tree_t *dt)
{
  db_tree_t *t = (db_tree_t *)dt;
  if (atomic_load(&t->dt_nlocked) != 0)
    return false;
  return atomic_load(self && self->tx_has_snap ? &t->dt_nvers : &t->dt_ndead) == 0;
}

bool txn_snapshot_changed(const txn_t *tx, db_tree_t *dt, const void *key, size_t key_len)
{
  return tx && txn_snap_changed(tx, dt, key, key_len);
}
