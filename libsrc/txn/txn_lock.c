/* txn_lock — row (key) locks, lock waits with deadlock detection, and the
 * read-committed view readers get of locked keys.
 *
 * Design notes (txn/README.md, "Row locks and read committed"):
 * - The lock table is a hash of (tree, key) -> txn_lock_t split in shards,
 *   each with its own mutex. Entries live in the owner's arena and are
 *   unlinked when the owner ends: no allocation besides the arena.
 * - An entry holds the key's committed pre-image once the owner changes
 *   the key; a reader meeting another's entry sees the pre-image (or
 *   nothing for an uncommitted insert). Deletes of locked keys stay in the
 *   tree (marked lk_deleted) until the owner's commit applies them, so
 *   readers keep seeing the committed row without merging anything.
 * - Waits: one global wait mutex and condition. A waiter records whom it
 *   waits for (tx_waiting_for) under the wait mutex; following that chain
 *   back to the requester is a deadlock (40P01, the requester gives up).
 *   An ending transaction broadcasts only when someone waits.
 * - Two modes: exclusive (every writer, FOR UPDATE) and shared (FOR
 *   SHARE). A key has either one exclusive entry or any number of shared
 *   ones (one per owner, side by side in the chain); the owner's own entry
 *   is found by owner, the conflicting ones by mode. A waiter names one
 *   conflicting holder in tx_waiting_for but tests every one of them for
 *   a cycle each time it looks (at least every slice), so a cycle through
 *   a sharer it does not name is still found.
 * - lock_timeout: a waiter gives up with 55P03 once it has waited longer
 *   than its transaction's setting; NOWAIT callers get TXN_BUSY instead
 *   of waiting at all.
 * - Order: wait mutex, then a shard mutex. Readers take a shard mutex
 *   while holding a page latch; nobody takes a latch under a shard mutex.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "txn/txn_int.h"

#define LK_SHARDS 64
#define LK_BUCKETS 1024 /* per shard at start, power of two; doubles as it fills */
#define LK_WAIT_SLICE_US 100000
#define LK_AHEAD 8      /* txn_lock_release_all prefetches this many locks ahead */

typedef struct lk_shard_s {
  cz_mutex_t ls_mx;
  txn_lock_t **ls_b;          /* ls_nb chains (heap; a bulk insert grows it) */
  uint32_t ls_nb;             /* power of two */
  uint32_t ls_n;              /* locks in the shard */
} lk_shard_t;

typedef struct txn_locktab_s {
  lk_shard_t lt_shards[LK_SHARDS];
  cz_mutex_t lt_wait_mx;
  cz_cond_t lt_wait_cond;
  _Atomic int lt_waiters;
  txn_t *lt_waiting;          /* transactions with tx_waiting_for set (wait mutex) */
} txn_locktab_t;

/* Under the wait mutex. */
static void lk_wait_link(txn_locktab_t *lt, txn_t *tx, txn_t *holder)
{
  tx->tx_waiting_for = holder;
  tx->tx_wait_prev = NULL;
  tx->tx_wait_next = lt->lt_waiting;
  if (lt->lt_waiting)
    lt->lt_waiting->tx_wait_prev = tx;
  lt->lt_waiting = tx;
}

static void lk_wait_unlink(txn_locktab_t *lt, txn_t *tx)
{
  if (tx->tx_wait_prev)
    tx->tx_wait_prev->tx_wait_next = tx->tx_wait_next;
  else if (lt->lt_waiting == tx)
    lt->lt_waiting = tx->tx_wait_next;
  if (tx->tx_wait_next)
    tx->tx_wait_next->tx_wait_prev = tx->tx_wait_prev;
  tx->tx_wait_next = tx->tx_wait_prev = NULL;
  tx->tx_waiting_for = NULL;
}

int txn_locktab_create(db_t *db, err_t *e)
{
  txn_locktab_t *lt = arena_zalloc(db->db_arena, sizeof *lt);
  for (int i = 0; i < LK_SHARDS; i++) {
    lt->lt_shards[i].ls_nb = LK_BUCKETS;
    lt->lt_shards[i].ls_b = calloc(LK_BUCKETS, sizeof(txn_lock_t *));
    if (!lt->lt_shards[i].ls_b) {
      while (i-- > 0) {
        mutex_destroy(&lt->lt_shards[i].ls_mx);
        free(lt->lt_shards[i].ls_b);
      }
      return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory for the lock table");
    }
    mutex_init(&lt->lt_shards[i].ls_mx);
  }
  mutex_init(&lt->lt_wait_mx);
  cond_init(&lt->lt_wait_cond);
  db->db_locks = lt;
  return CZ_OK;
}

void txn_locktab_free(db_t *db)
{
  txn_locktab_t *lt = db->db_locks;
  if (!lt)
    return;
  for (int i = 0; i < LK_SHARDS; i++) {
    mutex_destroy(&lt->lt_shards[i].ls_mx);
    free(lt->lt_shards[i].ls_b);
  }
  mutex_destroy(&lt->lt_wait_mx);
  cond_destroy(&lt->lt_wait_cond);
  db->db_locks = NULL;
}

bool txn_locks_tree(const txn_t *tx, const db_tree_t *dt)
{
  return !(tx->tx_flags & TXN_BULK) && (dt->dt_flags & BT_UNIQUE);
}

static uint64_t lk_hash(const db_tree_t *dt, const void *key, size_t len)
{
  return hash64(key, len, dt->dt_id * 0x9e3779b97f4a7c15ull);
}

static lk_shard_t *lk_shard(txn_locktab_t *lt, uint64_t h)
{
  return &lt->lt_shards[h & (LK_SHARDS - 1)];
}

static txn_lock_t **lk_bucket(lk_shard_t *sh, uint64_t h)
{
  return &sh->ls_b[(h >> 6) & (sh->ls_nb - 1)];
}

