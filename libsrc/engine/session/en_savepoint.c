/* en_savepoint — SQL savepoints (SAVEPOINT, RELEASE, ROLLBACK TO) and the
 * implicit mark before each statement of a transaction block, as
 * PostgreSQL has them.
 *
 * Design notes (engine/README.md, invariants 4 and 10):
 * - The session's savepoints are a stack, newest on top, kept in the
 *   transaction's arena and tagged with its id: when the transaction ends
 *   (however it ends) the tag no longer matches and the stack is empty,
 *   with no hook in every path that ends a transaction.
 * - Names may repeat: RELEASE and ROLLBACK TO find the newest. ROLLBACK TO
 *   keeps the savepoint and drops the later ones; RELEASE drops it and the
 *   later ones (their work stays in the transaction).
 * - Each statement phase of a block takes a mark first (txn marks are a
 *   few words and identical marks are shared), so a failure while a
 *   savepoint exists undoes the failed statement only and leaves the
 *   block in 'E' with its earlier work; ROLLBACK TO then returns the block
 *   to 'T'. Without a savepoint nothing but ROLLBACK can follow, so the
 *   whole transaction is undone at once and its locks released (what
 *   PostgreSQL does; the difference is not observable otherwise).
 */
#include <stdio.h>
#include <string.h>

#include "engine/session/session_int.h"


typedef struct en_spent_s {
  struct en_spent_s *sp_below;  /* the next older savepoint */
  const char *sp_name;
  txn_mark_t *sp_mark;
} en_spent_t;

/* The session's savepoint state (in se_arena, made at first use). */
struct en_sp_s {
  uint64_t ss_txid;             /* the transaction ss_top and ss_stmt belong to */
  en_spent_t *ss_top;           /* in that transaction's arena */
  uint64_t ss_stmt_txid;        /* the transaction ss_stmt belongs to (0 = none) */
  txn_mark_t *ss_stmt;          /* the mark of the statement phase under way */
};

static struct en_sp_s *sp_state(esession_t *s)
{
  if (!s->se_sp)
    s->se_sp = arena_zalloc(s->se_arena, sizeof *s->se_sp);
  return s->se_sp;
}

/* The stack of the session's open transaction (NULL when empty). */
static en_spent_t *sp_top(esession_t *s)
{
  struct en_sp_s *ss = sp_state(s);
  if (!s->se_tx || ss->ss_txid != txn_id(s->se_tx))
    return NULL;
  return ss->ss_top;
}

static void sp_set_top(esession_t *s, en_spent_t *top)
{
  struct en_sp_s *ss = sp_state(s);
  ss->ss_txid = s->se_tx ? txn_id(s->se_tx) : 0;
  ss->ss_top = top;
}

void en_sp_stmt_mark(esession_t *s)
{
  if (!s->se_block || s->se_status == 'E')
    return;
  struct en_sp_s *ss = sp_state(s);
  /* No savepoint (so no transaction yet either): a failure undoes the
   * whole transaction (en_sp_fail), no mark needed. */
  bool want = sp_top(s) != NULL;
  ss->ss_stmt_txid = want ? txn_id(s->se_tx) : 0;
  ss->ss_stmt = want ? txn_savepoint_mark(s->se_tx) : NULL;
}

bool en_sp_fail(esession_t *s)
{
  struct en_sp_s *ss = sp_state(s);
  /* Without a savepoint the failed block can only end in a rollback:
   * undo it all now, which releases its locks at once (a deadlock
   * victim's included), as PostgreSQL aborts the transaction then. */
  if (!sp_top(s))
    return false;
  if (!s->se_tx || !ss->ss_stmt || ss->ss_stmt_txid != txn_id(s->se_tx))
    return false;
  err_t e;
  err_clear(&e);
  if (txn_rollback_to_mark(s->se_tx, ss->ss_stmt, &e) != CZ_OK) {
    log_warn("undoing a failed statement: %s", e.er_msg);
    return false;
  }
  return true;
}

static en_spent_t *sp_find(esession_t *s, const char *name)
{
  for (en_spent_t *sp = sp_top(s); sp; sp = sp->sp_below)
    if (strcmp(sp->sp_name, name) == 0)
      return sp;
  return NULL;
}

static int sp_missing(const char *name, err_t *e)
{
  return err_set(e, SQLSTATE_INVALID_SAVEPOINT, "savepoint \"%s\" does not exist", name);
}

static int sp_savepoint(esession_t *s, const char *name, err_t *e)
{
  bool implicit;
  if (es_tx_ensure(s, &implicit, e) != CZ_OK)
    return CZ_ERR;
  en_spent_t *top = sp_top(s);
  arena_t *a = txn_arena(s->se_tx);
  en_spent_t *sp = arena_zalloc(a, sizeof *sp);
  sp->sp_name = arena_strdup(a, name);
  sp->sp_mark = txn_savepoint_mark(s->se_tx);
  sp->sp_below = top;
  sp_set_top(s, sp);
  return CZ_OK;
}

static int sp_rollback_to(esession_t *s, const char *name, err_t *e)
{
  en_spent_t *sp = sp_find(s, name);
  if (!sp)
    return sp_missing(name, e);
  /* Cursors end with the work they may have read (a simplification:
   * PostgreSQL keeps those opened before the savepoint). */
  en_cursor_close_all(s);
  sp_set_top(s, sp);
  if (txn_rollback_to_mark(s->se_tx, sp->sp_mark, e) != CZ_OK) {
    /* The transaction cannot go on: undo it all, the block stays failed. */
    txn_rollback(s->se_tx, NULL);
    s->se_tx = NULL;
    s->se_status = 'E';
    es_refresh_snapshot(s);
    return CZ_ERR;
  }
  s->se_status = 'T';
  es_refresh_snapshot(s);
  return CZ_OK;
}

int en_sp_control(esession_t *s, const sql_stmt_t *st, char *tag, size_t tagcap, err_t *e)
{
  const char *name = st->st_savepoint ? st->st_savepoint : "";
  switch (st->st_kind) {
  case SQL_STMT_SAVEPOINT:
    if (!s->se_block)
      return err_set(e, SQLSTATE_NO_ACTIVE_TX, "SAVEPOINT can only be used in transaction blocks");
    snprintf(tag, tagcap, "SAVEPOINT");
    return sp_savepoint(s, name, e);
  case SQL_STMT_RELEASE: {
    if (!s->se_block)
      return err_set(e, SQLSTATE_NO_ACTIVE_TX,
                     "RELEASE SAVEPOINT can only be used in transaction blocks");
    en_spent_t *sp = sp_find(s, name);
    if (!sp)
      return sp_missing(name, e);
    sp_set_top(s, sp->sp_below);  /* its work and the later ones' stay */
    snprintf(tag, tagcap, "RELEASE");
    return CZ_OK;
  }
  case SQL_STMT_ROLLBACK_TO:
    if (!s->se_block)
      return err_set(e, SQLSTATE_NO_ACTIVE_TX,
                     "ROLLBACK TO SAVEPOINT can only be used in transaction blocks");
    snprintf(tag, tagcap, "ROLLBACK");
    return sp_rollback_to(s, name, e);
  default:
    return err_set(e, SQLSTATE_INTERNAL, "not a savepoint statement");
  }
}
