/* txn_ssi — SERIALIZABLE: snapshot isolation plus tracking of
 * read-write antidependencies between concurrent serializable
 * transactions, at tree granularity (Cahill, Röhm, Fekete: "Serializable
 * Isolation for Snapshot Databases", SIGMOD 2008 — the technique
 * PostgreSQL's SSI refines).
 *
 * Design notes (txn/README.md, "Serializable"):
 * - Each serializable transaction has a record: its snapshot, its end
 *   (commit timestamp; 0 while active), the trees it read (a scan, lookup
 *   or probe opened on them: txn_note_read, from the table layer) and the
 *   trees it wrote, and two flags: in (a concurrent transaction read what
 *   it wrote) and out (it read what a concurrent transaction wrote).
 * - R ->rw W (R read a tree W wrote, and W's write is invisible to R's
 *   snapshot: W is active or committed after R's snapshot) is found either
 *   when W first writes the tree (R's read set has it) or when R first
 *   reads it (W's write set has it). Every anomaly of snapshot isolation
 *   has a transaction with both an in and an out edge (Fekete et al.), so
 *   an edge that would give any transaction both fails the transaction
 *   that found it with 40001 (a write fails at once; a read dooms the
 *   reader, which fails at its next write, statement or commit — as
 *   PostgreSQL, data read in a serializable transaction is trustworthy
 *   once it commits). No flag pair is ever set, so commit needs no check.
 * - Tree granularity is coarse: two serializable transactions that read
 *   and write the same table concurrently conflict even on different rows
 *   (PostgreSQL locks index pages and rows, and fails fewer). Only
 *   serializable transactions take part (as PostgreSQL's).
 * - A committed record is kept while an active serializable transaction
 *   overlaps it (began before it ended), then freed; a rolled-back one is
 *   freed at once. Only records whose transaction has ended are freed (a
 *   committing one still points at its own). One mutex (ss_mx) guards all
 *   records.
 */
#include <stdlib.h>
#include <string.h>

#include "txn/txn_int.h"

typedef struct txn_sx_s {
  struct txn_sx_s *sx_next, *sx_prev;
  uint64_t sx_snap;            /* the snapshot */
  uint64_t sx_end;             /* commit timestamp; 0 while active */
  bool sx_in, sx_out;          /* rw-antidependency in / out */
  bool sx_doomed;              /* a read found a dangerous structure: fail at the next chance */
  bool sx_ended;               /* its transaction is gone (txn_ssi_end): others may free it;
                                  before, the transaction still points at it */
  db_tree_t **sx_reads;
  int sx_nreads, sx_capreads;
  db_tree_t **sx_writes;
  int sx_nwrites, sx_capwrites;
} txn_sx_t;

typedef struct txn_ssi_s {
  cz_mutex_t ss_mx;
  txn_sx_t *ss_list;
} txn_ssi_t;

int txn_ssi_create(db_t *db, err_t *e)
{
  txn_ssi_t *ss = calloc(1, sizeof *ss);
  if (!ss)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory");
  mutex_init(&ss->ss_mx);
  db->db_ssi = ss;
  return CZ_OK;
}

static void sx_free(txn_sx_t *sx)
{
  free(sx->sx_reads);
  free(sx->sx_writes);
  free(sx);
}

void txn_ssi_free(db_t *db)
{
  txn_ssi_t *ss = db->db_ssi;
  if (!ss)
    return;
  for (txn_sx_t *sx = ss->ss_list, *n; sx; sx = n) {
    n = sx->sx_next;
    sx_free(sx);
  }
  mutex_destroy(&ss->ss_mx);
  free(ss);
  db->db_ssi = NULL;
}

static int ssi_failure(err_t *e)
{
  return err_set(e, SQLSTATE_SERIALIZATION,
                 "could not serialize access due to read/write dependencies among transactions");
}

int txn_ssi_begin(txn_t *tx, err_t *e)
{
  txn_ssi_t *ss = tx->tx_db->db_ssi;
  txn_sx_t *sx = calloc(1, sizeof *sx);
  if (!sx)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory");
  sx->sx_snap = tx->tx_snap_ts;
  mutex_lock(&ss->ss_mx);
  sx->sx_next = ss->ss_list;
  if (ss->ss_list)
    ss->ss_list->sx_prev = sx;
  ss->ss_list = sx;
  mutex_unlock(&ss->ss_mx);
  tx->tx_sx = sx;
  return CZ_OK;
}

static bool sx_has(db_tree_t *const *set, int n, const db_tree_t *dt)
{
  for (int i = 0; i < n; i++)
    if (set[i] == dt)
      return true;
  return false;
}

/* Adds dt to a set; false when out of memory (the caller fails safe). */
static bool sx_add(db_tree_t ***set, int *n, int *cap, db_tree_t *dt)
{
  if (*n == *cap) {
    int nc = *cap ? *cap * 2 : 8;
    db_tree_t **p = realloc(*set, sizeof *p * (size_t)nc);
    if (!p)
      return false;
    *set = p;
    *cap = nc;
  }
  (*set)[(*n)++] = dt;
  return true;
}