/* A hint: brings the chain slot of key hash h toward the cache a few rows
 * before the lookup. A
 * transaction locking a million keys otherwise spends most of its lock
 * work in cache and TLB misses on the table.
 * It takes no lock: its reads of ls_b and ls_nb race with lk_grow on
 * purpose (the GCC atomic builtins keep them defined), and the address it
 * computes is only prefetched, which never faults, even if lk_grow has
 * just freed that array. */
void txn_lock_prefetch_slot(txn_t *tx, uint64_t h)
{
  lk_shard_t *sh = lk_shard(tx->tx_db->db_locks, h);
  txn_lock_t **b = __atomic_load_n(&sh->ls_b, __ATOMIC_RELAXED);
  uint32_t nb = __atomic_load_n(&sh->ls_nb, __ATOMIC_RELAXED);
  __builtin_prefetch(&b[(h >> 6) & (nb - 1)]);
}

static bool lk_is(const txn_lock_t *lk, uint64_t h, const db_tree_t *dt, const void *key,
                  size_t len)
{
  return lk->lk_hash == h && lk->lk_tree == dt && lk->lk_key_len == len &&
         memcmp(lk->lk_key, key, len) == 0;
}

/* PostgreSQL's row lock conflict table (txn_lock_mode_t), [held][asked]. */
static const bool lk_conflict_tab[5][5] = {
    [TXN_LOCK_KEY_SHARE] = {[TXN_LOCK_EXCLUSIVE] = true},
    [TXN_LOCK_SHARED] = {[TXN_LOCK_NO_KEY_UPDATE] = true, [TXN_LOCK_EXCLUSIVE] = true},
    [TXN_LOCK_NO_KEY_UPDATE] = {[TXN_LOCK_SHARED] = true, [TXN_LOCK_NO_KEY_UPDATE] = true,
                                [TXN_LOCK_EXCLUSIVE] = true},
    [TXN_LOCK_EXCLUSIVE] = {[TXN_LOCK_KEY_SHARE] = true, [TXN_LOCK_SHARED] = true,
                            [TXN_LOCK_NO_KEY_UPDATE] = true, [TXN_LOCK_EXCLUSIVE] = true},
};

static bool lk_conflicts(uint8_t held, txn_lock_mode_t asked)
{
  return lk_conflict_tab[held][asked];
}

/* Under the shard mutex: owner's entry for the key (NULL: none). */
static txn_lock_t *lk_find_own(lk_shard_t *sh, uint64_t h, const db_tree_t *dt, const void *key,
                               size_t len, const txn_t *owner)
{
  for (txn_lock_t *lk = *lk_bucket(sh, h); lk; lk = lk->lk_next)
    if (lk->lk_owner == owner && lk_is(lk, h, dt, key, len))
      return lk;
  return NULL;
}

/* Under the shard mutex, one walk of the chain (the writers' hot path):
 * tx's own entry for the key (*own, NULL none) and the first entry of
 * another owner that conflicts with mode (the return, NULL none). */
static txn_lock_t *lk_scan(lk_shard_t *sh, uint64_t h, const db_tree_t *dt, const void *key,
                           size_t len, const txn_t *tx, txn_lock_mode_t mode, txn_lock_t **own)
{
  txn_lock_t *conflict = NULL;
  *own = NULL;
  for (txn_lock_t *lk = *lk_bucket(sh, h); lk; lk = lk->lk_next) {
    if (lk->lk_hash != h || !lk_is(lk, h, dt, key, len))
      continue;
    if (lk->lk_owner == tx)
      *own = lk;
    else if (!conflict && lk_conflicts(lk->lk_mode, mode))
      conflict = lk;
  }
  return conflict;
}

/* Under the shard mutex: the next entry after `after` (NULL: from the
 * start) of another owner than tx that conflicts with mode. */
static txn_lock_t *lk_next_conflict(lk_shard_t *sh, uint64_t h, const db_tree_t *dt, const void *key,
                                    size_t len, const txn_t *tx, txn_lock_mode_t mode,
                                    txn_lock_t *after)
{
  for (txn_lock_t *lk = after ? after->lk_next : *lk_bucket(sh, h); lk; lk = lk->lk_next)
    if (lk->lk_owner != tx && lk_conflicts(lk->lk_mode, mode) && lk_is(lk, h, dt, key, len))
      return lk;
  return NULL;
}

/* Doubles the shard's chains when they average more than half a lock (a
 * transaction inserting a million rows holds a million locks; every entry
 * a lookup of a new key walks past is a cache miss). Under the shard
 * mutex; on allocation failure the chains just stay longer. ls_b and
 * ls_nb are stored atomically for txn_lock_prefetch_slot's unlocked reads. */
static void lk_grow(lk_shard_t *sh)
{
  uint32_t nb = sh->ls_nb * 2;
  txn_lock_t **b = calloc(nb, sizeof *b);
  if (!b)
    return;
  for (uint32_t i = 0; i < sh->ls_nb; i++)
    for (txn_lock_t *lk = sh->ls_b[i], *next; lk; lk = next) {
      next = lk->lk_next;
      txn_lock_t **p = &b[(lk->lk_hash >> 6) & (nb - 1)];
      lk->lk_next = *p;
      *p = lk;
    }
  free(sh->ls_b);
  __atomic_store_n(&sh->ls_b, b, __ATOMIC_RELAXED);
  __atomic_store_n(&sh->ls_nb, nb, __ATOMIC_RELAXED);
}

static txn_lock_t *lk_new(txn_t *tx, lk_shard_t *sh, uint64_t h, db_tree_t *dt, const void *key,
                          size_t len, txn_lock_mode_t mode)
{
  txn_lock_t *lk = arena_zalloc(tx->tx_arena, sizeof *lk + len);
  lk->lk_key = (uint8_t *)(lk + 1);
  memcpy(lk->lk_key, key, len);
  lk->lk_key_len = (uint32_t)len;
  lk->lk_hash = h;
  lk->lk_tree = dt;
  lk->lk_owner = tx;
  lk->lk_mode = (uint8_t)mode;
  if (++sh->ls_n > sh->ls_nb / 2)
    lk_grow(sh);
  txn_lock_t **b = lk_bucket(sh, h);
  lk->lk_next = *b;
  *b = lk;
  lk->lk_tx_next = tx->tx_locks;
  tx->tx_locks = lk;
  atomic_fetch_add(&dt->dt_nlocked, 1);
  return lk;
}

/* Whether following waits-for from holder leads back to tx. Under the wait
 * mutex; holder is kept alive by the shard mutex the caller holds, every
 * other transaction in the chain is a waiter whose holder has not ended
 * (an ending holder clears the pointers to it under the wait mutex). */
static bool lk_would_deadlock(const txn_t *tx, const txn_t *holder)
{
  int guard = 0;
  for (const txn_t *x = holder; x && guard < 1000000; x = x->tx_waiting_for, guard++)
    if (x == tx)
      return true;
  return false;
}

/* The committed value the holder recorded, copied (for "changed" later). */
typedef struct lk_seen_s {
  bool ls_have;
  uint8_t ls_state;
  uint8_t *ls_val;
  uint32_t ls_len;
} lk_seen_t;

static void lk_remember(txn_t *tx, const txn_lock_t *lk, lk_seen_t *seen)
{
  /* A holder that only locked (PRE_NONE, or a sharer) may still change
   * the key, or hand it to one that does: look again until a pre-image
   * is known. */
  if (seen->ls_have && seen->ls_state != TXN_PRE_NONE)
    return;
  seen->ls_have = true;
  seen->ls_state = lk->lk_pre_state;
  seen->ls_len = lk->lk_pre_len;
  seen->ls_val = NULL;
  if (lk->lk_pre_state == TXN_PRE_VALUE && lk->lk_pre_len) {
    seen->ls_val = arena_alloc(tx->tx_arena, lk->lk_pre_len);
    memcpy(seen->ls_val, lk->lk_pre, lk->lk_pre_len);
  }
}

/* After the wait: did the holder commit a change? Compare the tree's value
 * now with the holder's pre-image. A holder that only locked (PRE_NONE)
 * changed nothing. */
static int lk_check_changed(txn_t *tx, db_tree_t *dt, const void *key, size_t len,
                            const lk_seen_t *seen, bool *changed, err_t *e)
{
  *changed = false;
  if (!seen->ls_have || seen->ls_state == TXN_PRE_NONE)
    return CZ_OK;
  (void)tx;
  uint8_t buf[BT_MAX_ROW];
  size_t vlen = 0;
  int rc = txn_tree_lookup(dt, key, len, buf, sizeof buf, &vlen, NULL, e);
  if (rc == CZ_ERR)
    return CZ_ERR;
  bool exists = rc == CZ_OK;
  if (seen->ls_state == TXN_PRE_ABSENT)
    *changed = exists;
  else
    *changed = !exists || vlen != seen->ls_len || memcmp(buf, seen->ls_val, vlen) != 0;
  return CZ_OK;
}

static int lk_timeout(err_t *e)
{
  return err_set(e, SQLSTATE_LOCK_NOT_AVAILABLE, "canceling statement due to lock timeout");
}

int txn_lock_acquire(txn_t *tx, db_tree_t *dt, const void *key, size_t key_len,
                     txn_lock_t **out, bool *waited, bool *changed, err_t *e)
{
  return txn_lock_acquire_mode(tx, dt, key, key_len, TXN_LOCK_EXCLUSIVE, false, out, waited,
                               changed, e);
}

static int lk_acquire(txn_t *tx, db_tree_t *dt, const void *key, size_t key_len, uint64_t h,
                      txn_lock_mode_t mode, bool nowait, txn_lock_t **out, bool *waited,
                      bool *changed, err_t *e);

int txn_lock_acquire_mode(txn_t *tx, db_tree_t *dt, const void *key, size_t key_len,
                          txn_lock_mode_t mode, bool nowait, txn_lock_t **out, bool *waited,
                          bool *changed, err_t *e)
{
  return lk_acquire(tx, dt, key, key_len, lk_hash(dt, key, key_len), mode, nowait, out, waited,
                    changed, e);
}

uint64_t txn_lock_hash(const db_tree_t *dt, const void *key, size_t key_len)
{
  return lk_hash(dt, key, key_len);
}


int txn_lock_acquire_hashed(txn_t *tx, db_tree_t *dt, const void *key, size_t key_len, uint64_t h,
                            txn_lock_t **out, err_t *e)
{
  return lk_acquire(tx, dt, key, key_len, h, TXN_LOCK_EXCLUSIVE, false, out, NULL, NULL, e);
}