/* other's effects are invisible to me: it is active, or it ended after
 * my snapshot was taken. */
static bool sx_concurrent(const txn_sx_t *me, const txn_sx_t *other)
{
  return other->sx_end == 0 || other->sx_end > me->sx_snap;
}

/* The edge r ->rw w: false when it would give a transaction both flags
 * (the caller fails). Under ss_mx. */
static bool sx_edge(txn_sx_t *r, txn_sx_t *w)
{
  if (r->sx_in || w->sx_out)
    return false;
  r->sx_out = true;
  w->sx_in = true;
  return true;
}

void txn_note_read(txn_t *tx, db_tree_t *dt)
{
  if (!tx || !tx->tx_sx || !dt)
    return;
  txn_ssi_t *ss = tx->tx_db->db_ssi;
  txn_sx_t *me = tx->tx_sx;
  mutex_lock(&ss->ss_mx);
  if (!me->sx_doomed && !sx_has(me->sx_reads, me->sx_nreads, dt)) {
    if (!sx_add(&me->sx_reads, &me->sx_nreads, &me->sx_capreads, dt))
      me->sx_doomed = true;
    for (txn_sx_t *w = ss->ss_list; w && !me->sx_doomed; w = w->sx_next)
      if (w != me && sx_concurrent(me, w) && sx_has(w->sx_writes, w->sx_nwrites, dt) &&
          !sx_edge(me, w))
        me->sx_doomed = true;
  }
  mutex_unlock(&ss->ss_mx);
}

int txn_check_serializable(const txn_t *tx, err_t *e)
{
  if (!tx || !tx->tx_sx)
    return CZ_OK;
  txn_ssi_t *ss = tx->tx_db->db_ssi;
  mutex_lock(&ss->ss_mx);
  bool doomed = tx->tx_sx->sx_doomed;
  mutex_unlock(&ss->ss_mx);
  return doomed ? ssi_failure(e) : CZ_OK;
}

int txn_ssi_write(txn_t *tx, db_tree_t *dt, err_t *e)
{
  txn_ssi_t *ss = tx->tx_db->db_ssi;
  txn_sx_t *me = tx->tx_sx;
  bool fail = false;
  mutex_lock(&ss->ss_mx);
  if (me->sx_doomed) {
    fail = true;
  } else if (!sx_has(me->sx_writes, me->sx_nwrites, dt)) {
    if (!sx_add(&me->sx_writes, &me->sx_nwrites, &me->sx_capwrites, dt))
      fail = true;
    for (txn_sx_t *r = ss->ss_list; r && !fail; r = r->sx_next)
      if (r != me && sx_concurrent(me, r) && sx_has(r->sx_reads, r->sx_nreads, dt) &&
          !sx_edge(r, me))
        fail = true;
    if (fail)
      me->sx_nwrites--; /* not written after all: the statement fails */
  }
  mutex_unlock(&ss->ss_mx);
  return fail ? ssi_failure(e) : CZ_OK;
}

int txn_ssi_commit(txn_t *tx, err_t *e)
{
  (void)e;
  txn_ssi_t *ss = tx->tx_db->db_ssi;
  uint64_t c = atomic_load(&tx->tx_commit_ts);
  if (c == 0) /* read-only: its end still orders it against later snapshots */
    c = atomic_fetch_add(&tx->tx_db->db_commit_ts, 1) + 1;
  mutex_lock(&ss->ss_mx);
  tx->tx_sx->sx_end = c;
  mutex_unlock(&ss->ss_mx);
  return CZ_OK;
}

void txn_ssi_end(txn_t *tx)
{
  txn_ssi_t *ss = tx->tx_db->db_ssi;
  txn_sx_t *me = tx->tx_sx;
  tx->tx_sx = NULL;
  mutex_lock(&ss->ss_mx);
  if (me->sx_end == 0)
    me->sx_end = UINT64_MAX; /* rolled back: freed below */
  me->sx_ended = true;
  uint64_t oldest_active = UINT64_MAX;
  for (txn_sx_t *sx = ss->ss_list; sx; sx = sx->sx_next)
    if (sx->sx_end == 0 && sx->sx_snap < oldest_active)
      oldest_active = sx->sx_snap;
  for (txn_sx_t *sx = ss->ss_list, *n; sx; sx = n) {
    n = sx->sx_next;
    bool gone = sx->sx_ended && (sx->sx_end == UINT64_MAX || sx->sx_end <= oldest_active);
    if (!gone)
      continue;
    if (sx->sx_prev)
      sx->sx_prev->sx_next = sx->sx_next;
    else
      ss->ss_list = sx->sx_next;
    if (sx->sx_next)
      sx->sx_next->sx_prev = sx->sx_prev;
    sx_free(sx);
  }
  mutex_unlock(&ss->ss_mx);
}