static int lk_acquire(txn_t *tx, db_tree_t *dt, const void *key, size_t key_len, uint64_t h,
                      txn_lock_mode_t mode, bool nowait, txn_lock_t **out, bool *waited,
                      bool *changed, err_t *e)
{
  txn_locktab_t *lt = tx->tx_db->db_locks;
  lk_shard_t *sh = lk_shard(lt, h);
  lk_seen_t seen = { 0 };
  bool did_wait = false;
  uint64_t wait_start = 0;
  for (;;) {
    mutex_lock(&sh->ls_mx);
    txn_lock_t *lk;
    if (!lk_scan(sh, h, dt, key, key_len, tx, mode, &lk)) {
      if (!lk)
        lk = lk_new(tx, sh, h, dt, key, key_len, mode);
      else if (mode > lk->lk_mode)
        lk->lk_mode = (uint8_t)mode;  /* the upgrade: no holder it conflicts with is left */
      mutex_unlock(&sh->ls_mx);
      *out = lk;
      if (waited)
        *waited = did_wait;
      bool ch = false;
      if (did_wait && lk_check_changed(tx, dt, key, key_len, &seen, &ch, e) != CZ_OK)
        return CZ_ERR;
      if (changed)
        *changed = ch;
      return CZ_OK;
    }
    mutex_unlock(&sh->ls_mx);
    if (nowait)
      return TXN_BUSY;

    /* lock_timeout: measured from the first wait of this call */
    int64_t limit_ms = tx->tx_lock_timeout ? *tx->tx_lock_timeout : 0;
    uint64_t slice_us = LK_WAIT_SLICE_US;
    if (limit_ms > 0) {
      uint64_t now = time_now_ns();
      if (!wait_start)
        wait_start = now;
      uint64_t limit_ns = (uint64_t)limit_ms * 1000000ull, spent = now - wait_start;
      if (spent >= limit_ns)
        return lk_timeout(e);
      if ((limit_ns - spent) / 1000 + 1 < slice_us)
        slice_us = (limit_ns - spent) / 1000 + 1;
    }

    /* Held by another: wait for it to end. The holder may be a session
     * waiting for its client's next message, so tell this thread's pool
     * (before taking the wait mutex: the pool may start a thread). */
    thread_block_begin();
    mutex_lock(&lt->lt_wait_mx);
    atomic_fetch_add(&lt->lt_waiters, 1);
    mutex_lock(&sh->ls_mx);
    bool deadlock = false, linked = false;
    /* every conflicting holder is tested for a cycle; the first is named */
    for (txn_lock_t *c = lk_next_conflict(sh, h, dt, key, key_len, tx, mode, NULL); c;
         c = lk_next_conflict(sh, h, dt, key, key_len, tx, mode, c)) {
      if (!linked) {
        lk_remember(tx, c, &seen);
        linked = true;
        lk_wait_link(lt, tx, c->lk_owner);
      }
      if (lk_would_deadlock(tx, c->lk_owner))
        deadlock = true;
    }
    mutex_unlock(&sh->ls_mx);
    int rc = CZ_OK;
    if (deadlock) {
      rc = err_set(e, SQLSTATE_DEADLOCK, "deadlock detected");
    } else if (linked) {
      did_wait = true;
      /* Woken when a holder ends (or after the slice, to look at the
       * cancel flag and the timeout, and re-check for a deadlock formed
       * meanwhile). */
      cond_timedwait(&lt->lt_wait_cond, &lt->lt_wait_mx, slice_us);
      if (tx->tx_cancel && *tx->tx_cancel)
        rc = err_set(e, SQLSTATE_QUERY_CANCELED, "canceling statement due to user request");
    }
    if (linked)
      lk_wait_unlink(lt, tx);
    atomic_fetch_sub(&lt->lt_waiters, 1);
    mutex_unlock(&lt->lt_wait_mx);
    thread_block_end();
    if (rc != CZ_OK)
      return rc;
  }
}

bool txn_lock_try(txn_t *tx, db_tree_t *dt, const void *key, size_t key_len)
{
  uint64_t h = lk_hash(dt, key, key_len);
  lk_shard_t *sh = lk_shard(tx->tx_db->db_locks, h);
  mutex_lock(&sh->ls_mx);
  txn_lock_t *own;
  bool mine = !lk_scan(sh, h, dt, key, key_len, tx, TXN_LOCK_EXCLUSIVE, &own);
  if (mine && !own)
    lk_new(tx, sh, h, dt, key, key_len, TXN_LOCK_EXCLUSIVE);
  else if (mine)
    own->lk_mode = TXN_LOCK_EXCLUSIVE;  /* an upgrade: no other holder is left */
  mutex_unlock(&sh->ls_mx);
  return mine;
}

void txn_lock_set_pre(txn_t *tx, txn_lock_t *lk, bool exists, const void *val, size_t len)
{
  if (lk->lk_pre_state != TXN_PRE_NONE)
    return;
  if (exists && len) {
    uint8_t *p = arena_alloc(tx->tx_arena, len);
    memcpy(p, val, len);
    lk->lk_pre = p;
  }
  lk->lk_pre_len = exists ? (uint32_t)len : 0;
  /* Readers read the state under the shard mutex: publish under it. */
  lk_shard_t *sh = lk_shard(tx->tx_db->db_locks, lk->lk_hash);
  mutex_lock(&sh->ls_mx);
  lk->lk_pre_state = exists ? TXN_PRE_VALUE : TXN_PRE_ABSENT;
  mutex_unlock(&sh->ls_mx);
}

/* A fresh insert's pre-image and stamp in one pass under the shard mutex
 * (txn_lock_set_pre and lk_stamp_now would take it twice): the key had no
 * committed entry, and the owner saw none before this command. lk is the
 * owner's and untouched so far (pre-image not known, lk_cmd 0). Called
 * before the tree holds the new entry: a reader that meets the entry then
 * already finds the pre-image. */
void txn_lock_note_absent(txn_t *tx, txn_lock_t *lk)
{
  lk_shard_t *sh = lk_shard(tx->tx_db->db_locks, lk->lk_hash);
  mutex_lock(&sh->ls_mx);
  lk->lk_pre_len = 0;
  lk->lk_pre_state = TXN_PRE_ABSENT;
  lk->lk_cmd_exists = false;
  lk->lk_cmd_val = NULL;
  lk->lk_cmd_len = 0;
  lk->lk_cmd = tx->tx_cmd;
  mutex_unlock(&sh->ls_mx);
}

int txn_lock_note_pre(txn_t *tx, txn_lock_t *lk, bool *exists, err_t *e)
{
  uint8_t buf[BT_MAX_ROW];
  size_t len = 0;
  int rc = txn_tree_lookup(lk->lk_tree, lk->lk_key, lk->lk_key_len, buf, sizeof buf, &len, NULL, e);
  if (rc == CZ_ERR)
    return CZ_ERR;
  *exists = rc == CZ_OK && !lk->lk_deleted;
  txn_lock_set_pre(tx, lk, rc == CZ_OK, buf, CZ_MIN(len, sizeof buf));
  return CZ_OK;
}

void txn_lock_set_deleted(txn_t *tx, txn_lock_t *lk, bool deleted)
{
  lk_shard_t *sh = lk_shard(tx->tx_db->db_locks, lk->lk_hash);
  mutex_lock(&sh->ls_mx);
  if (lk->lk_deleted != deleted)
    tx->tx_n_deferred += deleted ? 1 : (uint32_t)-1;
  lk->lk_deleted = deleted;
  mutex_unlock(&sh->ls_mx);
}

/* The owner's changes of the flag, journaled for txn_rollback_to_mark. */
static void lk_set_deleted_locked(txn_t *tx, txn_lock_t *lk, bool deleted)
{
  if (lk->lk_deleted != deleted)
    txn_journal_lock(tx, lk);
  txn_lock_set_deleted(tx, lk, deleted);
}

/* Before (or as) the owner changes lk's key in its current command: keep
 * its own view of the key from before the command's first change. exists
 * and val are that view (val may point into the arena already). */
static void lk_stamp(txn_t *tx, txn_lock_t *lk, bool exists, const void *val, size_t len,
                     bool in_arena)
{
  if (lk->lk_cmd == tx->tx_cmd)
    return;
  const uint8_t *copy = NULL;
  if (exists && len) {
    if (in_arena) {
      copy = val;
    } else {
      uint8_t *c = arena_alloc(tx->tx_arena, len);
      memcpy(c, val, len);
      copy = c;
    }
  }
  lk_shard_t *sh = lk_shard(tx->tx_db->db_locks, lk->lk_hash);
  mutex_lock(&sh->ls_mx);
  lk->lk_cmd_exists = exists;
  lk->lk_cmd_val = copy;
  lk->lk_cmd_len = exists ? (uint32_t)len : 0;
  lk->lk_cmd = tx->tx_cmd;
  mutex_unlock(&sh->ls_mx);
}

/* Stamps lk (lk_stamp) with the key as the owner sees it now, BEFORE the
 * owner changes it: a parallel query's workers read in the owner's
 * transaction on other threads and may meet the new value as soon as the
 * tree holds it, so the stamp must already be there. Taken now, the view
 * is right whether or not the change then succeeds: nothing of this
 * command has changed the key yet. The committed value when the owner
 * never changed the key (lk_pre), else what the tree holds. */
static int lk_stamp_now(txn_t *tx, txn_lock_t *lk, err_t *e)
{
  if (lk->lk_cmd == tx->tx_cmd)
    return CZ_OK;
  if (lk->lk_cmd == 0 && lk->lk_pre_state != TXN_PRE_NONE) {
    bool exists = lk->lk_pre_state == TXN_PRE_VALUE;
    lk_stamp(tx, lk, exists, exists ? lk->lk_pre : NULL, exists ? lk->lk_pre_len : 0, true);
    return CZ_OK;
  }
  uint8_t buf[BT_MAX_ROW];
  size_t len = 0;
  int rc = txn_tree_lookup(lk->lk_tree, lk->lk_key, lk->lk_key_len, buf, sizeof buf, &len, NULL, e);
  if (rc != CZ_OK && rc != BT_NOT_FOUND)
    return CZ_ERR;
  lk_stamp(tx, lk, rc == CZ_OK, buf, rc == CZ_OK ? CZ_MIN(len, sizeof buf) : 0, false);
  return CZ_OK;
}

/* ---- the public lock calls -------------------------------------------- */

static db_tree_t *lk_tree_of(txn_t *tx, bt_tree_t *t, err_t *e)
{
  db_tree_t *dt = txn_tree_of(tx, t);
  if (!dt)
    err_set(e, SQLSTATE_INTERNAL, "tree with root page %u is not a named tree", (unsigned)bt_root(t));
  return dt;
}

int txn_lock(txn_t *tx, bt_tree_t *t, const void *key, size_t key_len,
             bool *waited, bool *changed, err_t *e)
{
  if (waited)
    *waited = false;
  if (changed)
    *changed = false;
  if (tx->tx_flags & TXN_BULK)
    return CZ_OK;
  db_tree_t *dt = lk_tree_of(tx, t, e);
  if (!dt)
    return CZ_ERR;
  txn_lock_t *lk;
  return txn_lock_acquire(tx, dt, key, key_len, &lk, waited, changed, e);
}

bool txn_holds_lock(const txn_t *tx, bt_tree_t *t, const void *key, size_t key_len)
{
  db_tree_t *dt = db_dir_find_bt(tx->tx_db, t);
  if (!dt)
    return false;
  uint64_t h = lk_hash(dt, key, key_len);
  lk_shard_t *sh = lk_shard(tx->tx_db->db_locks, h);
  mutex_lock(&sh->ls_mx);
  bool mine = lk_find_own(sh, h, dt, key, key_len, tx) != NULL;
  mutex_unlock(&sh->ls_mx);
  return mine;
}

void txn_set_cancel(txn_t *tx, const volatile bool *flag)
{
  tx->tx_cancel = flag;
}

void txn_set_lock_timeout(txn_t *tx, const volatile int64_t *ms)
{
  tx->tx_lock_timeout = ms;
}

uint32_t db_tree_nlocked(const db_tree_t *dt)
{
  return atomic_load(&((db_tree_t *)dt)->dt_nlocked);
}

uint32_t txn_tree_nlocked_own(const txn_t *tx, const db_tree_t *dt)
{
  uint32_t n = 0;
  for (const txn_lock_t *lk = tx->tx_locks; lk; lk = lk->lk_tx_next)
    n += lk->lk_tree == dt;
  return n;
}

bool txn_cancel_requested(const txn_t *tx)
{
  return tx->tx_cancel && *tx->tx_cancel;
}

static txn_vis_t lk_copy_out(const uint8_t *p, uint32_t len, arena_t *a, const void **val,
                             size_t *val_len)
{
  uint8_t *c = NULL;
  if (len) {
    c = arena_alloc(a, len);
    memcpy(c, p, len);
  }
  *val = c;
  *val_len = len;
  return TXN_VIS_PREIMAGE;
}

/* The commit timestamp of a lock's owner (0: not committed). A committer
 * numbers itself in two steps (TXN_TS_PENDING, then the number): wait out
 * that instant, or a snapshot taken in it could see the commit later but
 * not now. The owner lives while its lock is in the table (shard mutex). */
static uint64_t lk_owner_ts(const txn_t *owner)
{
  uint64_t ts;
  while ((ts = atomic_load(&((txn_t *)owner)->tx_commit_ts)) == TXN_TS_PENDING)
    sched_yield();
  return ts;
}

/* What self sees of key: read committed (snap false: the latest committed
 * state and self's own changes) or as of self's snapshot. The lock table
 * is consulted first, the version store after: a committer registers its
 * versions before it releases its locks, so a reader that no longer finds
 * the lock finds the versions. */
static txn_vis_t lk_read(const txn_t *self, uint32_t cmd, bool snap, db_tree_t *dt, const void *key,
                         size_t key_len, arena_t *a, const void **val, size_t *val_len)
{
  uint32_t nl = atomic_load(&dt->dt_nlocked);
  if (CZ_LIKELY(nl == 0) && CZ_LIKELY(atomic_load(snap ? &dt->dt_nvers : &dt->dt_ndead) == 0))
    return TXN_VIS_CURRENT;
  txn_vis_t v = TXN_VIS_CURRENT;
  bool decided = false;
  if (nl) {
    txn_locktab_t *lt = dt->dt_db->db_locks;
    uint64_t h = lk_hash(dt, key, key_len);
    lk_shard_t *sh = lk_shard(lt, h);
    mutex_lock(&sh->ls_mx);
    /* self's own entry, else another's that may carry a change (NO KEY
     * UPDATE or EXCLUSIVE: at most one, they conflict with each other);
     * others' share modes change nothing readers see */
    txn_lock_t *lk = self ? lk_find_own(sh, h, dt, key, key_len, self) : NULL;
    /* self's KEY SHARE may sit beside another's NO KEY UPDATE: a weak own
     * entry (never a change) yields to it */
    if (!lk || lk->lk_mode < TXN_LOCK_NO_KEY_UPDATE) {
      txn_lock_t *other = lk_next_conflict(sh, h, dt, key, key_len, self, TXN_LOCK_SHARED, NULL);
      if (other)
        lk = other;
    }
    if (lk && lk->lk_owner == self && (!snap || lk->lk_cmd != 0)) {
      /* self's own change (under a snapshot a key self only locked is
       * read as of the snapshot) */
      decided = true;
      if (cmd != 0 && lk->lk_cmd != 0 && lk->lk_cmd >= cmd)
        v = lk->lk_cmd_exists ? lk_copy_out(lk->lk_cmd_val, lk->lk_cmd_len, a, val, val_len)
                              : TXN_VIS_ABSENT;
      else if (lk->lk_deleted)
        v = TXN_VIS_ABSENT;
    } else if (lk && lk->lk_owner != self) {
      /* only a key the owner changed: a lock alone (a name lock, the
       * collector's) says nothing of the key's state */
      bool changed = lk->lk_cmd != 0 || lk->lk_deleted;
      uint64_t ts = snap && changed ? lk_owner_ts(lk->lk_owner) : 0;
      if (ts != 0 && ts <= self->tx_snap_ts) {
        /* committed before the snapshot, locks not yet released */
        decided = true;
        v = lk->lk_deleted ? TXN_VIS_ABSENT : TXN_VIS_CURRENT;
      } else if (lk->lk_pre_state == TXN_PRE_ABSENT) {
        v = TXN_VIS_ABSENT;
        decided = !snap;
      } else if (lk->lk_pre_state == TXN_PRE_VALUE) {
        v = lk_copy_out(lk->lk_pre, lk->lk_pre_len, a, val, val_len);
        decided = !snap;
      }
    }
    mutex_unlock(&sh->ls_mx);
  }
  if (decided)
    return v;
  if (snap)
    return txn_snap_read_store(self->tx_snap_ts, dt, key, key_len, a, val, val_len, v);
  if (atomic_load(&dt->dt_ndead) > 0 && txn_snap_dead(dt, key, key_len))
    return TXN_VIS_ABSENT;
  return v;
}

txn_vis_t txn_read_version(const txn_t *self, db_tree_t *dt, const void *key, size_t key_len,
                           arena_t *a, const void **val, size_t *val_len)
{
  return lk_read(self, 0, false, dt, key, key_len, a, val, val_len);
}

txn_vis_t txn_read_version_at(const txn_t *self, uint32_t cmd, db_tree_t *dt, const void *key,
                              size_t key_len, arena_t *a, const void **val, size_t *val_len)
{
  return lk_read(self, cmd, self && self->tx_has_snap, dt, key, key_len, a, val, val_len);
}

/* ---- the row operations under locks ------------------------------------ */

int txn_lock_apply_deletes(txn_t *tx, err_t *e)
{
  if (tx->tx_n_deferred == 0)
    return CZ_OK;
  /* Oldest first is not needed: each key is deleted once. */
  for (txn_lock_t *lk = tx->tx_locks; lk; lk = lk->lk_tx_next) {
    if (!lk->lk_deleted)
      continue;
    /* A tree this transaction dropped goes with all its rows; a DELETE
     * logged after its DROP could not be replayed. */
    if (atomic_load(&lk->lk_tree->dt_hidden) && lk->lk_tree->dt_hider == tx)
      continue;
    /* Logged now, applied to the tree once the record is durable and
     * the commit numbered (txn_snap_commit): a snapshot taken before the
     * commit must still find the entry, and one taken after sees the
     * lock's deleted mark until then. */
    txn_op_t *op = txn_add_op(tx, TXN_OP_DELETE, lk->lk_tree, lk->lk_key, lk->lk_key_len, NULL, 0,
                              NULL, 0);
    op->to_unapplied = true;
  }
  tx->tx_n_deferred = 0;
  return CZ_OK;
}

void txn_lock_hold(txn_t *tx, bt_tree_t *t, const void *key, size_t key_len)
{
  err_t e;
  db_tree_t *dt = lk_tree_of(tx, t, &e);
  for (txn_lock_t *lk = tx->tx_locks; dt && lk; lk = lk->lk_tx_next)
    if (lk->lk_tree == dt && lk->lk_key_len == key_len && memcmp(lk->lk_key, key, key_len) == 0) {
      lk->lk_hold = true;
      return;
    }
}

/* Takes lk out of its shard's chain (its owner's list is the caller's). */
static void lk_unlink(txn_locktab_t *lt, txn_lock_t *lk)
{
  lk_shard_t *sh = lk_shard(lt, lk->lk_hash);
  mutex_lock(&sh->ls_mx);
  txn_lock_t **pp = lk_bucket(sh, lk->lk_hash);
  while (*pp && *pp != lk)
    pp = &(*pp)->lk_next;
  if (*pp) {
    *pp = lk->lk_next;
    sh->ls_n--;
  }
  mutex_unlock(&sh->ls_mx);
  atomic_fetch_sub(&lk->lk_tree->dt_nlocked, 1);
}

void txn_lock_release_after(txn_t *tx, txn_lock_t *stop)
{
  txn_locktab_t *lt = tx->tx_db->db_locks;
  txn_lock_t *kept = NULL, **tail = &kept;
  bool any = false;
  txn_lock_t *lk = tx->tx_locks;
  while (lk && lk != stop) {
    txn_lock_t *next = lk->lk_tx_next;
    if (lk->lk_hold) {
      *tail = lk;
      tail = &lk->lk_tx_next;
    } else {
      lk_unlink(lt, lk);
      any = true;
    }
    lk = next;
  }
  *tail = lk;
  tx->tx_locks = kept;
  /* tx goes on: waiters keep naming it, and find the keys free when woken */
  if (any && atomic_load(&lt->lt_waiters) > 0) {
    mutex_lock(&lt->lt_wait_mx);
    cond_broadcast(&lt->lt_wait_cond);
    mutex_unlock(&lt->lt_wait_mx);
  }
}

void txn_lock_release_all(txn_t *tx)
{
  txn_locktab_t *lt = tx->tx_db->db_locks;
  if (!tx->tx_locks)
    return;
  /* ahead runs LK_AHEAD locks in front, prefetching its chain slot. */
  txn_lock_t *ahead = tx->tx_locks;
  for (int i = 0; i < LK_AHEAD && ahead; i++)
    ahead = ahead->lk_tx_next;
  for (txn_lock_t *lk = tx->tx_locks; lk; lk = lk->lk_tx_next) {
    if (ahead) {
      lk_shard_t *ash = lk_shard(lt, ahead->lk_hash);
      txn_lock_t **b = __atomic_load_n(&ash->ls_b, __ATOMIC_RELAXED);
      __builtin_prefetch(&b[(ahead->lk_hash >> 6) & (__atomic_load_n(&ash->ls_nb, __ATOMIC_RELAXED) - 1)]);
      ahead = ahead->lk_tx_next;
    }
    lk_unlink(lt, lk);
  }
  tx->tx_locks = NULL;
  if (atomic_load(&lt->lt_waiters) > 0) {
    mutex_lock(&lt->lt_wait_mx);
    /* tx is about to be freed: no waits-for chain may lead through it. */
    for (txn_t *w = lt->lt_waiting; w; w = w->tx_wait_next)
      if (w->tx_waiting_for == tx)
        w->tx_waiting_for = NULL;
    cond_broadcast(&lt->lt_wait_cond);
    mutex_unlock(&lt->lt_wait_mx);
  }
}

/* Insert under a lock: an entry the transaction itself deleted (still in
 * the tree, marked) is revived with the new value. */
int txn_locked_insert(txn_t *tx, db_tree_t *dt, const void *key, size_t key_len,
                      const void *val, size_t val_len, err_t *e)
{
  txn_lock_t *lk;
  if (txn_lock_acquire(tx, dt, key, key_len, &lk, NULL, NULL, e) != CZ_OK)
    return CZ_ERR;
  if (lk->lk_deleted) {
    uint8_t old[BT_MAX_ROW];
    size_t old_len = 0;
    lk_stamp(tx, lk, false, NULL, 0, false);
    int rc = bt_update(dt->dt_bt, key, key_len, val, val_len, old, sizeof old, &old_len, e);
    if (rc != CZ_OK)
      return rc == BT_NOT_FOUND ? err_set(e, SQLSTATE_INTERNAL, "a deleted row vanished") : CZ_ERR;
    lk_set_deleted_locked(tx, lk, false);
    txn_add_op(tx, TXN_OP_UPDATE, dt, key, key_len, val, val_len, old, CZ_MIN(old_len, sizeof old));
    return CZ_OK;
  }
  if (lk->lk_pre_state == TXN_PRE_NONE) {
    bool exists;
    if (txn_lock_note_pre(tx, lk, &exists, e) != CZ_OK)
      return CZ_ERR;
    if (exists)
      return err_set(e, SQLSTATE_UNIQUE_VIOLATION, "duplicate key");
  }
  if (lk_stamp_now(tx, lk, e) != CZ_OK)
    return CZ_ERR;
  if (CZ_UNLIKELY(atomic_load(&dt->dt_ndead) > 0) && txn_snap_dead(dt, key, key_len))
    return txn_snap_revive(tx, dt, key, key_len, val, val_len, e);
  int rc = bt_insert(dt->dt_bt, key, key_len, val, val_len, e);
  if (rc == CZ_OK)
    txn_add_op(tx, TXN_OP_INSERT, dt, key, key_len, val, val_len, NULL, 0);
  return rc;
}

static int lk_serialization(err_t *e)
{
  return err_set(e, SQLSTATE_SERIALIZATION, "could not serialize access due to concurrent update");
}

int txn_locked_update(txn_t *tx, db_tree_t *dt, const void *key, size_t key_len,
                      const void *val, size_t val_len, err_t *e)
{
  txn_lock_t *lk;
  bool changed = false;
  /* the key stays: NO KEY UPDATE (a foreign key's KEY SHARE does not wait) */
  if (txn_lock_acquire_mode(tx, dt, key, key_len, TXN_LOCK_NO_KEY_UPDATE, false, &lk, NULL,
                            &changed, e) != CZ_OK)
    return CZ_ERR;
  if (changed)
    return lk_serialization(e);
  if (lk->lk_deleted)
    return BT_NOT_FOUND;
  if (lk->lk_pre_state == TXN_PRE_NONE) {
    bool exists;
    if (txn_lock_note_pre(tx, lk, &exists, e) != CZ_OK)
      return CZ_ERR;
    if (!exists)
      return BT_NOT_FOUND;
  }
  if (lk_stamp_now(tx, lk, e) != CZ_OK)
    return CZ_ERR;
  uint8_t old[BT_MAX_ROW];
  size_t old_len = 0;
  int rc = bt_update(dt->dt_bt, key, key_len, val, val_len, old, sizeof old, &old_len, e);
  if (rc == CZ_OK)
    txn_add_op(tx, TXN_OP_UPDATE, dt, key, key_len, val, val_len, old, CZ_MIN(old_len, sizeof old));
  return rc;
}

int txn_locked_delete(txn_t *tx, db_tree_t *dt, const void *key, size_t key_len, err_t *e)
{
  txn_lock_t *lk;
  bool changed = false;
  if (txn_lock_acquire(tx, dt, key, key_len, &lk, NULL, &changed, e) != CZ_OK)
    return CZ_ERR;
  if (changed)
    return lk_serialization(e);
  if (lk->lk_deleted)
    return BT_NOT_FOUND;
  /* Existence now (the pre-image may predate the transaction's own insert). */
  uint8_t buf[BT_MAX_ROW];
  size_t len = 0;
  int rc = txn_tree_lookup(dt, key, key_len, buf, sizeof buf, &len, NULL, e);
  if (rc != CZ_OK)
    return rc;
  txn_lock_set_pre(tx, lk, true, buf, CZ_MIN(len, sizeof buf));
  lk_stamp(tx, lk, true, buf, CZ_MIN(len, sizeof buf), false);
  lk_set_deleted_locked(tx, lk, true);
  return CZ_OK;
}

int txn_lock_read(txn_t *tx, bt_tree_t *t, const void *key, size_t key_len, void *val,
                  size_t cap, size_t *val_len, bool *found, bool *changed, err_t *e)
{
  return txn_lock_read_as(tx, t, key, key_len, TXN_LOCK_EXCLUSIVE, val, cap, val_len, found,
                          changed, e);
}

int txn_lock_as(txn_t *tx, bt_tree_t *t, const void *key, size_t key_len, txn_lock_mode_t mode,
                err_t *e)
{
  if (tx->tx_flags & TXN_BULK)
    return CZ_OK;
  db_tree_t *dt = lk_tree_of(tx, t, e);
  if (!dt)
    return CZ_ERR;
  txn_lock_t *lk;
  return txn_lock_acquire_mode(tx, dt, key, key_len, mode, false, &lk, NULL, NULL, e);
}

int txn_lock_read_as(txn_t *tx, bt_tree_t *t, const void *key, size_t key_len,
                     txn_lock_mode_t mode, void *val, size_t cap, size_t *val_len, bool *found,
                     bool *changed, err_t *e)
{
  *found = false;
  if (changed)
    *changed = false;
  db_tree_t *dt = lk_tree_of(tx, t, e);
  if (!dt)
    return CZ_ERR;
  if (!txn_locks_tree(tx, dt)) {
    int rc = bt_lookup(t, key, key_len, val, cap, val_len, e);
    *found = rc == CZ_OK;
    return rc == CZ_ERR ? CZ_ERR : CZ_OK;
  }
  txn_lock_t *lk;
  if (txn_lock_acquire_mode(tx, dt, key, key_len, mode, false, &lk, NULL, changed, e) != CZ_OK)
    return CZ_ERR;
  /* Under a snapshot, a key a later commit changed counts as changed:
   * the table layer's update and delete (tb_locate) and ON CONFLICT then
   * fail with 40001 (first updater wins). Plain txn_update/txn_delete do
   * not check: the catalog changes its rows as of the latest state, as
   * PostgreSQL's catalog snapshots do. */
  if (changed && !*changed && lk->lk_cmd == 0 && txn_snap_changed(tx, dt, key, key_len))
    *changed = true;
  int rc = txn_tree_lookup(dt, key, key_len, val, cap, val_len, NULL, e);
  if (rc == CZ_ERR)
    return CZ_ERR;
  txn_lock_set_pre(tx, lk, rc == CZ_OK, val, CZ_MIN(*val_len, cap));
  *found = rc == CZ_OK && !lk->lk_deleted;
  return CZ_OK;
}

int txn_lock_row(txn_t *tx, bt_tree_t *t, const void *key, size_t key_len, txn_lock_mode_t mode,
                 bool nowait, void *val, size_t cap, size_t *val_len, bool *found, err_t *e)
{
  *found = false;
  db_tree_t *dt = lk_tree_of(tx, t, e);
  if (!dt)
    return CZ_ERR;
  txn_lock_t *lk = NULL;
  if (txn_locks_tree(tx, dt)) {
    int rc = txn_lock_acquire_mode(tx, dt, key, key_len, mode, nowait, &lk, NULL, NULL, e);
    if (rc != CZ_OK)
      return rc;
  }
  /* Under the lock a dead entry (a delete committed while an older
   * snapshot lives) is absent: the row is gone, not lockable. */
  int rc = lk ? txn_tree_lookup(dt, key, key_len, val, cap, val_len, NULL, e)
              : bt_lookup(t, key, key_len, val, cap, val_len, e);
  if (rc == CZ_ERR)
    return CZ_ERR;
  *found = rc == CZ_OK && !(lk && lk->lk_deleted);
  return CZ_OK;
}
